//! The tree back as Rust: the user's tokens with their spans (so rustc's errors point at the
//! user's code), with calls of the maths functions (`sqrt(x)`) routed to
//! `::ongpu::__private::math`, so that they need no import. The kernel's emitter overrides
//! the constructs it translates (array accesses, intrinsics) and keeps the rest.

use crate::ir::{Block, Call, Callee, Else, Expr, If, Let, Shift, Stmt};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};

/// Rust emission; each default method emits the construct as written.
pub trait EmitRust {
    /// An expression.
    fn expr(&mut self, e: &Expr) -> TokenStream {
        expr(self, e)
    }

    /// A statement.
    fn stmt(&mut self, s: &Stmt) -> TokenStream {
        stmt(self, s)
    }

    /// `{ statements }`.
    fn block(&mut self, b: &Block) -> TokenStream {
        let mut t = TokenStream::new();
        b.brace.surround(&mut t, |t| t.extend(self.stmts(b)));
        t
    }

    /// The statements of a block, without braces.
    fn stmts(&mut self, b: &Block) -> TokenStream {
        b.stmts.iter().map(|s| self.stmt(s)).collect()
    }

    /// What a print's line is ordered by: the site of an `on_gpu!` body (the closure's
    /// site index); a kernel's emitter gives the global thread index.
    fn print_key(&self) -> TokenStream {
        let site = syn::Ident::new("__ongpu_site", Span::mixed_site());
        quote!((#site as u64))
    }
}

/// The plain emitter: the body as written.
pub struct Plain;

impl EmitRust for Plain {}

impl ToTokens for Expr {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(Plain.expr(self));
    }
}

impl ToTokens for Block {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(Plain.block(self));
    }
}

/// A statement as written.
pub fn stmt<E: EmitRust + ?Sized>(em: &mut E, s: &Stmt) -> TokenStream {
    match s {
        Stmt::Let(l) => local(em, l),
        Stmt::Expr(e, semi) => {
            let e = em.expr(e);
            quote!(#e #semi)
        }
    }
}

fn local<E: EmitRust + ?Sized>(em: &mut E, l: &Let) -> TokenStream {
    let Let {
        attrs,
        let_token,
        binding,
        ty,
        init,
        semi,
    } = l;
    let (m, id) = (&binding.mutability, &binding.ident);
    let ty = ty.as_ref().map(|(colon, ty)| quote!(#colon #ty));
    let init = init.as_ref().map(|(eq, e)| {
        let e = em.expr(e);
        quote!(#eq #e)
    });
    quote!(#(#attrs)* #let_token #m #id #ty #init #semi)
}

/// An expression as written, its parts through `em`.
pub fn expr<E: EmitRust + ?Sized>(em: &mut E, e: &Expr) -> TokenStream {
    match e {
        Expr::Lit(l) => l.to_token_stream(),
        Expr::Var(id) => id.to_token_stream(),
        Expr::Const(p, _) => p.to_token_stream(),
        Expr::Paren(p, x) => {
            let mut t = TokenStream::new();
            let x = em.expr(x);
            p.surround(&mut t, |t| t.extend(x));
            t
        }
        Expr::Group(g, x) => {
            let mut t = TokenStream::new();
            let x = em.expr(x);
            g.surround(&mut t, |t| t.extend(x));
            t
        }
        Expr::Binary(l, op, r) => {
            let (l, r) = (em.expr(l), em.expr(r));
            quote!(#l #op #r)
        }
        Expr::Assign(l, eq, r) => {
            let (l, r) = (em.expr(l), em.expr(r));
            quote!(#l #eq #r)
        }
        Expr::Unary(op, x) => {
            let x = em.expr(x);
            quote!(#op #x)
        }
        Expr::Cast(x, as_token, ty, _) => {
            let x = em.expr(x);
            quote!(#x #as_token #ty)
        }
        Expr::Field(x, dot, name) => {
            let x = em.expr(x);
            quote!(#x #dot #name)
        }
        // One entry of an element array at another site: only that entry is read.
        Expr::Index(x, _, i) if matches!(**x, Expr::Shift(_)) => {
            let Expr::Shift(s) = &**x else { unreachable!() };
            let (view, site) = (shift_view(&s.field), shifted_site(em, s));
            let i = em.expr(i);
            quote_spanned!(s.field.span()=> #view.entry(#site, ::ongpu::__private::index(#i)))
        }
        Expr::Index(x, bracket, i) => {
            let (x, i) = (em.expr(x), em.expr(i));
            let mut t = x;
            bracket.surround(&mut t, |t| t.extend(i));
            t
        }
        // `x.abs()` wraps at the minimum, as on the GPU (the inherent method panics in
        // debug builds).
        Expr::Method(m) if m.name == "abs" && m.args.is_empty() => {
            let recv = em.expr(&m.receiver);
            let name = &m.name;
            quote_spanned!(name.span()=> ::ongpu::__private::math::abs(#recv))
        }
        Expr::Method(m) => {
            let recv = em.expr(&m.receiver);
            let (dot, name) = (&m.dot, &m.name);
            let mut t = quote!(#recv #dot #name);
            let args = list(em, &m.args);
            m.paren.surround(&mut t, |t| t.extend(args));
            t
        }
        Expr::Call(c) => call(em, c),
        Expr::Shift(s) => shift(em, s),
        Expr::Array(bracket, elems) => {
            let mut t = TokenStream::new();
            let elems = list(em, elems);
            bracket.surround(&mut t, |t| t.extend(elems));
            t
        }
        Expr::Repeat(bracket, value, semi, len) => {
            let (value, len) = (em.expr(value), em.expr(len));
            let mut t = TokenStream::new();
            bracket.surround(&mut t, |t| t.extend(quote!(#value #semi #len)));
            t
        }
        Expr::If(i) => if_expr(em, i),
        Expr::For(f) => {
            let (start, end, body) = (em.expr(&f.start), em.expr(&f.end), em.block(&f.body));
            let (for_token, m, id, in_token, limits) = (
                &f.for_token,
                &f.binding.mutability,
                &f.binding.ident,
                &f.in_token,
                &f.limits,
            );
            quote!(#for_token #m #id #in_token #start #limits #end #body)
        }
        Expr::While(w, cond, body) => {
            let (cond, body) = (em.expr(cond), em.block(body));
            quote!(#w #cond #body)
        }
        Expr::Loop(l, body) => {
            let body = em.block(body);
            quote!(#l #body)
        }
        Expr::Block(b) => em.block(b),
        Expr::Break(b) => b.to_token_stream(),
        Expr::Continue(c) => c.to_token_stream(),
        Expr::Return(r, x) => {
            let x = x.as_ref().map(|x| em.expr(x));
            quote!(#r #x)
        }
        Expr::Len(x, dot, name, paren) => {
            let x = em.expr(x);
            let mut t = quote!(#x #dot #name);
            paren.surround(&mut t, |_| {});
            t
        }
        Expr::RefMut(and, m, x) => {
            let x = em.expr(x);
            quote!(#and #m #x)
        }
        Expr::Borrow(and, m, x) => {
            let x = em.expr(x);
            quote!(#and #m #x)
        }
        Expr::Shared(m) => m.to_token_stream(),
        Expr::Print(p) => {
            let key = em.print_key();
            let args: Vec<TokenStream> = p.args.iter().map(|a| em.expr(a)).collect();
            let (format, to_stderr, printer) =
                (&p.format, p.to_stderr, crate::print::printer_ident());
            // Out of line and cold: the sites that do not print keep a short path.
            quote_spanned!(p.name.span()=> ::ongpu::__private::print_cold(|| ::ongpu::__private::Printer::line(
                #printer, #key, #to_stderr, ::std::format!(#format #(, #args)*))))
        }
    }
}

/// A comma-separated list, the commas as written.
pub fn list<E: EmitRust + ?Sized>(
    em: &mut E,
    items: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
) -> TokenStream {
    let mut t = TokenStream::new();
    for pair in items.pairs() {
        t.extend(em.expr(pair.value()));
        pair.punct().to_tokens(&mut t);
    }
    t
}

fn call<E: EmitRust + ?Sized>(em: &mut E, c: &Call) -> TokenStream {
    let mut t = match &c.callee {
        Callee::Math(id) => quote_spanned!(id.span()=> ::ongpu::__private::math::#id),
        Callee::Intrinsic(id) => id.to_token_stream(),
        Callee::Associated(p) | Callee::ArrayConstructor(p, _) => p.to_token_stream(),
        Callee::Device(p) => device_callee(p),
    };
    let args = list(em, &c.args);
    c.paren.surround(&mut t, |t| t.extend(args));
    t
}

/// The device function at `path` as the callee of a body's call: its `__ongpu_fn()`, a
/// `fn` pointer (of the instantiation the arguments select, for a generic function). For a
/// callee that is no device function, `NotDeviceFn` makes it the callee itself, so that
/// the call's only error is the registration's, which says to mark it.
pub fn device_callee(path: &syn::Path) -> TokenStream {
    let span = path
        .segments
        .last()
        .map_or(Span::call_site(), |s| s.ident.span());
    quote_spanned!(span=> ({
        #[allow(unused_imports)]
        use ::ongpu::__private::NotDeviceFn as _;
        #path.__ongpu_fn()
    }))
}

fn if_expr<E: EmitRust + ?Sized>(em: &mut E, i: &If) -> TokenStream {
    let (if_token, cond, then) = (&i.if_token, em.expr(&i.cond), em.block(&i.then_branch));
    let else_branch = i.else_branch.as_ref().map(|(else_token, e)| {
        let e = match &**e {
            Else::Block(b) => em.block(b),
            Else::If(i) => if_expr(em, i),
        };
        quote!(#else_token #e)
    });
    quote!(#if_token #cond #then #else_branch)
}

/// `f.shift(mu, k)...` on the CPU: the field's view read at the site the hops reach, from
/// the closure's site, on the call's lattice (names the expansion binds).
fn shift<E: EmitRust + ?Sized>(em: &mut E, s: &Shift) -> TokenStream {
    let site = shifted_site(em, s);
    let view = shift_view(&s.field);
    quote_spanned!(s.field.span()=> #view.at(#site))
}

/// The site the hops of `s` reach from the closure's site.
fn shifted_site<E: EmitRust + ?Sized>(em: &mut E, s: &Shift) -> TokenStream {
    let site_var = syn::Ident::new("__ongpu_site", Span::mixed_site());
    let mut site = quote!(#site_var);
    // The view steps on the call's lattice, or on a split lattice on the part's.
    let view = shift_view(&s.field);
    for h in &s.hops {
        let (mu, k) = (em.expr(&h.mu), em.expr(&h.k));
        site = quote_spanned!(h.name.span()=> #view.hop(#site, #mu, #k));
    }
    site
}

/// The closure's name for the CPU view of a shifted capture.
pub fn shift_view(field: &syn::Ident) -> syn::Ident {
    syn::Ident::new(&format!("__ongpu_view_{field}"), Span::mixed_site())
}
