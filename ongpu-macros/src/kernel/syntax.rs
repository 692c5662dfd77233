//! Syntax shared by the kernel's analysis and its two emitters: array accesses
//! (`a[i]`, `s[i][j]`), `shared!` declarations and intrinsic calls.

use syn::spanned::Spanned;
use syn::{Expr, Ident, Type};

/// `root[i][j]...`: the root name and the indices, innermost first; `None` if `e` is not
/// an index expression on a plain name.
pub fn index_chain(e: &Expr) -> Option<(&Ident, Vec<&Expr>)> {
    let mut indices = Vec::new();
    let mut cur = e;
    loop {
        match cur {
            Expr::Index(i) => {
                indices.push(&*i.index);
                cur = &i.expr;
            }
            Expr::Path(p) if p.qself.is_none() && !indices.is_empty() => {
                indices.reverse();
                return Some((p.path.get_ident()?, indices));
            }
            _ => return None,
        }
    }
}

/// The name of a plain path expression (`a`).
pub fn path_ident(e: &Expr) -> Option<&Ident> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    }
}

/// The name of the kernel intrinsic `e` calls, if it calls one (`sync_threads()`).
pub fn intrinsic_call(e: &Expr) -> Option<(String, &syn::ExprCall)> {
    let Expr::Call(c) = e else { return None };
    let name = path_ident(&c.func)?.to_string();
    crate::supported::kernel_intrinsic(&name).map(|_| (name, c))
}

/// The `shared!(TYPE)` macro of a `let` initializer, if it is one.
pub fn shared_macro(init: &Expr) -> Option<&syn::Macro> {
    match init {
        Expr::Macro(m) if m.mac.path.is_ident("shared") => Some(&m.mac),
        _ => None,
    }
}

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
    fn index_chains_start_at_the_root() {
        let e: Expr = syn::parse_str("s[i][j + 1][0]").unwrap();
        let (root, idx) = index_chain(&e).unwrap();
        assert_eq!(root, "s");
        assert_eq!(idx.len(), 3);
        assert!(matches!(idx[0], Expr::Path(_)));
        assert!(index_chain(&syn::parse_str("f(x)[0]").unwrap()).is_none());
        assert!(index_chain(&syn::parse_str("a").unwrap()).is_none());
    }

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
