//! The Rust items of a device function: the function itself under a hidden name, and a
//! unit value of the function's name that carries its C++ and gives bodies the function
//! (`__ongpu_fn`: as a `fn` pointer, of the instantiation the arguments select when it is
//! generic). A plain function's unit value also dereferences to it, so that host code calls
//! it as written; a generic one's instantiations are `name.instance::<f64>()`. Kernels call
//! its phased form (`__ongpu_phased`, an `async fn` taking the thread's context), which
//! waits at the function's barriers.

use super::signature::Signature;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::{ItemFn, Path};

/// The C++ side of a device function.
pub struct Cuda<'a> {
    /// The `__device__` function.
    pub source: String,
    /// The device functions it calls.
    pub calls: &'a [Path],
}

/// The Rust side of a device function.
pub struct Rust {
    /// The plain form's block, braces included.
    pub plain: TokenStream,
    /// The phased form's statements (whose thread context is `Hidden::ctx`), or `None`
    /// when it is the plain form's result (a function that neither waits nor calls).
    pub phased: Option<TokenStream>,
    /// True if the body calls `sync_threads()` itself.
    pub own_barriers: bool,
    /// True if `plain` only stands for the function (it does not assign its parameters).
    pub plain_is_stub: bool,
}

/// The items of `f`.
pub fn items(f: &ItemFn, sig: &Signature, rust: Rust, cuda: Cuda<'_>) -> TokenStream {
    let block = &rust.plain;
    let name = &f.sig.ident;
    let cuda_name = crate::emit_cuda::device_fn_name(&syn::parse_quote!(#name));
    let vis = &f.vis;
    let (docs, other_attrs) = crate::fn_item::split_docs(&f.attrs);
    let impl_name = syn::Ident::new(
        &format!(
            "__ongpu_device_{}",
            name.to_string().trim_start_matches("r#")
        ),
        name.span(),
    );
    let inputs = sig.params.iter().map(|p| {
        let m = p.mutability.filter(|_| !rust.plain_is_stub);
        let (ident, ty) = (&p.ident, &p.rust);
        quote!(#m #ident: #ty)
    });
    let param_types: Vec<&syn::Type> = sig.params.iter().map(|p| &p.rust).collect();
    let ret = &sig.ret;
    // Each callee once (a function called twice is one definition, and one error if it is
    // not marked).
    let mut seen = std::collections::HashSet::new();
    let calls: Vec<TokenStream> = cuda
        .calls
        .iter()
        .filter(|p| seen.insert(quote!(#p).to_string()))
        .map(|p| {
            let span = p
                .segments
                .last()
                .map_or(Span::call_site(), |s| s.ident.span());
            quote_spanned!(span=> ::ongpu::__private::device_fn(&#p))
        })
        .collect();
    let own_barriers = rust.own_barriers;
    let phased = super::phased::form(sig, vis, &impl_name, rust.phased.as_ref());
    let source = cuda.source;
    let fn_ptr = quote!(fn(#(#param_types),*) -> #ret);
    let generics = &sig.generics;
    let where_clause = sig.where_clause();
    let type_args = sig.type_param.as_ref().map(|t| {
        let id = &t.ident;
        quote!(::<#id>)
    });
    // Host calls: `f(x)` for a plain function, `f.instance::<f64>()(x)` for a generic one.
    let host = match &sig.type_param {
        None => quote! {
            impl ::core::ops::Deref for #name {
                type Target = #fn_ptr;
                #[inline(always)]
                fn deref(&self) -> &Self::Target {
                    &(#impl_name as #fn_ptr)
                }
            }
        },
        Some(t) => {
            let id = &t.ident;
            let doc = format!(
                "The instantiation of `{name}` for `{id}` (`f32` or `f64`), as a plain function \
                 (host code calls a generic device function through it)."
            );
            quote! {
                impl #name {
                    #[doc = #doc]
                    #[inline(always)]
                    #[allow(dead_code, clippy::multiple_bound_locations)]
                    #vis fn instance #generics (&self) -> #fn_ptr #where_clause {
                        #impl_name #type_args
                    }
                }
            }
        }
    };
    quote! {
        #(#other_attrs)*
        #[doc(hidden)]
        #[inline(always)]
        // `for i in 0..N` over a local array is the body language's only loop over it; a
        // device function's name is a unit value, whose call clippy takes for a constructor
        // without effects; a generic function's where clause bounds its parameter again.
        #[allow(non_snake_case, clippy::needless_range_loop, clippy::unnecessary_operation, clippy::no_effect)]
        #[allow(clippy::multiple_bound_locations)]
        #vis fn #impl_name #generics (#(#inputs),*) -> #ret #where_clause #block

        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug)]
        #vis struct #name;

        impl #name {
            /// The function, for the calls of GPU bodies.
            #[doc(hidden)]
            #[inline(always)]
            #[allow(dead_code, clippy::multiple_bound_locations)]
            #vis fn __ongpu_fn #generics (&self) -> #fn_ptr #where_clause {
                #impl_name #type_args
            }
        }

        impl #name {
            #phased
        }

        #host

        // Not listed among "types that implement the trait" when a body calls an unmarked
        // function: the list would name every device function of every crate in the build.
        #[diagnostic::do_not_recommend]
        impl ::ongpu::__private::DeviceFunction for #name {
            const INFO: &'static ::ongpu::__private::DeviceFnInfo = {
                const CALLS: &[&::ongpu::__private::DeviceFnInfo] = &[#(#calls),*];
                &::ongpu::__private::DeviceFnInfo {
                    name: #cuda_name,
                    source: #source,
                    calls: CALLS,
                    barriers: #own_barriers || ::ongpu::__private::any_barriers(CALLS),
                }
            };
        }
    }
}
