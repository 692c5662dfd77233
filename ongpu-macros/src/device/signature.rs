//! The signature of a device function: plain (or generic over one real type, see
//! `generics`), parameters that are plain names of the types a GPU body has, by value,
//! arrays of a kernel as `&[T]` / `&mut [T]`, and local arrays by reference, `&[T; N]` /
//! `&mut [T; N]`.

use super::cuda_types::{array_ref_type, param_type, return_type, slice_element};
use super::generics::{self, TypeParam};
use crate::types::TypeParams;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, Pat, ReturnType, Type};

/// What a parameter is.
/// (A signature has a few: their size does not matter.)
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum ParamKind {
    /// A value.
    Value,
    /// `&[T]` or `&mut [T]`: a kernel's array parameter or 1-D `shared!` array.
    Slice {
        /// `T`.
        element: Type,
        /// True for `&mut [T]`.
        writable: bool,
    },
    /// `&[T; N]` or `&mut [T; N]`: a local array.
    ArrayRef,
}

/// One parameter.
#[derive(Debug)]
pub struct Param {
    /// `mut`, for a value the body reassigns.
    pub mutability: Option<syn::Token![mut]>,
    /// Its name.
    pub ident: Ident,
    /// Its type as written.
    pub ty: Type,
    /// Its type in the function's Rust form (a view for a slice: see `rust_type`).
    pub rust: Type,
    /// Its C++ type.
    pub cuda: String,
    /// What it is.
    pub kind: ParamKind,
}

/// A checked signature.
#[derive(Debug)]
pub struct Signature {
    /// The type parameter of a generic function.
    pub type_param: Option<TypeParam>,
    /// The generics as written (re-emitted on the Rust items).
    pub generics: syn::Generics,
    /// The parameters.
    pub params: Vec<Param>,
    /// The Rust result type (`()` if none).
    pub ret: Type,
    /// The C++ result type (`void` if none).
    pub ret_cuda: String,
}

fn error(span: Span, msg: &str) -> syn::Error {
    syn::Error::new(span, msg)
}

/// The parameter `ident: ty`.
fn param(p: &syn::PatIdent, ty: &Type, tp: &TypeParams) -> syn::Result<Param> {
    let ident = p.ident.clone();
    let (kind, rust, cuda) = match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) => {
                let element = (*s.elem).clone();
                let cpp = slice_element(&element, tp)?;
                let writable = r.mutability.is_some();
                let (rust, constness): (Type, &str) = if writable {
                    (
                        syn::parse_quote!(::ongpu::__private::ArrayView<#element, 1>),
                        "",
                    )
                } else {
                    (
                        syn::parse_quote!(::ongpu::__private::ReadSlice<#element>),
                        "const ",
                    )
                };
                let kind = ParamKind::Slice { element, writable };
                (kind, rust, format!("ongpu::slice<{constness}{cpp}>"))
            }
            Type::Array(a) => {
                let cpp = array_ref_type(a, tp)?;
                let constness = if r.mutability.is_some() { "" } else { "const " };
                (
                    ParamKind::ArrayRef,
                    ty.clone(),
                    format!("{constness}{cpp}&"),
                )
            }
            _ => (ParamKind::Value, ty.clone(), param_type(ty, tp)?),
        },
        // By value: a copy on both sides (a Wilson spinor `[ColorVector<T>; 4]` read from a
        // field, which a body passes as a value).
        Type::Array(a) => (ParamKind::Value, ty.clone(), array_ref_type(a, tp)?),
        _ => (ParamKind::Value, ty.clone(), param_type(ty, tp)?),
    };
    Ok(Param {
        mutability: p.mutability,
        ident,
        ty: ty.clone(),
        rust,
        cuda,
        kind,
    })
}

/// Checks `sig` and maps its types.
pub fn parse(sig: &syn::Signature) -> syn::Result<Signature> {
    crate::fn_item::check_qualifiers(sig, "#[ongpu::device]")?;
    let type_param = generics::parse(&sig.generics)?;
    let tp: Vec<(String, String)> = type_param.iter().map(TypeParam::pair).collect();
    let mut params = Vec::new();
    for arg in &sig.inputs {
        match arg {
            FnArg::Receiver(r) => {
                return Err(error(r.span(), "#[ongpu::device] functions take no `self`"))
            }
            FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    params.push(param(p, &t.ty, &tp)?);
                }
                other => {
                    return Err(error(
                        other.span(),
                        "parameters must be plain names: `x: f32`",
                    ))
                }
            },
        }
    }
    let (ret, ret_cuda) = match &sig.output {
        ReturnType::Default => (syn::parse_quote!(()), "void".to_string()),
        ReturnType::Type(_, t) => ((**t).clone(), return_type(t, &tp)?),
    };
    if let Some(t) = &type_param {
        if !params.iter().any(|p| p.cuda.contains(&t.cuda)) {
            return Err(error(
                t.ident.span(),
                &format!(
                    "`{}` must be the type of a parameter (or of its elements): the GPU's copy \
                     of the function deduces it from the arguments",
                    t.ident
                ),
            ));
        }
    }
    Ok(Signature {
        type_param,
        generics: sig.generics.clone(),
        params,
        ret,
        ret_cuda,
    })
}

impl Signature {
    /// The where clause of a generic function's items: the user's predicates, and what the
    /// array views of the Rust copy need of the element types (facts for `f32` and `f64`,
    /// which rustc cannot see through the type parameter).
    pub fn where_clause(&self) -> Option<syn::WhereClause> {
        let t = self.type_param.as_ref()?;
        let mut w = self
            .generics
            .where_clause
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(where));
        let id = &t.ident;
        for p in &self.params {
            let ParamKind::Slice { element, .. } = &p.kind else {
                continue;
            };
            let of_t = matches!(element, syn::Type::Path(q) if q.path.is_ident(id));
            let predicate: syn::WherePredicate = if of_t {
                // `Real` is an `Element`; `load4` on its arrays needs this too.
                syn::parse_quote!(#element: ::ongpu::__private::Vector4)
            } else {
                syn::parse_quote!(#element: ::ongpu::__private::Element)
            };
            if !w.predicates.iter().any(|p| *p == predicate) {
                w.predicates.push(predicate);
            }
        }
        Some(w)
    }

    /// The slice parameters, as the kernel analysis sees array parameters (which checks
    /// their uses in the body the same way).
    pub fn as_kernel_params(&self) -> Vec<crate::input::kernel_signature::Param> {
        use crate::input::kernel_signature::{Param as KernelParam, ParamKind as Kind};
        self.params
            .iter()
            .map(|p| KernelParam {
                ident: p.ident.clone(),
                mutable: false,
                kind: match &p.kind {
                    ParamKind::Slice { element, writable } => Kind::Array {
                        element: element.clone(),
                        writable: *writable,
                    },
                    ParamKind::Value | ParamKind::ArrayRef => Kind::Value(p.ty.clone()),
                },
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &str) -> Result<Signature, String> {
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        parse(&f.sig).map_err(|e| e.to_string())
    }

    #[test]
    fn arrays_by_reference() {
        let s = check(
            "fn f(a: &[f32], c: &mut [Complex<f64>], t: &[[f32; 4]; 2], u: &mut [u32; 3]) {}",
        )
        .unwrap();
        let cuda: Vec<&str> = s.params.iter().map(|p| p.cuda.as_str()).collect();
        assert_eq!(
            cuda,
            [
                "ongpu::slice<const float>",
                "ongpu::slice<ongpu::complex<double>>",
                "const ongpu::array<ongpu::array<float, 4>, 2>&",
                "ongpu::array<unsigned int, 3>&"
            ]
        );
        assert!(matches!(
            s.params[1].kind,
            ParamKind::Slice { writable: true, .. }
        ));
        assert!(matches!(s.params[2].kind, ParamKind::ArrayRef));
    }

    #[test]
    fn generic_over_one_real() {
        let s = check("fn f<T: Real>(a: &[T], z: &mut [Complex<T>], x: T, v: &[T; 3]) -> T {}")
            .unwrap();
        let cuda: Vec<&str> = s.params.iter().map(|p| p.cuda.as_str()).collect();
        assert_eq!(
            cuda,
            [
                "ongpu::slice<const ongpu_t_T>",
                "ongpu::slice<ongpu::complex<ongpu_t_T>>",
                "ongpu_t_T",
                "const ongpu::array<ongpu_t_T, 3>&"
            ]
        );
        assert_eq!(s.ret_cuda, "ongpu_t_T");
        assert!(check("fn f<T: Real>(n: u32) -> T {}")
            .unwrap_err()
            .contains("must be the type of a parameter"));
        assert!(check("fn f<T: Real>(a: &[U]) {}").is_err());
    }

    #[test]
    fn arrays_by_value() {
        let s = check("fn f<T: Real>(a: [ColorVector<T>; 4]) -> [ColorVector<T>; 2] {}").unwrap();
        assert!(matches!(s.params[0].kind, ParamKind::Value));
        assert_eq!(
            s.params[0].cuda,
            "ongpu::array<ongpu::ColorVector<ongpu_t_T>, 4>"
        );
        assert_eq!(s.ret_cuda, "ongpu::array<ongpu::ColorVector<ongpu_t_T>, 2>");
    }

    #[test]
    fn unsupported_arrays() {
        assert!(check("fn f(a: [f32; N]) {}")
            .unwrap_err()
            .contains("a number"));
        assert!(check("fn f(a: &[u8]) {}").is_err());
        assert!(check("fn f(a: &[f32; N]) {}")
            .unwrap_err()
            .contains("a number"));
        assert!(check("fn f(a: &f32) {}").is_err());
    }
}
