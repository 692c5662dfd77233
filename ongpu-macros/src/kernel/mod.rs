//! `#[ongpu::kernel]`: an explicit kernel. Parsing of the signature (`signature`), the
//! body's analysis (`analysis`: shared arrays, array uses, constants), the CUDA C++
//! translation (the shared translator with its kernel extension, `emit_cuda::kernel`), the
//! body as one thread's Rust (`emit_rust/kernel_body.rs`), the type and `launch` it becomes (`items`), and
//! the expansion (`expand`).

mod expand;
mod items;

use crate::captures::kernel as analysis;
use crate::emit_cuda::{Tail, Translator};
use crate::input::kernel_signature::{self as signature, ParamKind};
use crate::ir::{lower, Context};
use crate::names::cuda_ident;
use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::ItemFn;

/// The expansion of `#[ongpu::kernel] fn ...`; on an error, the errors and a stand-in (see
/// `stand_in`), so that its callers get no errors of their own.
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand(attr, item.clone()).unwrap_or_else(|e| {
        let errors = e.into_compile_error();
        let stand_in = stand_in(item);
        quote!(#errors #stand_in)
    })
}

/// What stands for a kernel with errors: with a valid signature, its type and `launch`
/// around a body that is never run (callers type-check against the signature as usual);
/// else nothing.
fn stand_in(item: TokenStream) -> TokenStream {
    let Ok(f) = syn::parse2::<ItemFn>(item) else {
        return TokenStream::new();
    };
    let Ok(params) = signature::params(&f) else {
        return TokenStream::new();
    };
    let names = params.iter().map(|p| &p.ident);
    items::items(
        &f,
        &params,
        quote!(#(let _ = &#names;)* ::core::unreachable!()),
    )
}

fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(
            attr.span(),
            "#[ongpu::kernel] takes no arguments (the grid and block are given at launch)",
        ));
    }
    let f: ItemFn = syn::parse2(item)?;
    let params = signature::params(&f)?;
    let body = lower(&f.block, Context::Kernel)?;
    let analysis = analysis::analyse(&body, &params)?;

    let const_names: Vec<String> = analysis
        .constants
        .iter()
        .map(|c| expand::const_cuda_name(&c.to_string()))
        .collect();
    let mut bound: Vec<(String, String)> = params
        .iter()
        .map(|p| (p.ident.to_string(), cuda_ident(&p.ident.to_string())))
        .collect();
    bound.extend(
        analysis
            .constants
            .iter()
            .zip(&const_names)
            .map(|(c, n)| (c.to_string(), n.clone())),
    );
    let array_params: Vec<(String, String, usize)> = params
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p.kind, ParamKind::Array { .. }))
        .map(|(i, p)| (p.ident.to_string(), cuda_ident(&p.ident.to_string()), i))
        .collect();
    let shared_ranks: Vec<usize> = analysis.shared.iter().map(|s| s.dims.len()).collect();
    let translation = Translator::new(&body, &bound, "ongpu_real")
        .in_kernel(&array_params, params.len(), &shared_ranks)
        .translate(&body.block, Tail::Discard);
    // Threads run in phases on the CPU if the body has barriers, or calls device functions
    // (which may have barriers of their own: only their compiled item knows).
    let phased = body.has_barriers() || body.calls_device_fns();
    let form = if phased {
        crate::emit_rust::kernel_body::Form::Phased
    } else {
        crate::emit_rust::kernel_body::Form::Plain
    };
    let rust = crate::emit_rust::kernel_body::emit(
        &body,
        &analysis,
        &crate::emit_rust::kernel_body::Hidden::new(),
        form,
    );
    Ok(expand::expand(expand::Kernel {
        item: &f,
        params: &params,
        analysis: &analysis,
        body: &body,
        cuda_body: translation.code,
        device_calls: &translation.device_calls,
        rust,
        phased,
        const_names,
    }))
}
