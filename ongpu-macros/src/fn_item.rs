//! What `#[ongpu::device]` and `#[ongpu::kernel]` share about the function they mark: the
//! signature forms they accept, and which attributes are documentation.

use syn::spanned::Spanned;
use syn::{Attribute, Signature};

/// Refuses generic, `const`, `async`, `unsafe`, `extern` and variadic functions; `attr`
/// names the attribute in the message (`#[ongpu::kernel]`).
pub fn check_plain_signature(sig: &Signature, attr: &str) -> syn::Result<()> {
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(syn::Error::new(
            sig.generics.span(),
            format!(
                "{attr} functions cannot be generic; write one per element type (a generic \
                 #[ongpu::device] function can hold what they share)"
            ),
        ));
    }
    check_qualifiers(sig, attr)
}

/// Refuses `const`, `async`, `unsafe`, `extern` and variadic functions.
pub fn check_qualifiers(sig: &Signature, attr: &str) -> syn::Result<()> {
    for (present, span, what) in [
        (sig.constness.is_some(), sig.constness.span(), "const"),
        (sig.asyncness.is_some(), sig.asyncness.span(), "async"),
        (sig.unsafety.is_some(), sig.unsafety.span(), "unsafe"),
        (sig.abi.is_some(), sig.abi.span(), "extern"),
        (sig.variadic.is_some(), sig.variadic.span(), "variadic"),
    ] {
        if present {
            return Err(syn::Error::new(
                span,
                format!("{attr} functions cannot be {what}"),
            ));
        }
    }
    Ok(())
}

/// The doc attributes (which go to the item users see) and the others (which stay on the
/// function).
pub fn split_docs(attrs: &[Attribute]) -> (Vec<&Attribute>, Vec<&Attribute>) {
    attrs.iter().partition(|a| a.path().is_ident("doc"))
}
