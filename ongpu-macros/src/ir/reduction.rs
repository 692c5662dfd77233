//! What the checked tree of a reduction's body must hold: each site's value as its tail.

use super::{Body, Expr, Stmt};
use syn::spanned::Spanned;

/// The per-site value of a reduction body: its tail expression, which must be a value.
pub fn per_site_value(body: &Body) -> syn::Result<&Expr> {
    const NEEDS: &str = "a reduction body ends with each site's value: an expression without a \
        trailing `;`, as in on_gpu!(sum: |i| { let t = x * y; t.re })";
    let statement = |e: &Expr| {
        syn::Error::new(
            e.span(),
            format!("this is a statement, not a value; {NEEDS}"),
        )
    };
    match body.block.stmts.last() {
        Some(Stmt::Expr(e, None)) => match e {
            Expr::Assign(..) | Expr::For(_) | Expr::While(..) | Expr::Loop(..) => Err(statement(e)),
            e if e.is_compound_assign() => Err(statement(e)),
            e => Ok(e),
        },
        Some(Stmt::Expr(e, Some(_))) => Err(syn::Error::new(e.span(), NEEDS)),
        Some(Stmt::Let(l)) => Err(syn::Error::new(l.let_token.span, NEEDS)),
        None => Err(syn::Error::new(body.block.brace.span.join(), NEEDS)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(src: &str) -> Body {
        let b: syn::Block = syn::parse_str(src).unwrap();
        crate::ir::lower(&b, crate::ir::Context::OnGpu).unwrap()
    }

    #[test]
    fn the_value_is_the_tail_expression() {
        assert!(per_site_value(&block("{ let t = x; t * 2.0 }")).is_ok());
        assert!(per_site_value(&block("{ if c { a } else { b } }")).is_ok());
        for bad in [
            "{ x * 2.0; }",
            "{}",
            "{ x = y }",
            "{ x += 1 }",
            "{ for k in 0..3 {} }",
            "{ let t = x; }",
        ] {
            assert!(per_site_value(&block(bad)).is_err(), "{bad}");
        }
    }
}
