//! `#[ongpu::device]`: a function callable from GPU bodies. The function stays Rust (for the
//! CPU backend and rustc's checks) and gains a CUDA C++ translation. Its name becomes a unit
//! value that dereferences to the function, so that calls look the same while a body's call
//! can be checked to be of a marked function (an unmarked one is a compile error that says
//! to mark it). The pieces: `signature` (the forms accepted), `generics` (the type
//! parameter of a generic function), `cuda_types` (their C++ types), `source` (the C++
//! function), `expand` (the Rust items).

mod cuda_types;
mod expand;
mod generics;
mod phased;
mod signature;
mod source;

use crate::emit_rust::kernel_body::{self, Form, Hidden};
use crate::ir::{lower_generic, Context};
use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::ItemFn;

/// The expansion of `#[ongpu::device] fn ...`; on an error, the errors and the function
/// still (see `fallback`), so that its callers get no errors of their own.
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand(attr, item.clone()).unwrap_or_else(|e| {
        let errors = e.into_compile_error();
        let item = fallback(item);
        quote!(#errors #item)
    })
}

fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(
            attr.span(),
            "#[ongpu::device] takes no arguments",
        ));
    }
    let f: ItemFn = syn::parse2(item)?;
    let sig = signature::parse(&f.sig)?;
    let type_params: Vec<(String, String)> = sig.type_param.iter().map(|t| t.pair()).collect();
    let body = lower_generic(&f.block, Context::Function, &type_params)?;
    literal_array_lens(&body)?;
    free_names(&sig, &body)?;
    // Arrays are used as in a kernel: the kernel's checks, and its rewrite of their
    // accesses into calls on the CPU backend's views.
    let analysis = crate::captures::kernel::analyse(&body, &sig.as_kernel_params())?;
    let translation = source::translate(&sig, &body);
    let cuda = expand::Cuda {
        source: source::source(&f.sig.ident, &sig, &translation.code),
        calls: &translation.device_calls,
    };
    let real_param = sig.type_param.as_ref().map(|t| &t.ident);
    let hidden = Hidden::new();
    let emit =
        |form| kernel_body::emit_device_fn(&body, &analysis, &hidden, real_param, form).stmts;
    let own_barriers = body.has_barriers();
    // A function with barriers is called by kernels only, in its phased form: its plain
    // form (for host code) says so. One that calls device functions has both forms (its
    // callees may have barriers); one that does neither is its plain form at once.
    let plain = if own_barriers {
        let params = sig.params.iter().map(|p| &p.ident);
        quote!({
            #(let _ = &#params;)*
            ::ongpu::__private::barrier_outside_kernel()
        })
    } else {
        let stmts = emit(Form::Plain);
        quote!({ #stmts })
    };
    let phased = (own_barriers || body.calls_device_fns()).then(|| emit(Form::Phased));
    let rust = expand::Rust {
        plain,
        phased,
        own_barriers,
        plain_is_stub: own_barriers,
    };
    Ok(expand::items(&f, &sig, rust, cuda))
}

/// The sizes of a device function's local arrays are numbers: its C++ is built with the
/// macro, before any constant's value is known.
fn literal_array_lens(body: &crate::ir::Body) -> syn::Result<()> {
    let mut errors: Option<syn::Error> = None;
    for name in body.array_len_names() {
        let e = syn::Error::new(
            name.span(),
            format!(
                "the size of a local array in a device function is a number (`[0.0f32; 8]`), \
                 not `{name}`: the function's GPU copy is built before constants have values \
                 (kernels can size local arrays with `const` items)"
            ),
        );
        match &mut errors {
            Some(all) => all.combine(e),
            None => errors = Some(e),
        }
    }
    errors.map_or(Ok(()), Err)
}

/// Every name of a device function is a parameter or a local: the C++ function sees
/// nothing else (a `const` or `static` of the module is not there).
fn free_names(sig: &signature::Signature, body: &crate::ir::Body) -> syn::Result<()> {
    let params: Vec<syn::Ident> = sig.params.iter().map(|p| p.ident.clone()).collect();
    let mut errors: Option<syn::Error> = None;
    for c in crate::captures::analyse(body, &params) {
        let e = syn::Error::new(
            c.ident.span(),
            format!(
                "`{}` is not a parameter or local of this device function, and the GPU's copy of \
                 the function cannot see anything else (constants and statics included): pass \
                 it as a parameter; an on_gpu! body that calls the function can capture it",
                c.ident
            ),
        );
        match &mut errors {
            Some(all) => all.combine(e),
            None => errors = Some(e),
        }
    }
    errors.map_or(Ok(()), Err)
}

/// What stands for a function with errors: with a valid signature, the usual items around
/// a body that is never run (callers type-check against the signature as usual); else the
/// function as written around such a body (whose errors would only repeat the signature's).
fn fallback(item: TokenStream) -> TokenStream {
    let Ok(mut f) = syn::parse2::<ItemFn>(item.clone()) else {
        return item;
    };
    let Ok(sig) = signature::parse(&f.sig) else {
        f.block = syn::parse_quote!({ ::core::unreachable!() });
        return quote!(#[allow(dead_code, unused_variables)] #f);
    };
    let params = sig.params.iter().map(|p| &p.ident);
    let block = quote!({
        #(let _ = &#params;)*
        ::core::unreachable!()
    });
    let cuda = expand::Cuda {
        source: String::new(),
        calls: &[],
    };
    let rust = expand::Rust {
        plain: block,
        phased: None,
        own_barriers: false,
        plain_is_stub: true,
    };
    expand::items(&f, &sig, rust, cuda)
}
