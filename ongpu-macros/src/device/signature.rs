//! The signature of a device function: plain, non-generic, parameters that are plain names
//! of the types a GPU body has, by value.

use super::cuda_types::{param_type, return_type};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, Pat, ReturnType, Type};

/// One parameter.
pub struct Param {
    /// Its name.
    pub ident: Ident,
    /// Its Rust type.
    pub ty: Type,
    /// Its C++ type.
    pub cuda: String,
}

/// A checked signature.
pub struct Signature {
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

/// Checks `sig` and maps its types.
pub fn parse(sig: &syn::Signature) -> syn::Result<Signature> {
    crate::fn_item::check_plain_signature(sig, "#[ongpu::device]")?;
    let mut params = Vec::new();
    for arg in &sig.inputs {
        match arg {
            FnArg::Receiver(r) => {
                return Err(error(r.span(), "#[ongpu::device] functions take no `self`"))
            }
            FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    params.push(Param {
                        ident: p.ident.clone(),
                        ty: (*t.ty).clone(),
                        cuda: param_type(&t.ty)?,
                    });
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
        ReturnType::Type(_, t) => ((**t).clone(), return_type(t)?),
    };
    Ok(Signature {
        params,
        ret,
        ret_cuda,
    })
}
