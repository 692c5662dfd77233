//! The checked form of a body.

mod lower;

pub use lower::{check_block, Context};
