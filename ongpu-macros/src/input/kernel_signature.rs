//! A kernel's signature: arrays as `&[T]` (read) or `&mut [T]` (written) of field element
//! types, values of the types `on_gpu!` can capture by value, no result, nothing generic.

use crate::types as ty;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Pat, ReturnType, Type};

/// What a parameter is.
#[derive(Debug, Clone)]
pub enum ParamKind {
    /// `&[T]` or `&mut [T]`.
    Array {
        /// `T`.
        element: Type,
        /// True for `&mut [T]`.
        writable: bool,
    },
    /// A value.
    Value(Type),
}

/// One parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// Its name.
    pub ident: Ident,
    /// True for `mut x: T` (a value the body reassigns).
    pub mutable: bool,
    /// Its kind.
    pub kind: ParamKind,
}

const ARRAY_TYPES: &str =
    "f32 f64 i32 u32 Complex<f32|f64> ColorVector<f32|f64> ColorMatrix<f32|f64>";
const VALUE_TYPES: &str = "f32 f64 i32 u32 i64 u64 isize usize bool Complex<f32|f64> \
ColorVector<f32|f64> ColorMatrix<f32|f64>";

fn error(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

/// The C++ type of `t` if it is one of `allowed` scalars or a lattice type of explicit
/// precision.
fn supported(t: &Type, allowed: &[&str]) -> bool {
    match ty::cuda_type(t, "ongpu_real") {
        Ok(c) if c.contains('<') => !c.contains("ongpu_real"),
        Ok(c) => allowed.contains(&c.as_str()),
        Err(()) => false,
    }
}

fn param_kind(t: &Type) -> syn::Result<ParamKind> {
    match t {
        Type::Reference(r) => {
            let Type::Slice(s) = &*r.elem else {
                return Err(error(
                    r.span(),
                    "a kernel takes arrays as `&[T]` or `&mut [T]` and everything else by value (`x: f32`)",
                ));
            };
            if !supported(&s.elem, &["float", "double", "int", "unsigned int"]) {
                return Err(error(
                    s.elem.span(),
                    format!("unsupported array element type; kernel arrays hold {ARRAY_TYPES} (the element types of a Field)"),
                ));
            }
            Ok(ParamKind::Array {
                element: (*s.elem).clone(),
                writable: r.mutability.is_some(),
            })
        }
        t if supported(
            t,
            &["float", "double", "int", "unsigned int", "long long", "unsigned long long", "bool"],
        ) =>
        {
            Ok(ParamKind::Value(t.clone()))
        }
        t => Err(error(
            t.span(),
            format!(
                "unsupported parameter type; a kernel takes arrays `&[T]` (read) or `&mut [T]` (written) \
                 of {ARRAY_TYPES}, and values of {VALUE_TYPES}"
            ),
        )),
    }
}

/// The parameters of `f`, after checking that it can be a kernel.
pub fn params(f: &ItemFn) -> syn::Result<Vec<Param>> {
    let sig = &f.sig;
    crate::fn_item::check_plain_signature(sig, "#[ongpu::kernel]")?;
    if let ReturnType::Type(_, t) = &sig.output {
        return Err(error(
            t.span(),
            "a kernel returns nothing: it writes its results into `&mut [T]` parameters",
        ));
    }
    let mut out: Vec<Param> = Vec::new();
    for arg in &sig.inputs {
        let FnArg::Typed(t) = arg else {
            return Err(error(
                arg.span(),
                "#[ongpu::kernel] functions take no `self`",
            ));
        };
        let (ident, mutable) = match &*t.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                (p.ident.clone(), p.mutability.is_some())
            }
            other => {
                return Err(error(
                    other.span(),
                    "parameters must be plain names: `x: f32`",
                ))
            }
        };
        let kind = param_kind(&t.ty)?;
        if mutable && matches!(kind, ParamKind::Array { .. }) {
            return Err(error(
                ident.span(),
                "drop `mut`: write an array through its type, `&mut [T]`",
            ));
        }
        if out.iter().any(|p| p.ident == ident) {
            return Err(error(ident.span(), "a parameter name is used twice"));
        }
        out.push(Param {
            ident,
            mutable,
            kind,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &str) -> Result<Vec<Param>, String> {
        let f: ItemFn = syn::parse_str(src).unwrap();
        params(&f).map_err(|e| e.to_string())
    }

    #[test]
    fn arrays_and_values() {
        let p =
            check("fn k(a: &[f32], c: &mut [ColorMatrix<f64>], mut n: u32, z: Complex<f32>) {}")
                .unwrap();
        assert!(matches!(
            p[0].kind,
            ParamKind::Array {
                writable: false,
                ..
            }
        ));
        assert!(matches!(p[1].kind, ParamKind::Array { writable: true, .. }));
        assert!(p[2].mutable && matches!(p[2].kind, ParamKind::Value(_)));
        assert!(matches!(p[3].kind, ParamKind::Value(_)));
    }

    #[test]
    fn unsupported_signatures() {
        assert!(check("fn k(a: &[u8]) {}")
            .unwrap_err()
            .contains("array element type"));
        assert!(check("fn k(a: Vec<f32>) {}")
            .unwrap_err()
            .contains("unsupported parameter type"));
        assert!(check("fn k(a: &f32) {}").unwrap_err().contains("by value"));
        assert!(check("fn k(a: u8) {}").is_err());
        assert!(check("fn k(a: &[f32]) -> f32 { 0.0 }")
            .unwrap_err()
            .contains("returns nothing"));
        assert!(check("fn k<T>(a: &[T]) {}")
            .unwrap_err()
            .contains("generic"));
        assert!(check("fn k(a: &[Complex]) {}").is_err());
    }
}
