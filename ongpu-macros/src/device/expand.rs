//! The Rust items of a device function: the function itself under a hidden name, and a
//! unit value of the function's name that dereferences to it and carries its C++.

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

/// The items of `f`, whose body is `block` (Rust tokens, braces included).
pub fn items(f: &ItemFn, sig: &Signature, block: TokenStream, cuda: Cuda<'_>) -> TokenStream {
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
        let (m, ident, ty) = (&p.mutability, &p.ident, &p.rust);
        quote!(#m #ident: #ty)
    });
    let param_types = sig.params.iter().map(|p| &p.rust);
    let ret = &sig.ret;
    let calls = cuda.calls.iter().map(|p| {
        let span = p
            .segments
            .last()
            .map_or(Span::call_site(), |s| s.ident.span());
        quote_spanned!(span=> ::ongpu::__private::device_fn(&#p))
    });
    let source = cuda.source;
    let fn_ptr = quote!(fn(#(#param_types),*) -> #ret);
    quote! {
        #(#other_attrs)*
        #[doc(hidden)]
        #[inline(always)]
        // `for i in 0..N` over a local array is the body language's only loop over it; a
        // device function's name is a unit value, whose call clippy takes for a constructor
        // without effects.
        #[allow(non_snake_case, clippy::needless_range_loop, clippy::unnecessary_operation, clippy::no_effect)]
        #vis fn #impl_name(#(#inputs),*) -> #ret #block

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
    }
}
