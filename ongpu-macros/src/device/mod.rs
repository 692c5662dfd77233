//! `#[ongpu::device]`: a function callable from GPU bodies. The function stays Rust (for the
//! CPU backend and rustc's checks) and gains a CUDA C++ translation. Its name becomes a unit
//! value that dereferences to the function, so that calls look the same while a body's call
//! can be checked to be of a marked function (an unmarked one is a compile error that says
//! to mark it).

use crate::emit_cuda::{device_fn_name, Tail, Translator};
use crate::emit_rust::body::{EmitRust, Plain};
use crate::ir::{lower, Context};
use crate::names::cuda_ident;
use crate::types as ty;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, ReturnType, Type};

fn error(span: Span, msg: &str) -> syn::Error {
    syn::Error::new(span, msg)
}

/// The precision of unsuffixed float literals in a device function: the one its signature
/// uses (double if it mentions f64, else float if it mentions f32, else the kernel's).
fn literal_real(sig_types: &[String]) -> &'static str {
    if sig_types.iter().any(|t| t.contains("double")) {
        "double"
    } else if sig_types.iter().any(|t| t.contains("float")) {
        "float"
    } else {
        "ongpu_real"
    }
}

/// The expansion of `#[ongpu::device] fn ...`.
pub fn device(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(error(attr.span(), "#[ongpu::device] takes no arguments"));
    }
    let f: ItemFn = syn::parse2(item)?;
    let sig = &f.sig;
    crate::fn_item::check_plain_signature(sig, "#[ongpu::device]")?;
    let mut params = Vec::new();
    for arg in &sig.inputs {
        match arg {
            FnArg::Receiver(r) => {
                return Err(error(r.span(), "#[ongpu::device] functions take no `self`"))
            }
            FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    let cty = ty::cuda_type(&t.ty, "ongpu_real").map_err(|()| {
                        error(
                            t.ty.span(),
                            "unsupported parameter type; device functions take f32 f64 i32 u32 i64 u64 usize \
                             bool, Complex<f32|f64>, ColorVector<f32|f64> or ColorMatrix<f32|f64> by value",
                        )
                    })?;
                    params.push((p.ident.clone(), (*t.ty).clone(), cty));
                }
                other => {
                    return Err(error(
                        other.span(),
                        "parameters must be plain names: `x: f32`",
                    ))
                }
            },
        }
    }
    let (ret_rust, ret_cuda): (Type, String) = match &sig.output {
        ReturnType::Default => (syn::parse_quote!(()), "void".to_string()),
        ReturnType::Type(_, t) => {
            let c = ty::cuda_type(t, "ongpu_real")
                .map_err(|()| error(t.span(), "unsupported return type"))?;
            ((**t).clone(), c)
        }
    };
    let ir_body = lower(&f.block, Context::Function)?;

    let mut sig_types: Vec<String> = params.iter().map(|(_, _, c)| c.clone()).collect();
    sig_types.push(ret_cuda.clone());
    let bound: Vec<(String, String)> = params
        .iter()
        .map(|(i, _, _)| (i.to_string(), cuda_ident(&i.to_string())))
        .collect();
    let tail = if ret_cuda == "void" {
        Tail::Discard
    } else {
        Tail::Return
    };
    let translation = Translator::new(&ir_body, &bound, literal_real(&sig_types))
        .returning(&ret_cuda)
        .translate(&ir_body.block, tail);
    let name = &sig.ident;
    let cuda_name = device_fn_name(&syn::parse_quote!(#name));
    let cuda_params: Vec<String> = params
        .iter()
        .map(|(i, _, c)| format!("{c} {}", cuda_ident(&i.to_string())))
        .collect();
    let body: String = translation
        .code
        .lines()
        .map(|l| format!("  {l}\n"))
        .collect();
    let source = format!(
        "__device__ {ret_cuda} {cuda_name}({}) {{\n{body}}}\n",
        cuda_params.join(", ")
    );

    let vis = &f.vis;
    let (docs, other_attrs) = crate::fn_item::split_docs(&f.attrs);
    let impl_name = syn::Ident::new(
        &format!(
            "__ongpu_device_{}",
            name.to_string().trim_start_matches("r#")
        ),
        name.span(),
    );
    let inputs = &sig.inputs;
    let param_types: Vec<&Type> = params.iter().map(|(_, t, _)| t).collect();
    let block = Plain.block(&ir_body.block);
    let calls = translation.device_calls.iter().map(|p| {
        let span = p
            .segments
            .last()
            .map_or(Span::call_site(), |s| s.ident.span());
        quote_spanned!(span=> ::ongpu::__private::device_fn(&#p))
    });
    let fn_ptr = quote!(fn(#(#param_types),*) -> #ret_rust);
    Ok(quote! {
        #(#other_attrs)*
        #[doc(hidden)]
        #[inline(always)]
        #[allow(non_snake_case)]
        #vis fn #impl_name(#inputs) -> #ret_rust #block

        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug)]
        #vis struct #name;

        impl ::core::ops::Deref for #name {
            type Target = #fn_ptr;
            #[inline(always)]
            fn deref(&self) -> &Self::Target {
                &(#impl_name as #fn_ptr)
            }
        }

        impl ::ongpu::__private::DeviceFunction for #name {
            const INFO: &'static ::ongpu::__private::DeviceFnInfo = &::ongpu::__private::DeviceFnInfo {
                name: #cuda_name,
                source: #source,
                calls: &[#(#calls),*],
            };
        }
    })
}
