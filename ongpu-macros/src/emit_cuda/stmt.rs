//! Statements: `let`, expression statements, and `if`/`for`/`while`/`loop`/blocks in
//! statement position (where they need no value).

use super::lit::Partner;
use super::{Tail, Translator};
use crate::ir::{Block, Else, Expr, For, Stmt};
use crate::types as ty;
use syn::RangeLimits;

impl Translator {
    /// The statements of `block`, in the current scope.
    pub(super) fn stmts(&mut self, block: &Block, tail: Tail) {
        let n = block.stmts.len();
        for (k, s) in block.stmts.iter().enumerate() {
            let is_tail = k + 1 == n && matches!(s, Stmt::Expr(_, None));
            self.stmt(s, if is_tail { tail } else { Tail::Discard });
        }
    }

    /// `{ statements }` in a new scope.
    pub(super) fn scoped_block(&mut self, block: &Block, tail: Tail) {
        self.push_scope();
        self.indent += 1;
        self.stmts(block, tail);
        self.indent -= 1;
        self.pop_scope();
    }

    fn stmt(&mut self, s: &Stmt, tail: Tail) {
        match s {
            Stmt::Let(l) if self.kernel_local(l) => {}
            Stmt::Let(l) => {
                let cty = match &l.ty {
                    Some((_, t)) => ty::cuda_type(t, &self.real).expect("the type was checked"),
                    None => "auto".to_string(),
                };
                let partner = if cty == "auto" {
                    Partner::None
                } else {
                    Partner::Type(cty.clone())
                };
                let init = l.init.as_ref().map(|(_, e)| self.expr_like(e, &partner));
                let name = self.bind(&l.binding.ident);
                match init {
                    Some(v) => self.line(&format!("{cty} {name} = {v};")),
                    None => self.line(&format!("{cty} {name};")),
                }
            }
            Stmt::Expr(e, _) => self.expr_stmt(e, tail),
        }
    }

    /// An expression in statement position; `tail` says whether its value is returned.
    pub(super) fn expr_stmt(&mut self, e: &Expr, tail: Tail) {
        match e {
            Expr::If(i) => {
                let mut head = format!("if ({}) {{", self.expr(&i.cond));
                let mut branch = i;
                loop {
                    self.line(&head);
                    self.scoped_block(&branch.then_branch, tail);
                    match branch.else_branch.as_ref().map(|(_, e)| &**e) {
                        None => {
                            self.line("}");
                            return;
                        }
                        Some(Else::If(next)) => {
                            head = format!("}} else if ({}) {{", self.expr(&next.cond));
                            branch = next;
                        }
                        Some(Else::Block(b)) => {
                            self.line("} else {");
                            self.scoped_block(b, tail);
                            self.line("}");
                            return;
                        }
                    }
                }
            }
            Expr::For(f) => self.for_loop(f),
            Expr::While(_, cond, body) => {
                let cond = self.expr(cond);
                self.line(&format!("while ({cond}) {{"));
                self.scoped_block(body, Tail::Discard);
                self.line("}");
            }
            Expr::Loop(_, body) => {
                self.line("while (true) {");
                self.scoped_block(body, Tail::Discard);
                self.line("}");
            }
            Expr::Block(b) => {
                self.line("{");
                self.scoped_block(b, tail);
                self.line("}");
            }
            Expr::Break(_) => self.line("break;"),
            Expr::Continue(_) => self.line("continue;"),
            Expr::Return(_, value) => match value {
                Some(v) => {
                    let v = self.expr_like(v, &self.returns.clone());
                    self.line(&format!("return {v};"));
                }
                None => self.line("return;"),
            },
            Expr::Assign(l, _, r) => {
                let l = self.expr(l);
                let r = self.expr_like(r, &Partner::Expr(l.clone()));
                self.line(&format!("{l} = {r};"));
            }
            other => match tail {
                Tail::Return => {
                    let v = self.expr_like(other, &self.returns.clone());
                    self.line(&format!("return {v};"));
                }
                Tail::Discard => {
                    let v = self.expr(other);
                    self.line(&format!("{};", strip_parens(&v)));
                }
            },
        }
    }

    fn for_loop(&mut self, f: &For) {
        let (a, b) = (self.expr(&f.start), self.expr(&f.end));
        let id = &f.binding.ident;
        let mutable = f.binding.mutability.is_some();
        let ty = format!("decltype(({a}) + ({b}))");
        self.push_scope();
        match f.limits {
            RangeLimits::HalfOpen(_) if !mutable => {
                let end = self.temp("ongpu_end");
                let k = self.bind(id);
                // Fully unrolled when the bounds are constants (after the loops around it are
                // unrolled): then `u[mu]` of a local element array stays in registers.
                self.line("#pragma unroll");
                self.line(&format!(
                    "for ({ty} {k} = {a}, {end} = {b}; {k} < {end}; ++{k}) {{"
                ));
            }
            limits => {
                // `a..=b` must stop after `b` even when `b` is the type's maximum, and a `mut`
                // loop variable is a copy: iterate a hidden counter and bind the name to it.
                let (it, end, go) = (
                    self.temp("ongpu_it"),
                    self.temp("ongpu_end"),
                    self.temp("ongpu_go"),
                );
                self.line("{");
                self.indent += 1;
                self.line(&format!("{ty} {it} = {a};"));
                self.line(&format!("const {ty} {end} = {b};"));
                let (cmp, step) = match limits {
                    RangeLimits::Closed(_) => ("<=", format!("{it} != {end} && (++{it}, true)")),
                    RangeLimits::HalfOpen(_) => ("<", format!("++{it} < {end}")),
                };
                self.line(&format!(
                    "for (bool {go} = {it} {cmp} {end}; {go}; {go} = {step}) {{"
                ));
                let k = self.bind(id);
                self.indent += 1;
                let constness = if mutable { "" } else { "const " };
                self.line(&format!("{constness}{ty} {k} = {it};"));
                self.indent -= 1;
            }
        }
        self.indent += 1;
        self.stmts(&f.body, Tail::Discard);
        self.indent -= 1;
        self.pop_scope();
        self.line("}");
        if !matches!(f.limits, RangeLimits::HalfOpen(_)) || mutable {
            self.indent -= 1;
            self.line("}");
        }
    }
}

/// `(a = b)` → `a = b`, for statements.
fn strip_parens(s: &str) -> &str {
    if s.starts_with('(') && s.ends_with(')') && balanced(&s[1..s.len() - 1]) {
        &s[1..s.len() - 1]
    } else {
        s
    }
}

fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}
