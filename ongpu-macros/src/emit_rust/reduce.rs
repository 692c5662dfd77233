//! The Rust expansion of a reduction `on_gpu!(sum: ...)`: as an element-wise call's (a
//! `static` call site, the captures, the body as a per-site closure), but the closure also
//! returns the site's value (the body's tail, checked to be of a type the reduction takes),
//! and the call evaluates to `Result<reduced value>`.

use super::body::{EmitRust, Plain};
use super::{lanes_of, CallParts, ElementwiseCall};
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
        bind_lane,
        lowered,
        lattice,
        print,
        ..
    } = CallParts::of(call, false);
    let value_var = syn::Ident::new("__ongpu_value", Span::mixed_site());
    let closure = |bind: &TokenStream, stmts: TokenStream, allow: TokenStream| {
        quote! {
            #allow
            // Inlined into the CPU backend's loop, which is compiled for the host's widest
            // vectors (a call out of it would run the body at the baseline's width).
            #[inline(always)]
            // Lattice code indexes element arrays by direction: `for mu in 0..4 { u[mu] }`.
            #[allow(clippy::needless_range_loop)]
            |#site_var: usize, #pats| {
                #bind
                let #value_var = {
                    #stmts
                };
                (#ret, #value_var)
            }
        }
    };
    let site_body = closure(
        &bind_index.unwrap_or_default(),
        statements(call, keyword, &mut Plain),
        quote!(),
    );
    let marker = keyword.marker();
    // `sum -> s:` writes into `s` (a DeviceScalar, or a `&mut` to one) and returns `()`.
    let (run, dest) = match &keyword.into {
        Some(s) if lowered => (
            quote_spanned!(s.span()=> run_reduction_into_lowered),
            quote_spanned!(s.span()=> #s.__ongpu_mut()),
        ),
        Some(s) => (
            quote_spanned!(s.span()=> run_reduction_into),
            quote_spanned!(s.span()=> #s.__ongpu_mut()),
        ),
        None if lowered => (quote!(run_reduction_lowered), quote!()),
        None => (quote!(run_reduction), quote!()),
    };
    let lane_body = lowered.then(|| {
        // An unrolled loop's last assignments to a variable the next iteration would read
        // are dead (the lone sites' body, which rustc also checks, warns where it matters).
        let allow = quote!(#[allow(unused_assignments)]);
        let body = closure(
            &bind_lane,
            statements(call, keyword, &mut lanes_of(call)),
            allow,
        );
        quote!(#body,)
    });
    let setup = &print.setup;
    let run = print.around(quote! {
        ::ongpu::__private::#run(
            &#site_static,
            ::ongpu::__private::#marker,
            __ongpu_count,
            __ongpu_tpb,
            #args,
            #site_body,
            #lane_body
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

/// The statements of a reduction's body through `em`, its tail value wrapped in the check of
/// its type (a value of the wrong type is reported there).
fn statements<E: EmitRust>(
    call: &ElementwiseCall<'_>,
    keyword: &Keyword,
    em: &mut E,
) -> TokenStream {
    let (tail, init) = call
        .body
        .block
        .stmts
        .split_last()
        .expect("a reduction body has a value");
    let mut stmts: TokenStream = init.iter().map(|s| em.stmt(s)).collect();
    let check = keyword.value_check();
    if let Stmt::Expr(tail, None) = tail {
        // The call starts at the tail's first token and ends at its last, so that rustc
        // sees the check and its argument at one place and reports a mistake there once.
        let tokens = em.expr(tail);
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
    stmts
}
