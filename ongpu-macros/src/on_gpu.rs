//! `on_gpu!`: parse, check the body language, analyse captures, translate the body to CUDA
//! C++, and emit the Rust expansion (of an element-wise call or of a reduction).

use crate::captures;
use crate::emit_cuda::{Tail, Translator};
use crate::emit_rust::{expand, ElementwiseCall};
use crate::input::OnGpuInput;
use crate::ir::{lower, Context};
use crate::names::cuda_ident;
use proc_macro2::TokenStream;

/// The expansion of `on_gpu!(input)`.
pub fn on_gpu(input: TokenStream) -> syn::Result<TokenStream> {
    let call: OnGpuInput = syn::parse2(input)?;
    let body = lower(&call.body.block, Context::OnGpu)?;
    if call.reduction.is_some() {
        crate::ir::reduction::per_site_value(&body)?;
    }
    let params: Vec<_> = call.body.site_index.iter().cloned().collect();
    let caps = captures::analyse_call(&body, &params)?;
    if call.sites.is_none() {
        if let Some(span) = caps.iter().find_map(|c| c.shifted_at) {
            return Err(syn::Error::new(
                span,
                "a shift needs a lattice, and this call names no sites: write \
                 on_gpu!(lat, ...), on_gpu!(lat.even(), ...) or on_gpu!(lat.odd(), ...)",
            ));
        }
    }
    if let Some(dest) = call.reduction.as_ref().and_then(|k| k.into.as_ref()) {
        if let Some(c) = caps.iter().find(|c| c.ident == *dest) {
            return Err(syn::Error::new(
                c.ident.span(),
                format!(
                    "the body cannot use `{dest}`: it receives the reduction's result \
                     (`-> {dest}:`), which is written after every site has run; read the \
                     old value from another DeviceScalar"
                ),
            ));
        }
    }
    let bound: Vec<(String, String)> = caps
        .iter()
        .map(|c| &c.ident)
        .chain(&params)
        .map(|i| (i.to_string(), cuda_ident(&i.to_string())))
        .collect();
    let read_only = caps
        .iter()
        .filter(|c| !c.is_written())
        .map(|c| c.ident.to_string());
    let entry_stored = caps
        .iter()
        .filter(|c| c.entry_stores && c.is_written())
        .map(|c| c.ident.to_string());
    let translator = Translator::new(&body, &bound, "ongpu_real")
        .reading_sites(read_only)
        .storing_entries(entry_stored);
    let translation = match call.reduction {
        // The value is returned from a lambda of the kernel's value type.
        Some(_) => translator
            .returning("ongpu_value")
            .translate(&body.block, Tail::Return),
        None => translator.translate(&body.block, Tail::Discard),
    };
    let parts = ElementwiseCall {
        sites: call.sites.as_ref(),
        threads_per_block: call.threads_per_block.as_ref(),
        site_index: call.body.site_index.as_ref(),
        body: &body,
        captures: &caps,
        cuda_body: translation.code,
        device_calls: &translation.device_calls,
    };
    Ok(match &call.reduction {
        Some(keyword) => crate::emit_rust::reduce::expand(&parts, keyword),
        None => expand(&parts),
    })
}
