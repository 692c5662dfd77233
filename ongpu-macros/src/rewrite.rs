//! The body as Rust: the user's block, with calls of the maths functions (`sqrt(x)`) routed
//! to `::ongpu::__private::math`, so that they need no import.

use crate::supported;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr};

struct MathCalls;

impl VisitMut for MathCalls {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        if let Expr::Call(c) = e {
            if let Expr::Path(p) = &mut *c.func {
                if let Some(id) = p.path.get_ident() {
                    if supported::math_function(&id.to_string()).is_some() {
                        let id = id.clone();
                        p.path =
                            syn::parse_quote_spanned!(id.span()=> ::ongpu::__private::math::#id);
                    }
                }
            }
        }
    }
}

/// `block` with the maths function calls made absolute.
pub fn route_math_calls(block: &Block) -> Block {
    let mut b = block.clone();
    MathCalls.visit_block_mut(&mut b);
    b
}
