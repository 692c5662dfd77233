//! The type parameter of a generic device function: one type bounded by `Real` (`f32` or
//! `f64`), written `fn f<T: Real>` or `fn f<T>(..) where T: Real` (any path ending in
//! `Real`, such as `ongpu::Real`; rustc resolves it). Nothing else: the C++ template
//! deduces the parameter from the arguments, and the body language knows what a real can
//! do, so a second parameter or another bound would have no meaning on the GPU.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{GenericParam, Generics, Ident, TypeParamBound, WherePredicate};

/// The type parameter.
#[derive(Debug, Clone)]
pub struct TypeParam {
    /// Its Rust name.
    pub ident: Ident,
    /// Its C++ name (a template parameter named so that it cannot meet a body's name).
    pub cuda: String,
}

impl TypeParam {
    /// The (Rust name, C++ name) pair the body's types are checked and translated with.
    pub fn pair(&self) -> (String, String) {
        (self.ident.to_string(), self.cuda.clone())
    }
}

fn error(span: Span, msg: &str) -> syn::Error {
    syn::Error::new(span, msg)
}

const FORM: &str = "a device function is generic over one type parameter bounded by `Real` \
                    (`fn f<T: Real>(a: &[T], x: T) -> T`, with `ongpu::Real`: f32 or f64)";

/// True if `b` is the bound `Real` (or a path ending in it).
fn is_real(b: &TypeParamBound) -> bool {
    match b {
        TypeParamBound::Trait(t) => {
            matches!(t.modifier, syn::TraitBoundModifier::None)
                && t.lifetimes.is_none()
                && t.path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "Real" && s.arguments.is_none())
        }
        _ => false,
    }
}

/// Checks every bound of the parameter: `Real` only, at least once.
fn check_bounds<'a>(
    ident: &Ident,
    bounds: impl Iterator<Item = &'a TypeParamBound>,
) -> syn::Result<()> {
    let mut real = false;
    for b in bounds {
        if !is_real(b) {
            return Err(error(
                b.span(),
                &format!(
                    "`{ident}` can only be bounded by `Real` (f32 or f64): the GPU's copy of the \
                     function is a C++ template over the two real types, and its body can do \
                     with `{ident}` what the body language does with reals"
                ),
            ));
        }
        real = true;
    }
    if real {
        Ok(())
    } else {
        Err(error(
            ident.span(),
            &format!("`{ident}` needs the bound `Real`: `{ident}: Real` (f32 or f64)"),
        ))
    }
}

/// The type parameter of `generics`, if the function has one.
pub fn parse(generics: &Generics) -> syn::Result<Option<TypeParam>> {
    let mut found: Option<&syn::TypeParam> = None;
    for p in &generics.params {
        match p {
            GenericParam::Type(t) if found.is_none() => {
                if let Some(d) = &t.default {
                    return Err(error(
                        d.span(),
                        "a device function's type parameter has no default",
                    ));
                }
                found = Some(t);
            }
            other => return Err(error(other.span(), FORM)),
        }
    }
    let Some(t) = found else {
        return match &generics.where_clause {
            Some(w) => Err(error(w.span(), FORM)),
            None => Ok(None),
        };
    };
    let mut bounds: Vec<&TypeParamBound> = t.bounds.iter().collect();
    for pred in generics.where_clause.iter().flat_map(|w| &w.predicates) {
        match pred {
            WherePredicate::Type(p)
                if p.lifetimes.is_none()
                    && matches!(&p.bounded_ty, syn::Type::Path(q)
                        if q.qself.is_none() && q.path.is_ident(&t.ident)) =>
            {
                bounds.extend(p.bounds.iter());
            }
            other => return Err(error(other.span(), FORM)),
        }
    }
    check_bounds(&t.ident, bounds.into_iter())?;
    Ok(Some(TypeParam {
        ident: t.ident.clone(),
        cuda: format!("ongpu_t_{}", t.ident.to_string().trim_start_matches("r#")),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &str) -> Result<Option<String>, String> {
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        parse(&f.sig.generics)
            .map(|p| p.map(|p| p.cuda))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn one_real_parameter() {
        assert_eq!(check("fn f() {}").unwrap(), None);
        assert_eq!(check("fn f<T: Real>() {}").unwrap().unwrap(), "ongpu_t_T");
        assert!(check("fn f<R: ongpu::Real>() {}").unwrap().is_some());
        assert!(check("fn f<T>() where T: Real {}").unwrap().is_some());
    }

    #[test]
    fn anything_else_is_refused() {
        assert!(check("fn f<T: Copy>() {}")
            .unwrap_err()
            .contains("only be bounded by `Real`"));
        assert!(check("fn f<T: Real + Copy>() {}").is_err());
        assert!(check("fn f<T>() {}")
            .unwrap_err()
            .contains("needs the bound"));
        assert!(check("fn f<T: Real, U: Real>() {}")
            .unwrap_err()
            .contains("one type parameter"));
        assert!(check("fn f<'a, T: Real>() {}").is_err());
        assert!(check("fn f<const N: usize>() {}").is_err());
        assert!(check("fn f<T: Real = f32>() {}").is_err());
        assert!(check("fn f<T: Real>() where u32: Copy {}").is_err());
    }
}
