//! The kernel body as Rust, for one thread of the CPU backend (and rustc's checks): the
//! tree emitted as written (`EmitRust`), except for the kernel's constructs, which it
//! overrides: array accesses become calls on the runtime's views (`a[i]` → `a.load(i)`,
//! `c[i] = v` → `c.store(i, v)`, `&mut c[i]` → `c.at(i)`), intrinsics become calls on the
//! thread's context, `sync_threads()` an `.await` of the block's barrier, and `shared!`
//! declarations the block's shared arrays. Spans stay those of the user's code, so rustc's
//! errors point there.

use super::body::{self, EmitRust};
use crate::captures::kernel::{Analysis, ArrayKind};
use crate::ir::{Body, Call, Callee, Expr, VectorAccess};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

/// The most arguments of a call that the runtime's fallback for callees that are no device
/// functions takes (`NotDeviceFn0` to `NotDeviceFn8`).
const MAX_FALLBACK_ARGS: usize = 8;

/// The body as Rust and the `sync_threads()` calls it contains, in order.
pub struct RustBody {
    /// The body's statements, without braces.
    pub stmts: TokenStream,
    /// The span of each `sync_threads()`; barrier `k` is the `k`-th.
    pub barriers: Vec<Span>,
}

/// How the Rust of a body runs a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// To its end, in one call: device functions are called as plain functions. A
    /// `sync_threads()` here panics (only the phased form reaches one).
    Plain,
    /// As an `async` body that yields at each barrier (an `.await`), device functions called
    /// in their phased form (`async` too, since they may have barriers of their own).
    Phased,
}

/// Names the expansion binds around the body (hygienic: the user's code cannot see them).
pub struct Hidden {
    /// The thread's `ThreadCtx`.
    pub ctx: Ident,
    /// The tuple of the block's shared-array views.
    pub shared: Ident,
}

impl Hidden {
    /// The names.
    pub fn new() -> Self {
        Hidden {
            ctx: Ident::new("__ongpu_ctx", Span::mixed_site()),
            shared: Ident::new("__ongpu_shared", Span::mixed_site()),
        }
    }
}

/// Emits a kernel's `body` (checked and analysed) as one thread's Rust.
pub fn emit(body: &Body, analysis: &Analysis, hidden: &Hidden, form: Form) -> RustBody {
    KernelRust::new(analysis, hidden, form, None, false).run(body)
}

/// [`emit`] for a device function; in a generic one (`real_param`: its type parameter),
/// unsuffixed float literals are of the type parameter, as in its C++ copy. Its barriers
/// are numbered by source line (they are the calling kernel's), and wait at the thread
/// context the phased form takes.
pub fn emit_device_fn(
    body: &Body,
    analysis: &Analysis,
    hidden: &Hidden,
    real_param: Option<&Ident>,
    form: Form,
) -> RustBody {
    KernelRust::new(analysis, hidden, form, real_param, true).run(body)
}

/// The Rust emitter with the kernel's constructs; the rest is emitted as written.
struct KernelRust<'a> {
    arrays: &'a Analysis,
    hidden: &'a Hidden,
    barriers: Vec<Span>,
    /// `shared!` declarations emitted so far (the analysis keeps them at the top level, so
    /// they come in declaration order).
    shared: usize,
    form: Form,
    /// The type parameter of a generic device function.
    real_param: Option<&'a Ident>,
    /// True for a device function's body.
    device_fn: bool,
}

impl<'a> KernelRust<'a> {
    fn new(
        arrays: &'a Analysis,
        hidden: &'a Hidden,
        form: Form,
        real_param: Option<&'a Ident>,
        device_fn: bool,
    ) -> Self {
        KernelRust {
            arrays,
            hidden,
            barriers: Vec::new(),
            shared: 0,
            form,
            real_param,
            device_fn,
        }
    }

    fn run(mut self, body: &Body) -> RustBody {
        let stmts = self.stmts(&body.block);
        RustBody {
            stmts,
            barriers: self.barriers,
        }
    }
}

/// A place rooted at an array: the array, its indices (one per dimension), and the
/// projections after them (`.re`, `[k]`), innermost first.
struct ArrayPlace {
    root: Ident,
    indices: Vec<TokenStream>,
    rest: Vec<Projection>,
}

enum Projection {
    Index(TokenStream),
    Field(Ident),
}

fn hidden(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

impl KernelRust<'_> {
    fn array(&self, id: &Ident) -> Option<ArrayKind> {
        self.arrays.arrays.get(&id.to_string()).copied()
    }

    /// Decomposes an assigned place rooted at an array (its sub-expressions emitted).
    fn array_place(&mut self, e: &Expr) -> Option<ArrayPlace> {
        let mut rest = Vec::new();
        let mut cur = e;
        loop {
            if let Some((root, indices)) = cur.index_chain() {
                if let Some(a) = self.array(root) {
                    let mut indices: Vec<TokenStream> =
                        indices.into_iter().map(|i| self.expr(i)).collect();
                    let extra = indices.split_off(a.rank());
                    let mut all: Vec<Projection> =
                        extra.into_iter().map(Projection::Index).collect();
                    rest.reverse();
                    all.extend(rest);
                    return Some(ArrayPlace {
                        root: root.clone(),
                        indices,
                        rest: all,
                    });
                }
            }
            match cur {
                Expr::Index(base, _, index) => {
                    rest.push(Projection::Index(self.expr(index)));
                    cur = base;
                }
                Expr::Field(base, _, name) => {
                    rest.push(Projection::Field(name.clone()));
                    cur = base;
                }
                Expr::Paren(_, x) => cur = x,
                _ => return None,
            }
        }
    }

    /// `{ let v = rhs; [let x = root.load(..); x<rest> op v;] root.store(.., v or x); }`
    fn store(
        &mut self,
        place: ArrayPlace,
        op: TokenStream,
        rhs: TokenStream,
        span: Span,
    ) -> TokenStream {
        let (v, x) = (hidden("__ongpu_value"), hidden("__ongpu_element"));
        let root = &place.root;
        let idx_names: Vec<Ident> = (0..place.indices.len())
            .map(|k| hidden(&format!("__ongpu_i{k}")))
            .collect();
        let indices = &place.indices;
        let whole = place.rest.is_empty() && op.to_string() == "=";
        let body = if whole {
            quote_spanned!(span=> #root.store(#(#idx_names,)* #v);)
        } else {
            let rest = place.rest.iter().map(|p| match p {
                Projection::Index(i) => quote!([#i]),
                Projection::Field(m) => quote!(.#m),
            });
            quote_spanned!(span=>
                let mut #x = #root.load(#(#idx_names),*);
                #x #(#rest)* #op #v;
                #root.store(#(#idx_names,)* #x);
            )
        };
        quote_spanned!(span=> {
            let #v = #rhs;
            #(let #idx_names = #indices;)*
            #body
        })
    }

    /// A read of an array element: `root.load(..)`, then any further indices.
    fn load(&mut self, e: &Expr) -> TokenStream {
        let span = e.span();
        let place = self
            .array_place(e)
            .expect("an index chain rooted at an array");
        let (root, indices) = (&place.root, &place.indices);
        let mut out = quote_spanned!(span=> #root.load(#(#indices),*));
        for p in place.rest {
            let Projection::Index(i) = p else {
                unreachable!("a read access has only indices after the array's")
            };
            out = quote_spanned!(span=> #out[#i]);
        }
        out
    }

    /// A call of an intrinsic (`e` is the call).
    fn intrinsic(&mut self, name: &Ident, call: &Call, e: &Expr) -> TokenStream {
        let span = name.span();
        let ctx = &self.hidden.ctx;
        match name.to_string().as_str() {
            "thread_idx" | "block_idx" | "block_dim" | "grid_dim" => {
                quote_spanned!(span=> #ctx.#name())
            }
            "sync_threads" => {
                let id = self.barriers.len() as u32;
                self.barriers.push(e.span());
                match (self.form, self.device_fn) {
                    (Form::Plain, _) => {
                        quote_spanned!(span=> ::ongpu::__private::barrier_outside_kernel())
                    }
                    (Form::Phased, false) => quote_spanned!(span=> #ctx.sync_threads(#id).await),
                    (Form::Phased, true) => {
                        quote_spanned!(span=> #ctx.device_sync_threads(::core::line!()).await)
                    }
                }
            }
            "thread_fence" => quote_spanned!(span=> ::ongpu::__private::thread_fence()),
            _atomic => {
                let mut args = call.args.iter();
                let place = match args.next() {
                    Some(Expr::RefMut(_, _, target)) => self.array_place(target),
                    _ => None,
                };
                let rest: Vec<TokenStream> = args.map(|a| self.expr(a)).collect();
                let place = place.expect("the analysis checked the atomic's target");
                let (root, indices) = (&place.root, &place.indices);
                quote_spanned!(span=>
                    ::ongpu::__private::#name(#root.at(#(#indices),*), #(#rest),*))
            }
        }
    }

    /// `a.load4(q)` → `a.load4(q)`, `s[i].store4(q, v)` → `s.store4(i, q, v)`.
    fn vector(&mut self, v: &VectorAccess<'_>, span: Span) -> TokenStream {
        let (root, name) = (v.root, v.name);
        let row = v.row.map(|r| self.expr(r));
        let args: Vec<TokenStream> = v.args.iter().map(|a| self.expr(a)).collect();
        let row = row.map(|r| quote!(#r,));
        quote_spanned!(span=> #root.#name(#row #(#args),*))
    }

    /// A device call that passes arrays (each array converted to the view the function's
    /// parameter takes), or any device call of the phased form (the function's phased
    /// form, awaited); `None` for other calls.
    fn device_call(&mut self, c: &Call) -> Option<TokenStream> {
        let Callee::Device(path) = &c.callee else {
            return None;
        };
        let passes_arrays = c
            .args
            .iter()
            .any(|a| a.var().is_some_and(|v| self.array(v).is_some()));
        if !passes_arrays && self.form == Form::Plain {
            return None;
        }
        let args: Vec<TokenStream> = c
            .args
            .iter()
            .map(|a| match a.var().filter(|v| self.array(v).is_some()) {
                Some(v) => quote_spanned!(v.span()=> ::ongpu::__private::ArrayArg::array_arg(#v)),
                None => self.expr(a),
            })
            .collect();
        if self.form == Form::Phased {
            let ctx = &self.hidden.ctx;
            let span = path
                .segments
                .last()
                .map_or(Span::call_site(), |s| s.ident.span());
            // The call spanned at the function's name, so that rustc's errors about it
            // (an argument type that is no `Real`) point there. A callee that is no device
            // function is called by the fallback of its number of arguments (up to 8).
            let fallback = (args.len() <= MAX_FALLBACK_ARGS).then(|| {
                let t = syn::Ident::new(&format!("NotDeviceFn{}", args.len()), span);
                quote_spanned!(span=> #[allow(unused_imports)] use ::ongpu::__private::#t as _;)
            });
            return Some(quote_spanned!(span=>
                ({ #fallback #path.__ongpu_phased(#ctx, #(#args),*) }).await));
        }
        let mut t = body::device_callee(path);
        c.paren.surround(&mut t, |t| t.extend(quote!(#(#args),*)));
        Some(t)
    }

    /// The `k`-th `shared!` declaration's value: the block's `k`-th shared view.
    fn shared_view(&mut self, e: &Expr) -> TokenStream {
        let k = syn::Index::from(self.shared);
        self.shared += 1;
        let shared = &self.hidden.shared;
        quote_spanned!(e.span()=> #shared.#k)
    }
}

impl EmitRust for KernelRust<'_> {
    fn print_key(&self) -> TokenStream {
        let ctx = &self.hidden.ctx;
        quote!(#ctx.thread_key())
    }

    fn expr(&mut self, e: &Expr) -> TokenStream {
        if let (Expr::Lit(syn::Lit::Float(f)), Some(t)) = (e, self.real_param) {
            if f.suffix().is_empty() {
                return real_literal(f, t);
            }
        }
        if let Some((name, call)) = e.intrinsic_call() {
            return self.intrinsic(name, call, e);
        }
        if let Some(v) = e.vector_access().filter(|v| self.array(v.root).is_some()) {
            return self.vector(&v, e.span());
        }
        let assigned = match e {
            Expr::Assign(left, _, right) => Some((left, quote!(=), right)),
            Expr::Binary(left, op, right) if e.is_compound_assign() => {
                Some((left, quote!(#op), right))
            }
            _ => None,
        };
        if let Some((left, op, right)) = assigned {
            if let Some(place) = self.array_place(left) {
                let rhs = self.expr(right);
                return self.store(place, op, rhs, e.span());
            }
        }
        match e {
            Expr::Index(..)
                if e.index_chain()
                    .is_some_and(|(r, _)| self.array(r).is_some()) =>
            {
                self.load(e)
            }
            Expr::Shared(_) => self.shared_view(e),
            Expr::Call(c) => match self.device_call(c) {
                Some(t) => t,
                None => body::expr(self, e),
            },
            _ => body::expr(self, e),
        }
    }
}

/// An unsuffixed float literal of a generic device function, as its type parameter `t`:
/// the literal's `f64` and `f32` values (each rounded once from the digits, as rustc and
/// the C++ copy round them), of which `t` picks its own.
fn real_literal(f: &syn::LitFloat, t: &Ident) -> TokenStream {
    let digits = f.base10_digits();
    let single = digits.parse::<f32>().unwrap_or(f32::INFINITY).to_bits();
    let double = syn::LitFloat::new(&format!("{}f64", fmt_f64(digits)), f.span());
    quote_spanned!(f.span()=>
        <#t as ::ongpu::__private::Real>::from_literal(#double, f32::from_bits(#single)))
}

/// `digits` with a decimal point, so that they lex as a float.
fn fmt_f64(digits: &str) -> String {
    if digits.contains(['.', 'e', 'E']) {
        digits.to_string()
    } else {
        format!("{digits}.0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(sig: &str, body: &str) -> String {
        let f: syn::ItemFn = syn::parse_str(&format!("{sig} {body}")).unwrap();
        let params = crate::input::kernel_signature::params(&f).unwrap();
        let body = crate::ir::lower(&f.block, crate::ir::Context::Kernel).unwrap();
        let an = crate::captures::kernel::analyse(&body, &params).unwrap();
        emit(&body, &an, &Hidden::new(), Form::Phased)
            .stmts
            .to_string()
    }

    #[test]
    fn accesses_become_view_calls() {
        let s = rewritten(
            "fn k(a: &[f32], c: &mut [f32], n: u32)",
            "{ let t = shared!([[f32; 4]; 4]); t[1][2] = a[n]; c[n] += t[0][a.len()]; \
             let old = atomic_add(&mut c[0], 1.0); sync_threads(); let x = thread_idx().x; }",
        );
        assert!(s.contains("let t = __ongpu_shared . 0"), "{s}");
        assert!(
            s.contains("t . store (__ongpu_i0 , __ongpu_i1 , __ongpu_value)"),
            "{s}"
        );
        assert!(s.contains("let __ongpu_value = a . load (n)"), "{s}");
        assert!(
            s.contains("let __ongpu_value = t . load (0 , a . len ())"),
            "{s}"
        );
        assert!(s.contains("__ongpu_element += __ongpu_value"), "{s}");
        assert!(
            s.contains(":: ongpu :: __private :: atomic_add (c . at (0) , 1.0)"),
            "{s}"
        );
        assert!(
            s.contains("__ongpu_ctx . sync_threads (0u32) . await"),
            "{s}"
        );
        assert!(s.contains("__ongpu_ctx . thread_idx () . x"), "{s}");
    }

    #[test]
    fn partial_writes_load_modify_store() {
        let s = rewritten(
            "fn k(c: &mut [Complex<f32>], m: &mut [ColorMatrix<f64>])",
            "{ c[1].re = 2.0; m[0][1][2] -= m[1][0][0]; }",
        );
        assert!(s.contains("__ongpu_element . re = __ongpu_value"), "{s}");
        assert!(
            s.contains("__ongpu_element [1] [2] -= __ongpu_value"),
            "{s}"
        );
        assert!(
            s.contains("let __ongpu_value = m . load (1) [0] [0]"),
            "{s}"
        );
    }
}
