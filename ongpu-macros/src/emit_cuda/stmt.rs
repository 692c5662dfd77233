//! Statements: `let`, expression statements, and `if`/`for`/`while`/`loop`/blocks in
//! statement position (where they need no value).

use super::lit::Partner;
use super::{Tail, Translator};
use crate::captures::binding_ident;
use crate::types as ty;
use syn::spanned::Spanned;
use syn::{Block, Expr, Pat, RangeLimits, Stmt};

fn unsupported(span: proc_macro2::Span) -> syn::Error {
    syn::Error::new(span, crate::supported::BODY_LANGUAGE)
}

impl Translator {
    /// The statements of `block`, in the current scope.
    pub(super) fn stmts(&mut self, block: &Block, tail: Tail) -> syn::Result<()> {
        let n = block.stmts.len();
        for (k, s) in block.stmts.iter().enumerate() {
            let is_tail = k + 1 == n && matches!(s, Stmt::Expr(_, None));
            self.stmt(s, if is_tail { tail } else { Tail::Discard })?;
        }
        Ok(())
    }

    /// `{ statements }` in a new scope.
    pub(super) fn scoped_block(&mut self, block: &Block, tail: Tail) -> syn::Result<()> {
        self.push_scope();
        self.indent += 1;
        let r = self.stmts(block, tail);
        self.indent -= 1;
        self.pop_scope();
        r
    }

    fn stmt(&mut self, s: &Stmt, tail: Tail) -> syn::Result<()> {
        match s {
            Stmt::Local(l) if self.kernel_local(l)? => Ok(()),
            Stmt::Local(l) => {
                let cty = match &l.pat {
                    Pat::Type(t) => {
                        ty::cuda_type(&t.ty, &self.real).map_err(|()| unsupported(t.ty.span()))?
                    }
                    _ => "auto".to_string(),
                };
                let partner = if cty == "auto" {
                    Partner::None
                } else {
                    Partner::Type(cty.clone())
                };
                let init = match &l.init {
                    Some(i) => Some(self.expr_like(&i.expr, &partner)?),
                    None => None,
                };
                let id = binding_ident(&l.pat).ok_or_else(|| unsupported(l.pat.span()))?;
                let name = self.bind(id);
                match init {
                    Some(v) => self.line(&format!("{cty} {name} = {v};")),
                    None => self.line(&format!("{cty} {name};")),
                }
                Ok(())
            }
            Stmt::Expr(e, _) => self.expr_stmt(e, tail),
            Stmt::Item(i) => Err(unsupported(i.span())),
            Stmt::Macro(m) => Err(unsupported(m.span())),
        }
    }

    /// An expression in statement position; `tail` says whether its value is returned.
    pub(super) fn expr_stmt(&mut self, e: &Expr, tail: Tail) -> syn::Result<()> {
        match e {
            Expr::If(i) => {
                let mut head = format!("if ({}) {{", self.expr(&i.cond)?);
                let mut branch = i;
                loop {
                    self.line(&head);
                    self.scoped_block(&branch.then_branch, tail)?;
                    match branch.else_branch.as_ref().map(|(_, e)| &**e) {
                        None => {
                            self.line("}");
                            return Ok(());
                        }
                        Some(Expr::If(next)) => {
                            head = format!("}} else if ({}) {{", self.expr(&next.cond)?);
                            branch = next;
                        }
                        Some(Expr::Block(b)) => {
                            self.line("} else {");
                            self.scoped_block(&b.block, tail)?;
                            self.line("}");
                            return Ok(());
                        }
                        Some(other) => return Err(unsupported(other.span())),
                    }
                }
            }
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::While(w) => {
                let cond = self.expr(&w.cond)?;
                self.line(&format!("while ({cond}) {{"));
                self.scoped_block(&w.body, Tail::Discard)?;
                self.line("}");
                Ok(())
            }
            Expr::Loop(l) => {
                self.line("while (true) {");
                self.scoped_block(&l.body, Tail::Discard)?;
                self.line("}");
                Ok(())
            }
            Expr::Block(b) => {
                self.line("{");
                self.scoped_block(&b.block, tail)?;
                self.line("}");
                Ok(())
            }
            Expr::Break(_) => {
                self.line("break;");
                Ok(())
            }
            Expr::Continue(_) => {
                self.line("continue;");
                Ok(())
            }
            Expr::Return(r) => {
                match &r.expr {
                    Some(v) => {
                        let v = self.expr_like(v, &self.returns.clone())?;
                        self.line(&format!("return {v};"));
                    }
                    None => self.line("return;"),
                }
                Ok(())
            }
            Expr::Assign(a) => {
                let l = self.expr(&a.left)?;
                let r = self.expr_like(&a.right, &Partner::Expr(l.clone()))?;
                self.line(&format!("{l} = {r};"));
                Ok(())
            }
            other => {
                let v = match tail {
                    Tail::Return => self.expr_like(other, &self.returns.clone())?,
                    Tail::Discard => self.expr(other)?,
                };
                match tail {
                    Tail::Return => self.line(&format!("return {v};")),
                    Tail::Discard => self.line(&format!("{};", strip_parens(&v))),
                }
                Ok(())
            }
        }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> syn::Result<()> {
        let Expr::Range(r) = &*f.expr else {
            return Err(unsupported(f.expr.span()));
        };
        let (Some(a), Some(b)) = (&r.start, &r.end) else {
            return Err(unsupported(r.span()));
        };
        let (a, b) = (self.expr(a)?, self.expr(b)?);
        let id = binding_ident(&f.pat).ok_or_else(|| unsupported(f.pat.span()))?;
        let mutable = matches!(&*f.pat, Pat::Ident(p) if p.mutability.is_some());
        let ty = format!("decltype(({a}) + ({b}))");
        self.push_scope();
        match r.limits {
            RangeLimits::HalfOpen(_) if !mutable => {
                let end = self.temp("ongpu_end");
                let k = self.bind(id);
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
        let r2 = self.stmts(&f.body, Tail::Discard);
        self.indent -= 1;
        self.pop_scope();
        r2?;
        self.line("}");
        if !matches!(r.limits, RangeLimits::HalfOpen(_)) || mutable {
            self.indent -= 1;
            self.line("}");
        }
        Ok(())
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
