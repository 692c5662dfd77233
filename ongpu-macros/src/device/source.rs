//! The C++ of a device function: its translated body in a `__device__` function named so
//! that it cannot meet a CUDA or prelude name.

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
    let slices: Vec<(String, String)> = sig
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Slice { .. }))
        .map(|p| (p.ident.to_string(), cuda_ident(&p.ident.to_string())))
        .collect();
    Translator::new(body, &bound, literal_real(types))
        .returning(&sig.ret_cuda)
        .in_device_fn(&slices)
        .translate(&body.block, tail)
}

/// The `__device__` function of `name`.
pub fn source(name: &syn::Ident, sig: &Signature, code: &str) -> String {
    let cuda_name = device_fn_name(&syn::parse_quote!(#name));
    let cuda_params: Vec<String> = sig
        .params
        .iter()
        .map(|p| format!("{} {}", p.cuda, cuda_ident(&p.ident.to_string())))
        .collect();
    let body: String = code.lines().map(|l| format!("  {l}\n")).collect();
    format!(
        "__device__ {} {cuda_name}({}) {{\n{body}}}\n",
        sig.ret_cuda,
        cuda_params.join(", ")
    )
}
