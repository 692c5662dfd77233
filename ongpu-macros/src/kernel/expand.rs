//! The expansion of `#[ongpu::kernel] fn name(...)`: the items of `items`, whose `launch`
//! holds the kernel's facts in a `static` and hands the body, as one thread's Rust closure,
//! to the runtime.

use crate::captures::kernel::Analysis;
use crate::emit_rust::kernel_body::{Hidden, RustBody};
use crate::input::kernel_signature::{Param, ParamKind};
use crate::names::cuda_ident;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, Path};

/// Everything the expansion needs.
pub struct Kernel<'a> {
    /// The user's function.
    pub item: &'a ItemFn,
    /// Its parameters.
    pub params: &'a [Param],
    /// The body's analysis.
    pub analysis: &'a Analysis,
    /// The checked body.
    pub body: &'a crate::ir::Body,
    /// The body's CUDA C++ translation.
    pub cuda_body: String,
    /// Device functions the body calls.
    pub device_calls: &'a [Path],
    /// The body as one thread's Rust.
    pub rust: RustBody,
    /// True if `rust` is the phased form (an `async` body).
    pub phased: bool,
    /// C++ names of the constants, in the order of `analysis.constants`.
    pub const_names: Vec<String>,
}

/// The C++ name of a constant (prefixed, so that it cannot meet a CUDA or prelude name).
pub fn const_cuda_name(name: &str) -> String {
    format!("ongpu_c_{}", name.trim_start_matches("r#"))
}

fn static_info(k: &Kernel<'_>, prints: &TokenStream) -> TokenStream {
    let name = &k.item.sig.ident;
    let name_str = name.to_string().trim_start_matches("r#").to_string();
    let names = k.params.iter().map(|p| p.ident.to_string());
    let cuda_names = k.params.iter().map(|p| cuda_ident(&p.ident.to_string()));
    let body = &k.cuda_body;
    let device_fns = k.device_calls.iter().map(|p| {
        let span = p
            .segments
            .last()
            .map_or(Span::call_site(), |s| s.ident.span());
        quote_spanned!(span=> ::ongpu::__private::device_fn(&#p))
    });
    let consts = k
        .analysis
        .constants
        .iter()
        .zip(&k.const_names)
        .map(|(c, cname)| {
            quote_spanned!(c.span()=> ::ongpu::__private::ConstRef { cuda_name: #cname, value: &#c })
        });
    let shared = k.analysis.shared.iter().enumerate().map(|(index, s)| {
        let n = s.ident.to_string();
        let elem = &s.element;
        let vector_rows = k.analysis.vector_rows.contains(&index);
        let dims = s.dims.iter().enumerate().map(|(d, len)| {
            if vector_rows && d == 1 {
                quote_spanned!(len.span()=> ::ongpu::__private::vector_row_dim(#len))
            } else {
                quote_spanned!(len.span()=> ::ongpu::__private::shared_dim(#len))
            }
        });
        quote! {
            ::ongpu::__private::SharedDecl {
                name: #n,
                dims: &[#(#dims),*],
                element: <#elem as ::ongpu::__private::Element>::cuda_type,
                element_bytes: ::core::mem::size_of::<#elem>(),
            }
        }
    });
    let lines = k
        .rust
        .barriers
        .iter()
        .map(|span| quote_spanned!(*span=> ::core::line!()));
    let location = quote_spanned!(name.span()=> ::ongpu::__private::Location {
        file: ::core::file!(),
        line: ::core::line!(),
        column: ::core::column!(),
    });
    quote! {
        ::ongpu::__private::KernelInfo {
            name: #name_str,
            location: #location,
            params: &[#(#names),*],
            cuda_params: &[#(#cuda_names),*],
            body: #body,
            device_fns: &[#(#device_fns),*],
            consts: &[#(#consts),*],
            shared: &[#(#shared),*],
            barrier_lines: &[#(#lines),*],
            prints: #prints,
        }
    }
}

/// The expansion.
pub fn expand(k: Kernel<'_>) -> TokenStream {
    let hidden = Hidden::new();
    let (ctx, shared_var) = (&hidden.ctx, &hidden.shared);
    let site = syn::Ident::new("__ONGPU_KERNEL", Span::mixed_site());
    let shape = super::items::shape_ident();
    let print = crate::print::PrintParts::of(k.body);
    let info = static_info(&k, &print.format_fn);

    let mut wrapped = Vec::new();
    let mut pats = Vec::new();
    let mut view_types = Vec::new();
    for p in k.params {
        let id = &p.ident;
        match &p.kind {
            ParamKind::Array { element, writable } => {
                if *writable {
                    wrapped.push(quote!(::ongpu::__private::slice_write(#id)));
                    view_types.push(quote!(::ongpu::__private::ArrayView<#element, 1>));
                } else {
                    wrapped.push(quote!(::ongpu::__private::slice_read(#id)));
                    view_types.push(quote!(::ongpu::__private::ReadView<#element>));
                }
                pats.push(quote!(#id));
            }
            ParamKind::Value(ty) => {
                wrapped.push(quote!(::ongpu::__private::value(#id)));
                view_types.push(quote!(#ty));
                pats.push(if p.mutable {
                    quote!(mut #id)
                } else {
                    quote!(#id)
                });
            }
        }
    }
    let specs = k.analysis.shared.iter().enumerate().map(|(i, s)| {
        let elem = &s.element;
        let rank = s.dims.len();
        quote!(::ongpu::__private::SharedSpec::<#elem, #rank>::new(#i))
    });
    let shared_types = k.analysis.shared.iter().map(|s| {
        let elem = &s.element;
        let rank = s.dims.len();
        quote!(::ongpu::__private::ArrayView<#elem, #rank>)
    });
    let stmts = &k.rust.stmts;
    let closure_params = quote! {
        #ctx: ::ongpu::__private::ThreadCtx,
        (#(#pats,)*): (#(#view_types,)*),
        #shared_var: (#(#shared_types,)*)
    };
    let run = if !k.phased {
        quote! {
            ::ongpu::__private::launch_straight(
                &#site, #shape, (#(#wrapped,)*), (#(#specs,)*),
                move |#closure_params| { #stmts },
            )
        }
    } else {
        quote! {
            ::ongpu::__private::launch_phased(
                &#site, #shape, (#(#wrapped,)*), (#(#specs,)*),
                move |#closure_params| async move { #stmts },
            )
        }
    };
    let setup = &print.setup;
    let run = print.around(run);
    let body = quote! {
        #setup
        static #site: ::ongpu::__private::KernelSite =
            ::ongpu::__private::KernelSite::new(#info);
        #run
    };
    super::items::items(k.item, k.params, body)
}
