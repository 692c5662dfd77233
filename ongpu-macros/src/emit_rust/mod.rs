//! The Rust expansion of `on_gpu!`: a `static` describing the call site (with the CUDA body
//! text), the captures wrapped as read or written arguments, and the body as a per-site
//! closure, which the CPU backend runs and through which rustc type-checks the body.

pub mod body;
pub mod chunks;
pub mod kernel_body;
pub mod lanes;
pub mod reduce;

use crate::captures::Capture;
use crate::ir::Body;
use crate::names::cuda_ident;
use crate::print::PrintParts;
use body::EmitRust;
use lanes::{Gathers, Lanes, Lowering};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use std::collections::BTreeMap;
use syn::{Expr, Path};

/// Everything the expansion of one element-wise call needs.
pub struct ElementwiseCall<'a> {
    /// `n`, if given.
    pub sites: Option<&'a Expr>,
    /// Threads per block, if given.
    pub threads_per_block: Option<&'a Expr>,
    /// `i` of `|i| { ... }`.
    pub site_index: Option<&'a syn::Ident>,
    /// The body.
    pub body: &'a Body,
    /// The captures, in order.
    pub captures: &'a [Capture],
    /// The CUDA C++ statements of the body.
    pub cuda_body: String,
    /// Device functions the body calls.
    pub device_calls: &'a [Path],
}

/// The `SiteInfo` literal of a call.
fn site_info(
    captures: &[Capture],
    site_index: Option<&syn::Ident>,
    cuda_body: &str,
    device_calls: &[Path],
    prints: &TokenStream,
    lowering: &Lowering,
) -> TokenStream {
    let names = captures.iter().map(|c| c.ident.to_string());
    let cuda_names = captures.iter().map(|c| cuda_ident(&c.ident.to_string()));
    let entry_stores = captures
        .iter()
        .filter(|c| c.entry_stores && c.is_written())
        .map(|c| cuda_ident(&c.ident.to_string()));
    let site_index = match site_index {
        Some(i) => {
            let i = cuda_ident(&i.to_string());
            quote!(::core::option::Option::Some(#i))
        }
        None => quote!(::core::option::Option::None),
    };
    let device_fns = device_calls.iter().map(|p| {
        let span = p
            .segments
            .last()
            .map_or(Span::call_site(), |s| s.ident.span());
        // A function with barriers is refused here, when the site's `static` is evaluated.
        quote_spanned!(span=> ::ongpu::__private::site_device_fn(&#p))
    });
    quote! {
        ::ongpu::__private::SiteInfo {
            location: ::ongpu::__private::Location {
                file: ::core::file!(),
                line: ::core::line!(),
                column: ::core::column!(),
            },
            captures: &[#(#names),*],
            cuda_names: &[#(#cuda_names),*],
            entry_stores: &[#(#entry_stores),*],
            site_index: #site_index,
            body: #cuda_body,
            device_fns: &[#(#device_fns),*],
            prints: #prints,
            lowering: #lowering,
        }
    }
}

/// The capture arguments: `write::<LOAD, _>(x.__ongpu_mut())` for written fields (spanned at
/// the first assignment, where a non-field is reported), `read(y.__ongpu_ref())` otherwise.
fn capture_args(captures: &[Capture], gathers: &BTreeMap<String, Gathers>) -> TokenStream {
    let args = captures.iter().map(|c| {
        let id = &c.ident;
        match c.written_at {
            Some(span) => {
                let load = c.load;
                quote_spanned!(span=> ::ongpu::__private::write::<#load, _>(#id.__ongpu_mut()))
            }
            None if c.shifted_at.is_some() => {
                let lat = syn::Ident::new("__ongpu_lat", Span::mixed_site());
                let g = gathers.get(&id.to_string()).cloned().unwrap_or_default();
                let g = g.tokens();
                quote_spanned!(id.span()=> ::ongpu::__private::read_shifted(#id.__ongpu_ref(), &#lat, #g))
            }
            None if c.is_constant() => {
                quote_spanned!(id.span()=> ::ongpu::__private::read_constant(&#id))
            }
            None => quote_spanned!(id.span()=> ::ongpu::__private::read(#id.__ongpu_ref())),
        }
    });
    quote!((#(#args,)*))
}

/// The closure parameters `(mut x, y, ...)` and the returned tuple `(x, y, ...)`; a shifted
/// capture arrives as its view (`__ongpu_view_f`).
fn closure_tuple(captures: &[Capture]) -> (TokenStream, TokenStream) {
    let name = |c: &Capture| match c.shifted_at {
        Some(_) => body::shift_view(&c.ident),
        // The body reads the constant itself; its value is carried under a hidden name.
        None if c.is_constant() => {
            syn::Ident::new(&format!("__ongpu_const_{}", c.ident), Span::mixed_site())
        }
        None => c.ident.clone(),
    };
    let pats = captures.iter().map(|c| {
        let id = name(c);
        if c.is_written() {
            quote!(mut #id)
        } else {
            quote!(#id)
        }
    });
    let ids = captures.iter().map(name);
    (quote!((#(#pats,)*)), quote!((#(#ids,)*)))
}

/// In the closure, this site's element of each shifted capture, under the capture's name
/// (the body may also read it unshifted); `read` is the view's method (`at` at a lone site,
/// `centre` at a lane).
fn bind_shifted(captures: &[Capture], site_var: &syn::Ident, read: &str) -> TokenStream {
    let read = syn::Ident::new(read, Span::call_site());
    let binds = captures.iter().filter(|c| c.shifted_at.is_some()).map(|c| {
        let (id, view) = (&c.ident, body::shift_view(&c.ident));
        quote!(#[allow(unused_variables)] let #id = #view.#read(#site_var);)
    });
    quote!(#(#binds)*)
}

/// The lane emitter of `call`'s body.
pub fn lanes_of(call: &ElementwiseCall<'_>) -> Lanes {
    let bound = bound_names(&call.body.block);
    Lanes::new(
        call.captures
            .iter()
            .filter(|c| c.shifted_at.is_some())
            .map(|c| &c.ident),
        call.captures
            .iter()
            .filter(|c| {
                !c.is_written() && c.shifted_at.is_none() && !bound.contains(&c.ident.to_string())
            })
            .map(|c| &c.ident),
    )
}

/// Every name a `let` or `for` of `block` binds, anywhere in it.
fn bound_names(block: &crate::ir::Block) -> std::collections::HashSet<String> {
    use crate::ir::visit::{walk_expr, walk_let, Visit};
    struct Bound(std::collections::HashSet<String>);
    impl Visit for Bound {
        fn visit_let(&mut self, l: &crate::ir::Let) {
            self.0.insert(l.binding.ident.to_string());
            walk_let(self, l);
        }
        fn visit_expr(&mut self, e: &crate::ir::Expr) {
            if let crate::ir::Expr::For(f) = e {
                self.0.insert(f.binding.ident.to_string());
            }
            walk_expr(self, e);
        }
    }
    let mut b = Bound(Default::default());
    b.visit_block(block);
    b.0
}

/// The pieces every call form expands to: the call site's facts, the capture arguments, the
/// closure's parameter pattern and returned tuple, the site count and threads per block, and
/// the hygienic names of the static and the closure's site index.
pub struct CallParts {
    /// The `SiteInfo` literal.
    pub info: TokenStream,
    /// The tuple of capture arguments.
    pub args: TokenStream,
    /// The closure's parameter pattern.
    pub pats: TokenStream,
    /// The tuple the closure returns.
    pub ret: TokenStream,
    /// `sites(n)` or `SiteCount::FromFields`.
    pub count: TokenStream,
    /// `Some(threads_per_block(t))` or `None`.
    pub tpb: TokenStream,
    /// The call site's `static`.
    pub site_static: syn::Ident,
    /// The closure's site-index parameter.
    pub site_var: syn::Ident,
    /// `let i: usize = <site_var>;` when the body names the site index, and this site's
    /// element of each shifted capture.
    pub bind_index: Option<TokenStream>,
    /// The same at a lane of a group.
    pub bind_lane: TokenStream,
    /// True when the lanes run a body of their own (it shifts, or unrolls loops).
    pub lowered: bool,
    /// The runs of a long element-wise body lowered in runs (`chunks`).
    pub runs: Option<Vec<std::ops::Range<usize>>>,
    /// Before the call: the lattice that shifts use (`__ongpu_lat`), when the body shifts.
    pub lattice: TokenStream,
    /// The printer and formats of a body that prints.
    pub print: PrintParts,
}

impl CallParts {
    /// The pieces of `call`; an element-wise body (`in_runs`) may be lowered in runs.
    pub fn of(call: &ElementwiseCall<'_>, in_runs: bool) -> Self {
        let print = PrintParts::of(call.body);
        // The lanes' body, for what it gathers and how it lowers (each expansion emits it
        // again, with the same result).
        let mut lanes = lanes_of(call);
        lanes.stmts(&call.body.block);
        let shifts = call.captures.iter().any(|c| c.shifted_at.is_some());
        let lowered = shifts || lanes.unrolled;
        let mut lowering = lanes.lowering();
        let runs = match lowering {
            Lowering::LaneMajor if in_runs && lowered => {
                let names: Vec<&syn::Ident> = call.captures.iter().map(|c| &c.ident).collect();
                chunks::plan(&call.body.block, &names)
            }
            _ => None,
        };
        if let Some(r) = &runs {
            lowering = Lowering::Runs(r.len());
        }
        let info = site_info(
            call.captures,
            call.site_index,
            &call.cuda_body,
            call.device_calls,
            &print.format_fn,
            &lowering,
        );
        let (pats, ret) = closure_tuple(call.captures);
        let site = Span::mixed_site();
        let site_var = syn::Ident::new("__ongpu_site", site);
        let space = syn::Ident::new("__ongpu_space", site);
        let lat = syn::Ident::new("__ongpu_lat", site);
        let (count, lattice) = match call.sites {
            Some(n) if shifts => {
                let span = syn::spanned::Spanned::span(n);
                (
                    quote_spanned!(span=> ::ongpu::__private::sites(#space)),
                    quote_spanned!(span=>
                        let #space = #n;
                        let #lat = ::ongpu::__private::shift_lattice(&#space);
                    ),
                )
            }
            Some(n) => (
                quote_spanned!(syn::spanned::Spanned::span(n)=> ::ongpu::__private::sites(#n)),
                quote!(),
            ),
            None => (quote!(::ongpu::__private::SiteCount::FromFields), quote!()),
        };
        let tpb = match call.threads_per_block {
            Some(t) => quote_spanned!(syn::spanned::Spanned::span(t)=>
                ::core::option::Option::Some(::ongpu::__private::threads_per_block(#t))),
            None => quote!(::core::option::Option::None),
        };
        let index = call
            .site_index
            .map(|i| quote!(#[allow(unused_variables)] let #i: usize = #site_var;));
        let shifted = bind_shifted(call.captures, &site_var, "at");
        let bind_index = Some(quote!(#index #shifted));
        let centres = bind_shifted(call.captures, &site_var, "centre");
        let bind_lane = quote!(#index #centres);
        CallParts {
            info,
            args: capture_args(call.captures, &lanes.gathers),
            pats,
            ret,
            count,
            tpb,
            site_static: syn::Ident::new("__ONGPU_SITE", site),
            site_var,
            bind_index,
            bind_lane,
            lowered,
            runs,
            lattice,
            print,
        }
    }
}

/// The expansion.
pub fn expand(call: &ElementwiseCall<'_>) -> TokenStream {
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
        runs,
        lattice,
        print,
    } = CallParts::of(call, true);
    let closure = |bind: &TokenStream, stmts: &TokenStream, allow: TokenStream| {
        quote! {
            #allow
            // Inlined into the CPU backend's loop over a group of sites, so that the
            // compiler can vectorise the body across them.
            #[inline(always)]
            // Lattice code indexes element arrays by direction: `for mu in 0..4 { u[mu] }`.
            #[allow(clippy::needless_range_loop)]
            |#site_var: usize, #pats| {
                #bind
                {
                    #stmts
                };
                #ret
            }
        }
    };
    let site_stmts = body::Plain.stmts(&call.body.block);
    let site_body = closure(&bind_index.unwrap_or_default(), &site_stmts, quote!());
    let run = if let Some(runs) = runs {
        // A long body: each run of its statements over the group's lanes in turn.
        let parts = chunks::GroupParts {
            pats: &pats,
            ret: &ret,
            written: call
                .captures
                .iter()
                .filter(|c| c.is_written())
                .map(|c| &c.ident)
                .collect(),
            bind_lane: &bind_lane,
            site_var: &site_var,
        };
        let group_body =
            chunks::group_closure(&mut lanes_of(call), &call.body.block, &runs, &parts);
        quote!(::ongpu::__private::run_elementwise_chunked(
            &#site_static, __ongpu_count, __ongpu_tpb, #args, #site_body, #group_body))
    } else if lowered {
        // An unrolled loop's last assignments to a variable the next iteration would read
        // are dead (the lone sites' body, which rustc also checks, warns where it matters).
        let allow = quote!(#[allow(unused_assignments)]);
        let lane_body = closure(&bind_lane, &lanes_of(call).stmts(&call.body.block), allow);
        quote!(::ongpu::__private::run_elementwise_lowered(
            &#site_static, __ongpu_count, __ongpu_tpb, #args, #site_body, #lane_body))
    } else {
        quote!(::ongpu::__private::run_elementwise(
            &#site_static, __ongpu_count, __ongpu_tpb, #args, #site_body))
    };
    let setup = &print.setup;
    let run = print.around(run);
    quote! {
        {
            #[allow(unused_imports)]
            use ::ongpu::__private::{CaptureRef as _, Norm2 as _, TimesI as _};
            #setup
            static #site_static: ::ongpu::__private::CallSite = ::ongpu::__private::CallSite::new(#info);
            #lattice
            let __ongpu_count = #count;
            let __ongpu_tpb = #tpb;
            #run
        }
    }
}
