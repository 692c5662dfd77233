//! The C++ of a device function: its translated body in a `__device__` function named so
//! that it cannot meet a CUDA or prelude name; for a generic one, a function template over
//! its type parameter, which C++ deduces at each call from one parameter.

use super::cuda_types::literal_real;
use super::signature::{ParamKind, Signature};
use crate::emit_cuda::{device_fn_name, Tail, Translation, Translator};
use crate::ir::Body;
use crate::names::cuda_ident;

/// The body translated to C++ statements, with the device functions it calls.
pub fn translate(sig: &Signature, body: &Body) -> Translation {
    let bound: Vec<(String, String)> = sig
        .params
        .iter()
        .map(|p| (p.ident.to_string(), cuda_ident(&p.ident.to_string())))
        .collect();
    let tail = if sig.ret_cuda == "void" {
        Tail::Discard
    } else {
        Tail::Return
    };
    let types = sig
        .params
        .iter()
        .map(|p| p.cuda.as_str())
        .chain([sig.ret_cuda.as_str()]);
    // In a generic function unsuffixed float literals are of its type parameter, as the
    // Rust copy makes them (see `expand`).
    let real = match &sig.type_param {
        Some(t) => t.cuda.clone(),
        None => literal_real(types).to_string(),
    };
    let slices: Vec<(String, String)> = sig
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Slice { .. }))
        .map(|p| (p.ident.to_string(), cuda_ident(&p.ident.to_string())))
        .collect();
    Translator::new(body, &bound, &real)
        .returning(&sig.ret_cuda)
        .in_device_fn(&slices)
        .translate(&body.block, tail)
}

/// The parameter the type parameter is deduced from: the first array's (its element type
/// is exactly the argument's), else the first local array's, else the first value's.
fn deducing_param(sig: &Signature, cuda_param: &str) -> Option<usize> {
    let mentions = |p: &&super::signature::Param| p.cuda.contains(cuda_param);
    let first = |kind: fn(&ParamKind) -> bool| {
        sig.params
            .iter()
            .position(|p| kind(&p.kind) && mentions(&p))
    };
    first(|k| matches!(k, ParamKind::Slice { .. }))
        .or_else(|| first(|k| matches!(k, ParamKind::ArrayRef)))
        .or_else(|| first(|k| matches!(k, ParamKind::Value)))
}

/// The `__device__` function of `name`.
pub fn source(name: &syn::Ident, sig: &Signature, code: &str) -> String {
    let cuda_name = device_fn_name(&syn::parse_quote!(#name));
    let (template, deducing) = match &sig.type_param {
        Some(t) => (
            format!("template <typename {}>\n", t.cuda),
            deducing_param(sig, &t.cuda).map(|k| (k, t.cuda.as_str())),
        ),
        None => (String::new(), None),
    };
    let cuda_params: Vec<String> = sig
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let ty = match deducing {
                // Every other mention converts to the deduced type instead of deducing too
                // (a literal argument would otherwise contradict the array's type).
                Some((d, t)) if d != k => p.cuda.replace(t, &format!("ongpu::nondeduced<{t}>")),
                _ => p.cuda.clone(),
            };
            format!("{ty} {}", cuda_ident(&p.ident.to_string()))
        })
        .collect();
    let body: String = code.lines().map(|l| format!("  {l}\n")).collect();
    format!(
        "{template}__device__ {} {cuda_name}({}) {{\n{body}}}\n",
        sig.ret_cuda,
        cuda_params.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpp(src: &str) -> String {
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        let sig = super::super::signature::parse(&f.sig).unwrap();
        let tp: Vec<(String, String)> = sig.type_param.iter().map(|t| t.pair()).collect();
        let body = crate::ir::lower_generic(&f.block, crate::ir::Context::Function, &tp).unwrap();
        let t = translate(&sig, &body);
        source(&f.sig.ident, &sig, &t.code)
    }

    #[test]
    fn a_generic_function_is_a_template_deduced_from_its_array() {
        let c = cpp("fn scaled<T: Real>(x: T, a: &[T], s: &mut [T]) -> T { \
                     let h: T = 0.5; s[0] = a[0] * x * h; x * 2.0 }");
        assert!(
            c.starts_with(
                "template <typename ongpu_t_T>\n__device__ ongpu_t_T ongpu_fn_scaled(\
                 ongpu::nondeduced<ongpu_t_T> x, ongpu::slice<const ongpu_t_T> a, \
                 ongpu::slice<ongpu::nondeduced<ongpu_t_T>> s) {"
            ),
            "{c}"
        );
        assert!(
            c.contains("ongpu_t_T h = ongpu::lit<ongpu_t_T, ongpu_t_T>(0.5f, 0.5);"),
            "{c}"
        );
        assert!(
            c.contains("return (x * ongpu::lit<decltype(x), ongpu_t_T>(2.0f, 2.0));"),
            "{c}"
        );
    }

    #[test]
    fn values_deduce_when_there_is_no_array() {
        let c = cpp("fn f<T: Real>(n: u32, z: Complex<T>, x: T) -> Complex<T> { z * x }");
        assert!(
            c.contains(
                "(unsigned int n, ongpu::complex<ongpu_t_T> z, ongpu::nondeduced<ongpu_t_T> x)"
            ),
            "{c}"
        );
    }
}
