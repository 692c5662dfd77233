//! A read-only walk of the tree, for passes that look at a few constructs and go through
//! the rest: each method visits a node's children in source order (as `syn::visit` does),
//! and an implementation overrides the nodes it cares about, calling the `walk_*` function
//! to go on into the children.

use super::{Block, Else, Expr, If, Let, Stmt};

/// A walk of the tree; every default method goes into the children.
pub trait Visit {
    /// A block.
    fn visit_block(&mut self, b: &Block) {
        walk_block(self, b);
    }

    /// A statement.
    fn visit_stmt(&mut self, s: &Stmt) {
        walk_stmt(self, s);
    }

    /// A `let`.
    fn visit_let(&mut self, l: &Let) {
        walk_let(self, l);
    }

    /// An expression.
    fn visit_expr(&mut self, e: &Expr) {
        walk_expr(self, e);
    }
}

/// The statements of `b`.
pub fn walk_block<V: Visit + ?Sized>(v: &mut V, b: &Block) {
    for s in &b.stmts {
        v.visit_stmt(s);
    }
}

/// The parts of `s`.
pub fn walk_stmt<V: Visit + ?Sized>(v: &mut V, s: &Stmt) {
    match s {
        Stmt::Let(l) => v.visit_let(l),
        Stmt::Expr(e, _) => v.visit_expr(e),
    }
}

/// The value of `l`.
pub fn walk_let<V: Visit + ?Sized>(v: &mut V, l: &Let) {
    if let Some((_, e)) = &l.init {
        v.visit_expr(e);
    }
}

/// The sub-expressions and blocks of `e`, in source order.
pub fn walk_expr<V: Visit + ?Sized>(v: &mut V, e: &Expr) {
    match e {
        Expr::Lit(_)
        | Expr::Var(_)
        | Expr::Const(..)
        | Expr::Break(_)
        | Expr::Continue(_)
        | Expr::Shared(_) => {}
        Expr::Paren(_, x)
        | Expr::Group(_, x)
        | Expr::Unary(_, x)
        | Expr::Cast(x, ..)
        | Expr::Field(x, ..)
        | Expr::Len(x, ..)
        | Expr::RefMut(_, _, x)
        | Expr::Borrow(_, _, x) => v.visit_expr(x),
        Expr::Binary(l, _, r)
        | Expr::Assign(l, _, r)
        | Expr::Index(l, _, r)
        | Expr::Repeat(_, l, _, r) => {
            v.visit_expr(l);
            v.visit_expr(r);
        }
        Expr::Method(m) => {
            v.visit_expr(&m.receiver);
            m.args.iter().for_each(|a| v.visit_expr(a));
        }
        Expr::Shift(s) => {
            for h in &s.hops {
                v.visit_expr(&h.mu);
                v.visit_expr(&h.k);
            }
        }
        Expr::Call(c) => c.args.iter().for_each(|a| v.visit_expr(a)),
        Expr::Print(p) => p.args.iter().for_each(|a| v.visit_expr(a)),
        Expr::Array(_, elems) => elems.iter().for_each(|a| v.visit_expr(a)),
        Expr::If(i) => walk_if(v, i),
        Expr::For(f) => {
            v.visit_expr(&f.start);
            v.visit_expr(&f.end);
            v.visit_block(&f.body);
        }
        Expr::While(_, cond, body) => {
            v.visit_expr(cond);
            v.visit_block(body);
        }
        Expr::Loop(_, body) | Expr::Block(body) => v.visit_block(body),
        Expr::Return(_, x) => {
            if let Some(x) = x {
                v.visit_expr(x);
            }
        }
    }
}

/// The condition and branches of `i`.
fn walk_if<V: Visit + ?Sized>(v: &mut V, i: &If) {
    v.visit_expr(&i.cond);
    v.visit_block(&i.then_branch);
    match i.else_branch.as_ref().map(|(_, e)| &**e) {
        Some(Else::Block(b)) => v.visit_block(b),
        Some(Else::If(i)) => walk_if(v, i),
        None => {}
    }
}
