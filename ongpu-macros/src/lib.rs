//! Procedural macros of [ongpu](https://docs.rs/ongpu): `on_gpu!`, `#[kernel]` and
//! `#[device]`.
//!
//! This crate holds syntax only. A body is parsed (`input`) and lowered once into a checked
//! tree (`ir`: the checker is its constructor, and reports every unsupported construct at
//! its span); the later passes read that tree, never `syn::Expr`: capture analysis
//! (`captures`), the CUDA C++ emitter (`emit_cuda`) and the Rust emitter (`emit_rust`,
//! which gives back the user's tokens). What the body language supports is listed in
//! `supported`, its types' C++ names in `types`. `device` and `kernel` handle the two
//! attributes. Everything that runs lives in `ongpu-runtime`, reached through
//! `::ongpu::__private`. Use the macros through `ongpu`.

use proc_macro::TokenStream;

mod captures;
mod device;
mod emit_cuda;
mod emit_rust;
mod fn_item;
mod input;

mod ir;
mod kernel;
mod names;
mod on_gpu;
mod print;
mod supported;
mod types;

/// Runs a block of statements for every site, as a CUDA kernel or on CPU threads.
///
/// See the `ongpu` crate for the full description; forms: `on_gpu!(n, threads_per_block,
/// BODY)`, `on_gpu!(n, BODY)`, `on_gpu!(BODY)`, with `BODY` = `{ statements }` or
/// `|i| { statements }`. Evaluates to `ongpu::Result<()>`. Reductions: `on_gpu!(sum: ...)`
/// (or `min:`, `max:`) with the same arguments, whose body ends with each site's value;
/// they evaluate to `ongpu::Result<reduced value>`.
#[proc_macro]
pub fn on_gpu(input: TokenStream) -> TokenStream {
    let input: proc_macro2::TokenStream = input.into();
    let reduction = input::reduce::starts_with_keyword(&input);
    on_gpu::on_gpu(input)
        .unwrap_or_else(|e| {
            if reduction {
                emit_rust::reduce::errors_as_expression(e)
            } else {
                errors_as_expression(e)
            }
        })
        .into()
}

/// Compile errors in expression position: one block holding every `compile_error!`, whose
/// value has the call's type, so that rustc reports nothing else about the call.
fn errors_as_expression(e: syn::Error) -> proc_macro2::TokenStream {
    let errors = e.into_compile_error();
    quote::quote!({ #errors; ::core::result::Result::<(), ::ongpu::Error>::Ok(()) })
}

/// Marks a function as callable from `on_gpu!` bodies (and kernels): it is translated to
/// CUDA C++ too.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    device::device(attr.into(), item.into()).into()
}

/// Makes a function an explicit CUDA kernel, run by every thread of a grid of blocks (and
/// on CPU threads, with barrier semantics, when there is no GPU). Generates
/// `name::launch(LaunchShape { grid, block }, args...) -> ongpu::Result<()>`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::kernel(attr.into(), item.into()).into()
}
