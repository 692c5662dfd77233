//! The type of a `shared!` declaration, which stays syntax: its element type and its
//! sizes are constants of a Rust type, evaluated by Rust, not expressions of the body.

use syn::spanned::Spanned;
use syn::{Expr, Type};

/// What `shared!([T; N])` or `shared!([[T; N]; M])` declares: the element type and the
/// extents, outermost first.
pub struct SharedType {
    /// The element type.
    pub element: Type,
    /// The extents (`[M, N]` for `[[T; N]; M]`).
    pub dims: Vec<Expr>,
}

const SHARED_FORM: &str = "shared! takes an array type: `shared!([f32; 256])` or \
`shared!([[f32; 16]; 16])` (1 or 2 dimensions, constant sizes)";

/// Parses the type of a `shared!` declaration.
pub fn shared_type(m: &syn::Macro) -> syn::Result<SharedType> {
    let ty: Type = m
        .parse_body()
        .map_err(|e| syn::Error::new(e.span(), SHARED_FORM))?;
    let mut dims = Vec::new();
    let mut cur = &ty;
    while let Type::Array(a) = cur {
        dims.push(a.len.clone());
        cur = &a.elem;
    }
    if dims.is_empty() {
        return Err(syn::Error::new(ty.span(), SHARED_FORM));
    }
    if dims.len() > 2 {
        return Err(syn::Error::new(
            ty.span(),
            "shared! arrays have 1 or 2 dimensions; flatten the others into one",
        ));
    }
    Ok(SharedType {
        element: cur.clone(),
        dims,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_types_give_element_and_extents() {
        let m: syn::Macro = syn::parse_str("shared!([[f32; TILE]; 2 * TILE])").unwrap();
        let t = shared_type(&m).unwrap();
        assert_eq!(t.dims.len(), 2);
        assert!(matches!(&t.dims[0], Expr::Binary(_)));
        assert!(matches!(&t.element, Type::Path(_)));
        let m: syn::Macro = syn::parse_str("shared!(f32)").unwrap();
        assert!(shared_type(&m).is_err());
        let m: syn::Macro = syn::parse_str("shared!([[[u32; 2]; 2]; 2])").unwrap();
        assert!(shared_type(&m).is_err());
    }
}
