//! Rust types of the body language as CUDA C++ types.

use crate::supported;
use syn::{GenericArgument, PathArguments, Type};

/// The scalar type a type names, if it is one (`f32` → `float`).
pub fn scalar_name(t: &Type) -> Option<&'static str> {
    match t {
        Type::Path(p) if p.qself.is_none() => {
            supported::scalar_type(&p.path.get_ident()?.to_string())
        }
        Type::Paren(p) => scalar_name(&p.elem),
        Type::Group(g) => scalar_name(&g.elem),
        _ => None,
    }
}

/// The type parameters in scope (a generic device function's): Rust name and C++ name.
pub type TypeParams = [(String, String)];

/// The C++ name of the type parameter `t` names, if it names one.
pub fn type_param<'a>(t: &Type, params: &'a TypeParams) -> Option<&'a str> {
    match t {
        Type::Path(p) if p.qself.is_none() => {
            let id = p.path.get_ident()?.to_string();
            params
                .iter()
                .find(|(r, _)| *r == id)
                .map(|(_, c)| c.as_str())
        }
        Type::Paren(p) => type_param(&p.elem, params),
        Type::Group(g) => type_param(&g.elem, params),
        _ => None,
    }
}

/// The C++ type of `t`; a lattice type without its real parameter (`Complex`) takes `real`.
pub fn cuda_type(t: &Type, real: &str) -> Result<String, ()> {
    cuda_type_in(t, real, &[])
}

/// [`cuda_type`] where the type parameters `params` are in scope: a parameter (`T`) or a
/// lattice type of one (`Complex<T>`).
pub fn cuda_type_in(t: &Type, real: &str, params: &TypeParams) -> Result<String, ()> {
    if let Some(s) = scalar_name(t) {
        return Ok(s.to_string());
    }
    if let Some(c) = type_param(t, params) {
        return Ok(c.to_string());
    }
    let Type::Path(p) = t else { return Err(()) };
    if p.qself.is_some() {
        return Err(());
    }
    let last = p.path.segments.last().ok_or(())?;
    if let (Some(v), PathArguments::None) = (
        supported::value_type(&last.ident.to_string()),
        &last.arguments,
    ) {
        return Ok(v.to_string());
    }
    let base = supported::generic_type(&last.ident.to_string()).ok_or(())?;
    let param = match &last.arguments {
        PathArguments::None => real.to_string(),
        PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            GenericArgument::Type(Type::Infer(_)) => real.to_string(),
            GenericArgument::Type(inner) => match (scalar_name(inner), type_param(inner, params)) {
                (Some(s @ ("float" | "double")), _) => s.to_string(),
                (None, Some(c)) => c.to_string(),
                _ => return Err(()),
            },
            _ => return Err(()),
        },
        _ => return Err(()),
    };
    Ok(format!("{base}<{param}>"))
}

/// The real type a lattice type's path fixes (`Complex::<f64>` → `double`), if any.
pub fn real_argument(args: &PathArguments) -> Option<&'static str> {
    match args {
        PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            GenericArgument::Type(t) => match scalar_name(t) {
                Some(s @ ("float" | "double")) => Some(s),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// [`real_argument`] where the type parameters `params` are in scope (`Complex::<T>` →
/// `T`'s C++ name).
pub fn real_argument_in(args: &PathArguments, params: &TypeParams) -> Option<String> {
    if let Some(r) = real_argument(args) {
        return Some(r.to_string());
    }
    match args {
        PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            GenericArgument::Type(t) => type_param(t, params).map(str::to_string),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> Result<String, ()> {
        cuda_type(&syn::parse_str(s).unwrap(), "ongpu_real")
    }

    #[test]
    fn maps_scalars_and_lattice_types() {
        assert_eq!(ty("f32").unwrap(), "float");
        assert_eq!(ty("usize").unwrap(), "unsigned long long");
        assert_eq!(
            ty("ColorMatrix<f64>").unwrap(),
            "ongpu::ColorMatrix<double>"
        );
        assert_eq!(ty("ongpu::Complex<f32>").unwrap(), "ongpu::complex<float>");
        assert_eq!(ty("Complex").unwrap(), "ongpu::complex<ongpu_real>");
        assert_eq!(ty("ongpu::Philox").unwrap(), "ongpu::Philox");
        assert!(ty("Philox<f32>").is_err());
        assert!(ty("Vec<f32>").is_err());
        assert!(ty("Complex<i32>").is_err());
        assert!(ty("&f32").is_err());
    }

    #[test]
    fn maps_type_parameters() {
        let params = [("T".to_string(), "ongpu_t_T".to_string())];
        let ty = |s: &str| cuda_type_in(&syn::parse_str(s).unwrap(), "ongpu_real", &params);
        assert_eq!(ty("T").unwrap(), "ongpu_t_T");
        assert_eq!(ty("Complex<T>").unwrap(), "ongpu::complex<ongpu_t_T>");
        assert_eq!(
            ty("ColorMatrix<T>").unwrap(),
            "ongpu::ColorMatrix<ongpu_t_T>"
        );
        assert!(ty("U").is_err());
        assert!(ty("Complex<U>").is_err());
        assert!(cuda_type(&syn::parse_str("T").unwrap(), "ongpu_real").is_err());
    }
}
