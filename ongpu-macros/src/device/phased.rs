//! A device function's phased form, `__ongpu_phased`: what kernels call on the CPU backend,
//! where their threads run in phases between barriers. It is an `async fn` of the thread's
//! context and the parameters, whose body waits (`.await`) at the function's barriers and
//! calls its callees' phased forms; a function that neither waits nor calls gives its plain
//! form's result at once.

use super::signature::Signature;
use crate::emit_rust::kernel_body::Hidden;
use proc_macro2::TokenStream;
use quote::quote;

/// `__ongpu_phased`: the function for a kernel's phased threads, an `async fn` of the
/// thread's context and the parameters; `statements` is its body (`None`: the plain
/// form's result, at once).
pub fn form(
    sig: &Signature,
    vis: &syn::Visibility,
    impl_name: &syn::Ident,
    statements: Option<&TokenStream>,
) -> TokenStream {
    let ctx = Hidden::new().ctx;
    let (generics, ret) = (&sig.generics, &sig.ret);
    let where_clause = sig.where_clause();
    let type_args = sig.type_param.as_ref().map(|t| {
        let id = &t.ident;
        quote!(::<#id>)
    });
    let (inputs, body): (Vec<TokenStream>, TokenStream) = match statements {
        Some(stmts) => (
            sig.params
                .iter()
                .map(|p| {
                    let (m, ident, ty) = (&p.mutability, &p.ident, &p.rust);
                    quote!(#m #ident: #ty)
                })
                .collect(),
            quote!(#stmts),
        ),
        None => {
            let names = sig.params.iter().map(|p| &p.ident);
            (
                sig.params
                    .iter()
                    .map(|p| {
                        let (ident, ty) = (&p.ident, &p.rust);
                        quote!(#ident: #ty)
                    })
                    .collect(),
                quote!(let _ = #ctx; #impl_name #type_args(#(#names),*)),
            )
        }
    };
    quote! {
        /// The function for a kernel's threads, which run in phases between barriers.
        #[doc(hidden)]
        #[allow(dead_code, clippy::multiple_bound_locations, clippy::too_many_arguments)]
        #[allow(non_snake_case, clippy::needless_range_loop, clippy::unnecessary_operation, clippy::no_effect)]
        #vis async fn __ongpu_phased #generics (
            &self,
            #ctx: ::ongpu::__private::ThreadCtx,
            #(#inputs),*
        ) -> #ret #where_clause {
            #body
        }
    }
}
