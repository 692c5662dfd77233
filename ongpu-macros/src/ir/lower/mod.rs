//! The checker that builds the tree: every construct outside the supported subset is a
//! compile error at its own span, naming what is supported, and every error of a body is
//! reported at once. The later passes read only the tree, so they cannot meet an
//! unsupported construct.

mod call;
mod control;
mod expr;
mod print;

use super::{Binding, Block, Body, Let, Stmt};
use crate::supported::BODY_LANGUAGE;
use std::collections::BTreeSet;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Pat, Type};

/// Where a block of the body language appears; explicit kernels and device functions allow
/// more control flow than element-wise bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// An `on_gpu!` body: every site runs it to the end.
    OnGpu,
    /// An `#[ongpu::device]` function: `while`, `loop`, `break`, `continue` and `return`
    /// are allowed too.
    Function,
    /// An `#[ongpu::kernel]` body: `Function`'s control flow, plus the kernel intrinsics
    /// (`thread_idx()`, `sync_threads()`, atomics, ...), `shared!` arrays, `.x .y .z`,
    /// `.len()` and `&mut a[i]` (whose placement the kernel analysis checks).
    Kernel,
}

/// Checks `block` and builds its tree, or returns every unsupported construct.
pub fn lower(block: &syn::Block, ctx: Context) -> syn::Result<Body> {
    lower_generic(block, ctx, &[])
}

/// [`lower`] for the body of a generic device function, whose types may name
/// `type_params` (Rust name, C++ name).
pub fn lower_generic(
    block: &syn::Block,
    ctx: Context,
    type_params: &crate::types::TypeParams,
) -> syn::Result<Body> {
    let mut l = Lowerer {
        ctx,
        type_params: type_params.to_vec(),
        errors: None,
        prints: 0,
    };
    let lowered = l.block(block);
    match (l.errors, lowered) {
        (None, Some(lowered)) => {
            let mut names = Names(BTreeSet::new());
            names.visit_block(block);
            Ok(Body {
                block: lowered,
                names: names.0,
                type_params: l.type_params,
            })
        }
        (Some(e), _) => Err(e),
        (None, None) => unreachable!("a construct was dropped without an error"),
    }
}

/// The identifiers of a body.
struct Names(BTreeSet<String>);
impl<'ast> Visit<'ast> for Names {
    fn visit_ident(&mut self, i: &'ast syn::Ident) {
        self.0.insert(i.to_string());
    }
}

/// The message for an unsupported construct: `what (hint)` says what it is and what to do.
fn not_supported(what: &str) -> String {
    match what.split_once(" (") {
        Some((thing, hint)) => {
            format!("{thing} is not supported in a GPU body ({hint}; {BODY_LANGUAGE}")
        }
        None => format!("{what} is not supported in a GPU body; {BODY_LANGUAGE}"),
    }
}

/// The lowering of one body. Each method returns the node, or `None` after recording why
/// not; it still goes through the children, so that their errors are reported too.
struct Lowerer {
    ctx: Context,
    /// The type parameters in scope (Rust name, C++ name).
    type_params: Vec<(String, String)>,
    errors: Option<syn::Error>,
    /// The prints numbered so far.
    prints: u32,
}

impl Lowerer {
    fn error(&mut self, span: proc_macro2::Span, msg: impl std::fmt::Display) {
        let e = syn::Error::new(span, msg);
        match &mut self.errors {
            Some(all) => all.combine(e),
            None => self.errors = Some(e),
        }
    }

    fn block(&mut self, b: &syn::Block) -> Option<Block> {
        let stmts: Vec<Option<Stmt>> = b.stmts.iter().map(|s| self.stmt(s)).collect();
        Some(Block {
            brace: b.brace_token,
            stmts: stmts.into_iter().collect::<Option<_>>()?,
        })
    }

    fn stmt(&mut self, s: &syn::Stmt) -> Option<Stmt> {
        match s {
            syn::Stmt::Local(l) => self.local(l).map(Stmt::Let),
            syn::Stmt::Item(i) => {
                self.error(
                    i.span(),
                    "items (fn, struct, use, const, ...) cannot be declared inside a GPU body; declare them \
                     outside (functions with #[ongpu::device])",
                );
                None
            }
            syn::Stmt::Macro(m) => Some(Stmt::Expr(self.macro_call(&m.mac)?, m.semi_token)),
            syn::Stmt::Expr(e, semi) => Some(Stmt::Expr(self.expr(e)?, *semi)),
        }
    }

    fn local(&mut self, l: &syn::Local) -> Option<Let> {
        let init = l.init.as_ref().map(|init| {
            if let Some((_, diverge)) = &init.diverge {
                self.error(diverge.span(), not_supported("`let ... else`"));
            }
            let e = self.expr(&init.expr);
            (init.eq_token, e, init.diverge.is_none())
        });
        let (binding, ty) = match &l.pat {
            Pat::Type(t) => {
                let b = self.binding(&t.pat);
                let ok = self.ty(&t.ty);
                (b, Some((t.colon_token, (*t.ty).clone(), ok)))
            }
            p => (self.binding(p), None),
        };
        if l.init.is_none() && ty.is_none() {
            self.error(
                l.span(),
                "a `let` without a value needs a type: `let x: f32;`",
            );
        }
        if let (None, Some((_, Type::Array(a), _))) = (&l.init, &ty) {
            self.error(
                a.span(),
                "a local array needs a value: `let mut acc = [0.0f32; 8];`",
            );
        }
        let init = match init {
            Some((eq, Some(e), true)) => Some((eq, e)),
            Some(_) => return None,
            None => None,
        };
        let ty = match ty {
            Some((colon, ty, true)) => Some((colon, ty)),
            Some(_) => return None,
            None => None,
        };
        Some(Let {
            attrs: l.attrs.clone(),
            let_token: l.let_token,
            binding: binding?,
            ty,
            init,
            semi: l.semi_token,
        })
    }

    /// A binding pattern: a plain name, optionally `mut`.
    fn binding(&mut self, p: &Pat) -> Option<Binding> {
        match p {
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => Some(Binding {
                mutability: i.mutability,
                ident: i.ident.clone(),
            }),
            p => {
                self.error(
                    p.span(),
                    "only plain names can be bound here (`let x`, `let mut x`); destructuring patterns are not supported",
                );
                None
            }
        }
    }

    /// A declared type; true if the body language has it (arrays `[T; N]` in device
    /// functions and kernels).
    fn ty(&mut self, t: &Type) -> bool {
        if let Type::Array(a) = t {
            if self.ctx != Context::OnGpu {
                return self.ty(&a.elem);
            }
        }
        if crate::types::cuda_type_in(t, "ongpu_real", &self.type_params).is_err() {
            let generic = match self.type_params.first() {
                Some((p, _)) => format!(", and the type parameter `{p}` (Complex<{p}>, ...)"),
                None => String::new(),
            };
            self.error(
                t.span(),
                format!(
                    "unsupported type; types in a GPU body are f32 f64 i8 i16 i32 i64 isize u8 u16 \
                     u32 u64 usize bool, Complex<f32|f64>, ColorVector<f32|f64> and \
                     ColorMatrix<f32|f64>{generic}"
                ),
            );
            false
        } else {
            true
        }
    }

    /// Control flow that only functions and kernels have; false (after the error) in an
    /// `on_gpu!` body.
    fn control(&mut self, span: proc_macro2::Span, what: &str) -> bool {
        if self.ctx == Context::OnGpu {
            self.error(
                span,
                format!(
                    "{what} is not supported in an on_gpu! body: every site runs the body to its end, so its \
                     loops are `for k in a..b` and its branches `if`/`else` (explicit #[ongpu::kernel] functions \
                     allow while, loop, break, continue and return)"
                ),
            );
            false
        } else {
            true
        }
    }
}

/// Boxes a lowered child.
fn boxed(e: Option<super::Expr>) -> Option<Box<super::Expr>> {
    e.map(Box::new)
}
