//! Control flow: `if`, `for`, blocks, and the loops and jumps of functions and kernels.

use super::{boxed, not_supported, Lowerer};
use crate::ir::{Else, Expr, For, If};
use syn::spanned::Spanned;

impl Lowerer {
    pub(super) fn if_expr(&mut self, i: &syn::ExprIf) -> Option<If> {
        let cond = self.expr(&i.cond);
        let then_branch = self.block(&i.then_branch);
        let else_branch = match &i.else_branch {
            Some((else_token, e)) => {
                let e = match self.expr(e)? {
                    Expr::Block(b) => Else::Block(b),
                    Expr::If(i) => Else::If(i),
                    _ => unreachable!("`else` is followed by a block or an `if`"),
                };
                Some((*else_token, Box::new(e)))
            }
            None => None,
        };
        Some(If {
            if_token: i.if_token,
            cond: boxed(cond)?,
            then_branch: then_branch?,
            else_branch,
        })
    }

    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) -> Option<Expr> {
        let label = self.no_label(&f.label);
        let binding = self.binding(&f.pat);
        let range = match &*f.expr {
            syn::Expr::Range(r) if r.start.is_some() && r.end.is_some() => {
                let start = self.expr(r.start.as_ref().expect("checked"));
                let end = self.expr(r.end.as_ref().expect("checked"));
                Some((start, r.limits, end))
            }
            other => {
                self.error(
                    other.span(),
                    "a `for` loop runs over a range with both ends: `for k in a..b` or `for k in a..=b`",
                );
                None
            }
        };
        let body = self.block(&f.body);
        label?;
        let (start, limits, end) = range?;
        Some(Expr::For(For {
            for_token: f.for_token,
            binding: binding?,
            in_token: f.in_token,
            start: boxed(start)?,
            limits,
            end: boxed(end)?,
            body: body?,
        }))
    }

    /// `Some` if there is no loop label.
    fn no_label(&mut self, label: &Option<syn::Label>) -> Option<()> {
        match label {
            Some(l) => {
                self.error(l.span(), not_supported("a loop label"));
                None
            }
            None => Some(()),
        }
    }

    pub(super) fn block_expr(&mut self, b: &syn::ExprBlock) -> Option<Expr> {
        if let Some(l) = &b.label {
            self.error(l.span(), not_supported("a block label"));
        }
        let block = self.block(&b.block);
        b.label.is_none().then_some(())?;
        Some(Expr::Block(block?))
    }

    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile) -> Option<Expr> {
        if !self.control(w.while_token.span, "`while`") {
            return None;
        }
        let label = self.no_label(&w.label);
        let cond = self.expr(&w.cond);
        let body = self.block(&w.body);
        label?;
        Some(Expr::While(w.while_token, boxed(cond)?, body?))
    }

    pub(super) fn loop_expr(&mut self, l: &syn::ExprLoop) -> Option<Expr> {
        if !self.control(l.loop_token.span, "`loop`") {
            return None;
        }
        let label = self.no_label(&l.label);
        let body = self.block(&l.body);
        label?;
        Some(Expr::Loop(l.loop_token, body?))
    }

    pub(super) fn break_expr(&mut self, b: &syn::ExprBreak) -> Option<Expr> {
        if !self.control(b.break_token.span, "`break`") {
            return None;
        }
        if b.label.is_some() || b.expr.is_some() {
            self.error(b.span(), not_supported("`break` with a label or a value"));
            return None;
        }
        Some(Expr::Break(b.break_token))
    }

    pub(super) fn continue_expr(&mut self, c: &syn::ExprContinue) -> Option<Expr> {
        if !self.control(c.continue_token.span, "`continue`") {
            return None;
        }
        if c.label.is_some() {
            self.error(c.span(), not_supported("`continue` with a label"));
            return None;
        }
        Some(Expr::Continue(c.continue_token))
    }

    pub(super) fn return_expr(&mut self, r: &syn::ExprReturn) -> Option<Expr> {
        if !self.control(r.return_token.span, "`return`") {
            return None;
        }
        let value = match &r.expr {
            Some(e) => Some(Box::new(self.expr(e)?)),
            None => None,
        };
        Some(Expr::Return(r.return_token, value))
    }
}
