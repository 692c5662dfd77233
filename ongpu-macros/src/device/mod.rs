//! `#[ongpu::device]`: a function callable from GPU bodies. The function stays Rust (for the
//! CPU backend and rustc's checks) and gains a CUDA C++ translation. Its name becomes a unit
//! value that dereferences to the function, so that calls look the same while a body's call
//! can be checked to be of a marked function (an unmarked one is a compile error that says
//! to mark it). The pieces: `signature` (the forms accepted), `cuda_types` (their C++
//! types), `source` (the C++ function), `expand` (the Rust items).

mod cuda_types;
mod expand;
mod signature;
mod source;

use crate::emit_rust::body::{EmitRust, Plain};
use crate::ir::{lower, Context};
use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::ItemFn;

/// The expansion of `#[ongpu::device] fn ...`.
pub fn device(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(
            attr.span(),
            "#[ongpu::device] takes no arguments",
        ));
    }
    let f: ItemFn = syn::parse2(item)?;
    let sig = signature::parse(&f.sig)?;
    let body = lower(&f.block, Context::Function)?;
    let translation = source::translate(&sig, &body);
    let cuda = expand::Cuda {
        source: source::source(&f.sig.ident, &sig, &translation.code),
        calls: &translation.device_calls,
    };
    Ok(expand::items(&f, &sig, Plain.block(&body.block), cuda))
}
