//! The items a kernel becomes: a type `name` (braced, so that the name stays free in the
//! value namespace) whose associated `launch` takes the launch shape and the arguments
//! (`&Field<T, AoS>` for `&[T]`, `&mut Field<T, AoS>` for `&mut [T]`, values as declared).
//! The expansion and the stand-in for a kernel with errors share them, so that callers see
//! the same signature either way.

use crate::input::kernel_signature::{Param, ParamKind};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn};

/// The name `launch` gives the launch shape (hygienic: the body cannot see it).
pub fn shape_ident() -> Ident {
    Ident::new("__ongpu_shape", Span::mixed_site())
}

/// `launch`'s parameter for `p`.
fn launch_param(p: &Param) -> TokenStream {
    let id = &p.ident;
    match &p.kind {
        ParamKind::Array { element, writable } => {
            let span = element.span();
            if *writable {
                quote_spanned!(span=>
                    #id: &mut ::ongpu::__private::Field<#element, ::ongpu::__private::AoS>)
            } else {
                quote_spanned!(span=>
                    #id: &::ongpu::__private::Field<#element, ::ongpu::__private::AoS>)
            }
        }
        ParamKind::Value(ty) => quote!(#id: #ty),
    }
}

/// The type of the kernel `f` and its `launch`, whose statements are `body`.
pub fn items(f: &ItemFn, params: &[Param], body: TokenStream) -> TokenStream {
    let name = &f.sig.ident;
    let vis = &f.vis;
    let (docs, others) = crate::fn_item::split_docs(&f.attrs);
    let shape = shape_ident();
    let launch_params = params.iter().map(launch_param);
    let launch_doc = format!(
        " Launches the kernel `{name}` on a grid of blocks (see `LaunchShape`): every thread \
         runs its body. Arrays are passed as `Field<T, AoS>` (copied between host and device \
         only when the other side is newer)."
    );
    quote! {
        #(#docs)*
        #(#others)*
        #[allow(non_camel_case_types)]
        #vis struct #name {}

        #(#others)*
        impl #name {
            #[doc = #launch_doc]
            // `for i in 0..N` over a local array is the body language's only loop over it;
            // a device function's name is a unit value, whose call clippy takes for a
            // constructor without effects.
            #[allow(
                clippy::too_many_arguments,
                clippy::unnecessary_operation,
                clippy::no_effect,
                clippy::needless_return,
                clippy::needless_range_loop,
                unused_mut
            )]
            #vis fn launch(
                #shape: ::ongpu::__private::LaunchShape,
                #(#launch_params),*
            ) -> ::ongpu::__private::Result<()> {
                #body
            }
        }
    }
}
