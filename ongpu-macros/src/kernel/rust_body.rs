//! The kernel body as Rust, for one thread of the CPU backend (and rustc's checks): array
//! accesses become calls on the runtime's views (`a[i]` → `a.load(i)`, `c[i] = v` →
//! `c.store(i, v)`, `&mut c[i]` → `c.at(i)`), intrinsics become calls on the thread's
//! context, `sync_threads()` an `.await` of the block's barrier, and `shared!` declarations
//! the block's shared arrays. Spans stay those of the user's code, so rustc's errors point
//! there.

use super::analysis::{Analysis, ArrayKind};
use super::syntax::{index_chain, intrinsic_call, shared_macro};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident, Member, Stmt};

/// The rewritten body and the `sync_threads()` calls it contains, in order.
pub struct RustBody {
    /// The body.
    pub block: Block,
    /// The span of each `sync_threads()`; barrier `k` is the `k`-th.
    pub barriers: Vec<Span>,
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

/// Rewrites `block` (checked and analysed).
pub fn rewrite(block: &Block, analysis: &Analysis, hidden: &Hidden) -> RustBody {
    let mut block = crate::rewrite::route_math_calls(block);
    let mut r = Rewriter {
        arrays: analysis,
        hidden,
        barriers: Vec::new(),
    };
    let mut shared_index = 0;
    for stmt in &mut block.stmts {
        if let Stmt::Local(l) = stmt {
            if let Some(init) = &mut l.init {
                if shared_macro(&init.expr).is_some() {
                    let k = syn::Index::from(shared_index);
                    let shared = &hidden.shared;
                    let span = init.expr.span();
                    *init.expr = syn::parse_quote_spanned!(span=> #shared.#k);
                    shared_index += 1;
                    continue;
                }
            }
        }
        r.visit_stmt_mut(stmt);
    }
    RustBody {
        block,
        barriers: r.barriers,
    }
}

struct Rewriter<'a> {
    arrays: &'a Analysis,
    hidden: &'a Hidden,
    barriers: Vec<Span>,
}

/// A place rooted at an array: the array, its indices (one per dimension), and the
/// projections after them (`.re`, `[k]`), innermost first.
struct ArrayPlace {
    root: Ident,
    indices: Vec<Expr>,
    rest: Vec<Projection>,
}

enum Projection {
    Index(Expr),
    Field(Member),
}

fn hidden(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

impl Rewriter<'_> {
    fn array(&self, id: &Ident) -> Option<ArrayKind> {
        self.arrays.arrays.get(&id.to_string()).copied()
    }

    /// Decomposes an assigned place rooted at an array (its sub-expressions rewritten).
    fn array_place(&mut self, e: &Expr) -> Option<ArrayPlace> {
        let mut rest = Vec::new();
        let mut cur = e;
        loop {
            if let Some((root, indices)) = index_chain(cur) {
                if let Some(a) = self.array(root) {
                    let rank = a.rank();
                    let mut indices: Vec<Expr> = indices.into_iter().cloned().collect();
                    for i in &mut indices {
                        self.visit_expr_mut(i);
                    }
                    let extra = indices.split_off(rank);
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
                Expr::Index(i) => {
                    let mut idx = (*i.index).clone();
                    self.visit_expr_mut(&mut idx);
                    rest.push(Projection::Index(idx));
                    cur = &i.expr;
                }
                Expr::Field(f) => {
                    rest.push(Projection::Field(f.member.clone()));
                    cur = &f.base;
                }
                Expr::Paren(p) => cur = &p.expr,
                _ => return None,
            }
        }
    }

    /// `{ let v = rhs; [let x = root.load(..); x<rest> op v;] root.store(.., v or x); }`
    fn store(&mut self, place: ArrayPlace, op: TokenStream, rhs: &Expr, span: Span) -> Expr {
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
        syn::parse_quote_spanned!(span=> {
            let #v = #rhs;
            #(let #idx_names = #indices;)*
            #body
        })
    }

    fn intrinsic(&mut self, name: &str, call: &mut syn::ExprCall) -> Expr {
        let span = call.func.span();
        let ctx = &self.hidden.ctx;
        match name {
            "thread_idx" | "block_idx" | "block_dim" | "grid_dim" => {
                let f = Ident::new(name, span);
                syn::parse_quote_spanned!(span=> #ctx.#f())
            }
            "sync_threads" => {
                let id = self.barriers.len() as u32;
                self.barriers.push(call.span());
                syn::parse_quote_spanned!(span=> #ctx.sync_threads(#id).await)
            }
            "thread_fence" => syn::parse_quote_spanned!(span=> ::ongpu::__private::thread_fence()),
            atomic => {
                let f = Ident::new(atomic, span);
                let mut args: Vec<Expr> = call.args.iter().cloned().collect();
                let target = match args.first() {
                    Some(Expr::Reference(r)) => self.array_place(&r.expr),
                    _ => None,
                };
                for a in args.iter_mut().skip(1) {
                    self.visit_expr_mut(a);
                }
                let place = target.expect("the analysis checked the atomic's target");
                let root = &place.root;
                let indices = &place.indices;
                let rest = &args[1..];
                syn::parse_quote_spanned!(span=>
                    ::ongpu::__private::#f(#root.at(#(#indices),*), #(#rest),*))
            }
        }
    }
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let span = e.span();
        if let Some((name, _)) = intrinsic_call(e) {
            let Expr::Call(call) = e else { unreachable!() };
            *e = self.intrinsic(&name, call);
            return;
        }
        match e {
            Expr::Assign(a) => {
                if let Some(place) = self.array_place(&a.left) {
                    self.visit_expr_mut(&mut a.right);
                    *e = self.store(place, quote!(=), &a.right, span);
                    return;
                }
            }
            Expr::Binary(b) if crate::supported::is_compound_assign(&b.op) => {
                if let Some(place) = self.array_place(&b.left) {
                    self.visit_expr_mut(&mut b.right);
                    let op = &b.op;
                    *e = self.store(place, quote!(#op), &b.right, span);
                    return;
                }
            }
            _ => {}
        }
        if let Some((root, _)) = index_chain(e) {
            if let Some(a) = self.array(root) {
                let root = root.clone();
                let Some(place) = self.array_place(e) else {
                    unreachable!("an index chain rooted at an array")
                };
                let indices = &place.indices;
                let mut out: Expr = syn::parse_quote_spanned!(span=> #root.load(#(#indices),*));
                for p in place.rest {
                    let Projection::Index(i) = p else {
                        unreachable!("a read access has only indices after the array's")
                    };
                    out = syn::parse_quote_spanned!(span=> #out[#i]);
                }
                debug_assert!(a.rank() >= 1);
                *e = out;
                return;
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn rewritten(sig: &str, body: &str) -> String {
        let f: syn::ItemFn = syn::parse_str(&format!("{sig} {body}")).unwrap();
        let params = super::super::signature::params(&f).unwrap();
        let body = crate::ir::lower(&f.block, crate::ir::Context::Kernel).unwrap();
        let an = super::super::analysis::analyse(&body, &params).unwrap();
        let r = rewrite(&f.block, &an, &Hidden::new());
        r.block.to_token_stream().to_string()
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
