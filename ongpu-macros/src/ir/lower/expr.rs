//! Operators, literals, names, places, casts, and the constructs that are refused.

use super::{boxed, not_supported, Context, Lowerer};
use crate::ir::Expr;
use crate::supported;
use syn::spanned::Spanned;
use syn::{Lit, UnOp};

/// Where local arrays are.
const LOCAL_ARRAYS: &str = "an array (local arrays such as `[0.0f32; 8]` are for \
#[ongpu::kernel] and #[ongpu::device] functions)";

impl Lowerer {
    /// Any expression.
    pub(super) fn expr(&mut self, e: &syn::Expr) -> Option<Expr> {
        match e {
            syn::Expr::Assign(a) => self.assign(a),
            syn::Expr::Binary(b) => self.binary(b),
            syn::Expr::Unary(u) => self.unary(u),
            syn::Expr::Lit(l) => self.lit(l),
            syn::Expr::Path(p) => self.path(p),
            syn::Expr::Call(c) => self.call(c),
            syn::Expr::MethodCall(m) => self.method_call(m),
            syn::Expr::Field(f) => {
                let name = self.field_name(f);
                let base = self.expr(&f.base);
                Some(Expr::Field(Box::new(base?), f.dot_token, name?))
            }
            syn::Expr::Index(i) => {
                let base = self.expr(&i.expr);
                let index = self.expr(&i.index);
                Some(Expr::Index(boxed(base)?, i.bracket_token, boxed(index)?))
            }
            syn::Expr::Paren(p) => Some(Expr::Paren(p.paren_token, boxed(self.expr(&p.expr))?)),
            syn::Expr::Group(g) => Some(Expr::Group(g.group_token, boxed(self.expr(&g.expr))?)),
            syn::Expr::Cast(c) => self.cast(c),
            syn::Expr::If(i) => self.if_expr(i).map(Expr::If),
            syn::Expr::ForLoop(f) => self.for_loop(f),
            syn::Expr::Block(b) => self.block_expr(b),
            syn::Expr::While(w) => self.while_loop(w),
            syn::Expr::Loop(l) => self.loop_expr(l),
            syn::Expr::Break(b) => self.break_expr(b),
            syn::Expr::Continue(c) => self.continue_expr(c),
            syn::Expr::Return(r) => self.return_expr(r),
            syn::Expr::Reference(r) if self.ctx == Context::Kernel && r.mutability.is_some() => {
                let place = self.place(&r.expr)?;
                let mutability = r.mutability.expect("checked");
                Some(Expr::RefMut(r.and_token, mutability, Box::new(place)))
            }
            syn::Expr::Macro(m) if self.ctx == Context::Kernel && m.mac.path.is_ident("shared") => {
                Some(Expr::Shared(m.mac.clone()))
            }
            syn::Expr::Macro(m) => self.macro_call(&m.mac),
            syn::Expr::Array(a) if self.ctx != Context::OnGpu && !a.elems.is_empty() => {
                let elems = self.each(&a.elems, Self::expr);
                Some(Expr::Array(a.bracket_token, elems?))
            }
            syn::Expr::Repeat(r) if self.ctx != Context::OnGpu => {
                let value = self.expr(&r.expr);
                let len = self.expr(&r.len);
                Some(Expr::Repeat(
                    r.bracket_token,
                    boxed(value)?,
                    r.semi_token,
                    boxed(len)?,
                ))
            }
            other => {
                self.refuse(other);
                None
            }
        }
    }

    /// The constructs outside the body language, each with what to do instead.
    fn refuse(&mut self, e: &syn::Expr) {
        let (span, what) = match e {
            syn::Expr::Closure(c) => (
                c.span(),
                "a closure (move the code into a function marked #[ongpu::device])",
            ),
            syn::Expr::Match(m) => (m.match_token.span, "`match` (use if/else)"),
            syn::Expr::Reference(r) => (r.span(), "taking a reference (pass values, not `&x`)"),
            syn::Expr::Struct(s) => (
                s.span(),
                "a struct literal (build values with Complex::new, ColorMatrix::identity, ...)",
            ),
            syn::Expr::Tuple(t) => (t.span(), "a tuple"),
            syn::Expr::Array(a) if !a.elems.is_empty() => (a.span(), LOCAL_ARRAYS),
            syn::Expr::Array(a) => (a.span(), "an empty array"),
            syn::Expr::Repeat(r) => (r.span(), LOCAL_ARRAYS),
            syn::Expr::Range(r) => (r.span(), "a range outside `for k in a..b`"),
            syn::Expr::Try(t) => (t.span(), "the `?` operator"),
            syn::Expr::Unsafe(u) => (u.unsafe_token.span, "an `unsafe` block"),
            syn::Expr::Let(l) => (l.span(), "`if let`/`while let` (use plain conditions)"),
            other => (other.span(), "this expression"),
        };
        self.error(span, not_supported(what));
    }

    fn assign(&mut self, a: &syn::ExprAssign) -> Option<Expr> {
        let left = self.place(&a.left);
        let right = self.expr(&a.right);
        Some(Expr::Assign(boxed(left)?, a.eq_token, boxed(right)?))
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Option<Expr> {
        let left = if supported::is_compound_assign(&b.op) {
            self.place(&b.left)
        } else {
            self.expr(&b.left)
        };
        let right = self.expr(&b.right);
        Some(Expr::Binary(boxed(left)?, b.op, boxed(right)?))
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Option<Expr> {
        match u.op {
            UnOp::Neg(_) | UnOp::Not(_) => Some(Expr::Unary(u.op, boxed(self.expr(&u.expr))?)),
            _ => {
                self.error(
                    u.span(),
                    not_supported("dereferencing (`*x`): captures and locals are values"),
                );
                None
            }
        }
    }

    fn lit(&mut self, l: &syn::ExprLit) -> Option<Expr> {
        let suffix_ok = match &l.lit {
            Lit::Int(i) => supported::INT_SUFFIXES.contains(&i.suffix()),
            Lit::Float(f) => supported::FLOAT_SUFFIXES.contains(&f.suffix()),
            Lit::Bool(_) => true,
            other => {
                self.error(
                    other.span(),
                    not_supported("this literal (only numbers and bools)"),
                );
                return None;
            }
        };
        if !suffix_ok {
            self.error(l.span(), supported::BODY_LANGUAGE);
            return None;
        }
        Some(Expr::Lit(l.lit.clone()))
    }

    fn path(&mut self, p: &syn::ExprPath) -> Option<Expr> {
        if p.qself.is_some() {
            self.error(
                p.span(),
                not_supported("a qualified path `<T as Trait>::...`"),
            );
            return None;
        }
        if let Some(id) = p.path.get_ident() {
            return Some(Expr::Var(id.clone()));
        }
        match supported::constant_path(&p.path) {
            Some(value) => Some(Expr::Const(p.path.clone(), value)),
            None => {
                self.error(
                    p.span(),
                    "this path is not supported; a GPU body can name locals, captures and the constants \
                     f32::MAX/MIN/EPSILON/INFINITY/NAN, i32::MAX, ..., and std::f64::consts::PI, E, TAU, ... \
                     (bind other values to a local before the call)",
                );
                None
            }
        }
    }

    fn cast(&mut self, c: &syn::ExprCast) -> Option<Expr> {
        let e = self.expr(&c.expr);
        // `bool` is a type of the body language, but not a cast target (nor is it in Rust).
        match crate::types::scalar_name(&c.ty).filter(|&t| t != "bool") {
            Some(t) => Some(Expr::Cast(boxed(e)?, c.as_token, (*c.ty).clone(), t)),
            None if crate::types::type_param(&c.ty, &self.type_params).is_some() => {
                let t = &c.ty;
                self.error(
                    t.span(),
                    format!(
                        "`as` cannot convert to the type parameter `{}` (Rust has no such cast): \
                         take the value as a parameter of type `{0}` instead (unsuffixed float \
                         literals are `{0}`s already)",
                        quote::quote!(#t)
                    ),
                );
                None
            }
            None => {
                self.error(
                    c.ty.span(),
                    format!(
                        "`as` casts are supported to the number types only ({})",
                        supported::cast_targets()
                    ),
                );
                None
            }
        }
    }

    /// An expression that is assigned to: a name, `m[i][j]`, or `z.re`.
    pub(super) fn place(&mut self, e: &syn::Expr) -> Option<Expr> {
        match e {
            syn::Expr::Path(p) if p.path.get_ident().is_some() && p.qself.is_none() => {
                Some(Expr::Var(p.path.get_ident().expect("checked").clone()))
            }
            syn::Expr::Index(i) => {
                let base = self.place(&i.expr);
                let index = self.expr(&i.index);
                Some(Expr::Index(boxed(base)?, i.bracket_token, boxed(index)?))
            }
            syn::Expr::Field(f) => {
                let name = self.field_name(f);
                let base = self.place(&f.base);
                Some(Expr::Field(boxed(base)?, f.dot_token, name?))
            }
            syn::Expr::Paren(p) => Some(Expr::Paren(p.paren_token, boxed(self.place(&p.expr))?)),
            other => {
                self.error(
                    other.span(),
                    "this cannot be assigned to; assign a name (`x = ...`), an entry (`m[i][j] = ...`) or a part (`z.re = ...`)",
                );
                None
            }
        }
    }

    fn field_name(&mut self, f: &syn::ExprField) -> Option<syn::Ident> {
        match &f.member {
            syn::Member::Named(n) if supported::FIELDS.contains(&n.to_string().as_str()) => {
                Some(n.clone())
            }
            // The coordinates of `thread_idx()` and friends (outside kernels the call itself
            // is the error).
            syn::Member::Named(n)
                if matches!(n.to_string().as_str(), "x" | "y" | "z")
                    && (self.ctx == Context::Kernel || is_intrinsic_call(&f.base)) =>
            {
                Some(n.clone())
            }
            m => {
                self.error(
                    m.span(),
                    "this field is not supported in a GPU body: a Complex has the fields .re and .im; \
                     reach the entries of a ColorMatrix as m[i][j], of a ColorVector as v[i] and of \
                     an element array as u[mu]",
                );
                None
            }
        }
    }
}

/// True for a call of a kernel intrinsic (`thread_idx()`).
fn is_intrinsic_call(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p)
        if p.path.get_ident().is_some_and(|i| supported::kernel_intrinsic(&i.to_string()).is_some())))
}
