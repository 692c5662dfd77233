//! The C++ types of a device function's signature, and the precision its unsuffixed float
//! literals take.

use crate::types::cuda_type;
use syn::spanned::Spanned;
use syn::Type;

/// The C++ type of a parameter.
pub fn param_type(t: &Type) -> syn::Result<String> {
    cuda_type(t, "ongpu_real").map_err(|()| {
        syn::Error::new(
            t.span(),
            "unsupported parameter type; device functions take f32 f64 i32 u32 i64 u64 usize \
             bool, Complex<f32|f64>, ColorVector<f32|f64>, ColorMatrix<f32|f64>, Philox or \
             Lattice by value",
        )
    })
}

/// The C++ type of the result.
pub fn return_type(t: &Type) -> syn::Result<String> {
    cuda_type(t, "ongpu_real").map_err(|()| syn::Error::new(t.span(), "unsupported return type"))
}

/// The precision of unsuffixed float literals in a device function: the one its signature
/// uses (double if it mentions f64, else float if it mentions f32, else the kernel's).
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
