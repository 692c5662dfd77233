//! The C++ types of a device function's signature, and the precision its unsuffixed float
//! literals take.

use crate::types::{cuda_type_in, TypeParams};
use syn::spanned::Spanned;
use syn::Type;

/// The C++ type of a parameter (`params`: the function's type parameter, if generic).
pub fn param_type(t: &Type, params: &TypeParams) -> syn::Result<String> {
    cuda_type_in(t, "ongpu_real", params).map_err(|()| {
        syn::Error::new(
            t.span(),
            "unsupported parameter type; device functions take f32 f64 i32 u32 i64 u64 usize \
             bool, Complex<f32|f64>, ColorVector<f32|f64>, ColorMatrix<f32|f64>, Philox or \
             Lattice by value (and a generic one its type parameter T, Complex<T>, \
             ColorVector<T> and ColorMatrix<T>)",
        )
    })
}

/// The C++ element type of a `&[T]` parameter: the element types of kernel arrays, with
/// their precision spelled (or the function's type parameter).
pub fn slice_element(t: &Type, params: &TypeParams) -> syn::Result<String> {
    match cuda_type_in(t, "ongpu_real", params) {
        Ok(c) if c.contains('<') && !c.contains("ongpu_real") => Ok(c),
        Ok(c) if matches!(c.as_str(), "float" | "double" | "int" | "unsigned int") => Ok(c),
        Ok(c) if params.iter().any(|(_, p)| *p == c) => Ok(c),
        _ => Err(syn::Error::new(
            t.span(),
            "unsupported array element type; a device function's `&[T]` / `&mut [T]` holds \
             f32 f64 i32 u32 Complex<f32|f64> ColorVector<f32|f64> or ColorMatrix<f32|f64> (the \
             element types of kernel arrays)",
        )),
    }
}

/// The C++ type of a local array `[T; N]` (nested arrays too), whose sizes are numbers.
pub fn array_ref_type(a: &syn::TypeArray, params: &TypeParams) -> syn::Result<String> {
    let element = match &*a.elem {
        Type::Array(inner) => array_ref_type(inner, params)?,
        t => cuda_type_in(t, "ongpu_real", params)
            .map_err(|()| syn::Error::new(t.span(), "unsupported element type of a local array"))?,
    };
    let len = match &a.len {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_digits().to_string(),
        other => {
            return Err(syn::Error::new(
                other.span(),
                "the size of a local array in a device function's signature is a number \
                 (`&[f32; 8]`): the function's GPU copy is built before constants have values",
            ))
        }
    };
    Ok(format!("ongpu::array<{element}, {len}>"))
}

/// The C++ type of the result (a local array `[T; N]` too, returned by value like any
/// other: `ongpu::array` is a plain struct).
pub fn return_type(t: &Type, params: &TypeParams) -> syn::Result<String> {
    if let Type::Array(a) = t {
        return array_ref_type(a, params);
    }
    cuda_type_in(t, "ongpu_real", params)
        .map_err(|()| syn::Error::new(t.span(), "unsupported return type"))
}

/// The precision of unsuffixed float literals in a non-generic device function: the one
/// its signature uses (double if it mentions f64, else float if it mentions f32, else the
/// kernel's). In a generic one they are of its type parameter.
pub fn literal_real<'a>(sig_types: impl IntoIterator<Item = &'a str>) -> &'static str {
    let types: Vec<&str> = sig_types.into_iter().collect();
    if types.iter().any(|t| t.contains("double")) {
        "double"
    } else if types.iter().any(|t| t.contains("float")) {
        "float"
    } else {
        "ongpu_real"
    }
}
