//! The Rust expansion of a reduction `on_gpu!(sum: ...)`: as an element-wise call's (a
//! `static` call site, the captures, the body as a per-site closure), but the closure also
//! returns the site's value (the body's tail, checked to be of a type the reduction takes),
//! and the call evaluates to `Result<reduced value>`.

use super::body::{EmitRust, Plain};
use super::{CallParts, ElementwiseCall};
use crate::input::reduce::Keyword;
use crate::ir::Stmt;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

/// The expansion of a reduction call whose body has a tail value (checked by
/// `ir::reduction::per_site_value`).
pub fn expand(call: &ElementwiseCall<'_>, keyword: &Keyword) -> TokenStream {
    let CallParts {
        info,
        args,
        pats,
        ret,
        count,
        tpb,
        site_static,
        site_var,
        bind_index,
        lattice,
        print,
    } = CallParts::of(call);
    let value_var = syn::Ident::new("__ongpu_value", Span::mixed_site());
    let (tail, init) = call
        .body
        .block
        .stmts
        .split_last()
        .expect("a reduction body has a value");
    let mut stmts: TokenStream = init.iter().map(|s| Plain.stmt(s)).collect();
    // The tail, wrapped so that a value of the wrong type is reported there.
    let check = keyword.value_check();
    if let Stmt::Expr(tail, None) = tail {
        // The call starts at the tail's first token and ends at its last, so that rustc
        // sees the check and its argument at one place and reports a mistake there once.
        let tokens = Plain.expr(tail);
        let first = tokens.clone().into_iter().next().map(|t| t.span());
        let last = tokens.clone().into_iter().last().map(|t| t.span());
        let (first, last) = (
            first.unwrap_or_else(Span::call_site),
            last.unwrap_or_else(Span::call_site),
        );
        let mut args = proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, tokens);
        args.set_span(last);
        let path = quote_spanned!(first=> ::ongpu::__private::#check);
        stmts.extend(quote!(#path #args));
    }
    let marker = keyword.marker();
    // `sum -> s:` writes into `s` (a DeviceScalar, or a `&mut` to one) and returns `()`.
    let (run, dest) = match &keyword.into {
        Some(s) => (
            quote_spanned!(s.span()=> run_reduction_into),
            quote_spanned!(s.span()=> #s.__ongpu_mut()),
        ),
        None => (quote!(run_reduction), quote!()),
    };
    let setup = &print.setup;
    let run = print.around(quote! {
        ::ongpu::__private::#run(
            &#site_static,
            ::ongpu::__private::#marker,
            __ongpu_count,
            __ongpu_tpb,
            #args,
            // Inlined into the CPU backend's loop, which is compiled for the host's widest
            // vectors (a call out of it would run the body at the baseline's width).
            #[inline(always)]
            // Lattice code indexes element arrays by direction: `for mu in 0..4 { u[mu] }`.
            #[allow(clippy::needless_range_loop)]
            |#site_var: usize, #pats| {
                #bind_index
                let #value_var = {
                    #stmts
                };
                (#ret, #value_var)
            },
            #dest
        )
    });
    quote! {
        {
            #[allow(unused_imports)]
            use ::ongpu::__private::{CaptureRef as _, Norm2 as _, TimesI as _};
            #setup
            static #site_static: ::ongpu::__private::ReduceSite =
                ::ongpu::__private::ReduceSite::new(#info);
            #lattice
            let __ongpu_count = #count;
            let __ongpu_tpb = #tpb;
            #run
        }
    }
}

/// What a reduction call expands to when the macro reports errors: the errors, and a value
/// of the call's type (`Result<_, Error>`, inferred from the use) that is never computed.
pub fn errors_as_expression(e: syn::Error) -> TokenStream {
    let errors = e.into_compile_error();
    quote!({
        #errors;
        #[allow(unreachable_code)]
        let __ongpu_never = ::core::result::Result::<_, ::ongpu::Error>::Ok(::core::unreachable!());
        __ongpu_never
    })
}
