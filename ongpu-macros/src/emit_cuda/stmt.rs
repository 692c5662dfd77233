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
                let init = l.init.as_ref().map(|(_, e)| e);
                let untyped_int = l.ty.is_none() && init.is_some_and(|e| self.untyped_int(e));
                let (cty, placeholder) = match &l.ty {
                    // `ongpu::array` of the value; the entries' type types its literals.
                    Some((_, syn::Type::Array(a))) => {
                        let entry =
                            ty::cuda_type_in(innermost(&a.elem), &self.real, &self.type_params)
                                .expect("the type was checked");
                        let v = init.map(|e| self.expr_like(e, &Partner::Type(entry)));
                        let name = self.bind(&l.binding.ident);
                        let v = v.expect("the lowering requires a local array's value");
                        self.line(&format!("auto {name} = {v};"));
                        return;
                    }
                    Some((_, t)) => (
                        ty::cuda_type_in(t, &self.real, &self.type_params)
                            .expect("the type was checked"),
                        None,
                    ),
                    // Declared with the type of its first typed use (Rust infers it so).
                    None if untyped_int => {
                        let (k, t) = self.int_placeholder();
                        (t, Some(k))
                    }
                    None => ("auto".to_string(), None),
                };
                let partner = if cty == "auto" {
                    Partner::None
                } else {
                    Partner::Type(cty.clone())
                };
                let init_ty = init.and_then(|e| self.static_type(e));
                let init = init.map(|e| self.expr_like(e, &partner));
                let name = self.bind(&l.binding.ident);
                match (placeholder, cty.as_str()) {
                    (Some(k), _) => {
                        self.int_locals.insert(name.clone(), k);
                    }
                    (None, "auto") => {
                        if let Some(t) = init_ty {
                            self.local_types.insert(name.clone(), t);
                        }
                    }
                    (None, t) => {
                        self.local_types.insert(name.clone(), t.to_string());
                    }
                }
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
                self.assigned(l, r);
                if let Some(store) = self.entry_store(l, r) {
                    self.line(&format!("{store};"));
                    return;
                }
                let ls = self.expr(l);
                let partner = self.partner_of(l, &ls);
                let r = self.expr_like(r, &partner);
                self.line(&format!("{ls} = {r};"));
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
        // Untyped bounds: the counter's type is that of its first typed use, as in Rust.
        let counter = (self.untyped_int(&f.start) && self.untyped_int(&f.end))
            .then(|| self.int_placeholder());
        let (a, b, ty) = match &counter {
            Some((_, t)) => {
                let p = Partner::Type(t.clone());
                let (a, b) = (self.int_like(&f.start, &p), self.int_like(&f.end, &p));
                (a, b, t.clone())
            }
            None => {
                let (a, b) = self.operands_of_range(&f.start, &f.end);
                let ty = format!("decltype(({a}) + ({b}))");
                (a, b, ty)
            }
        };
        let id = &f.binding.ident;
        let mutable = f.binding.mutability.is_some();
        self.push_scope();
        match f.limits {
            RangeLimits::HalfOpen(_) if !mutable => {
                let end = self.temp("ongpu_end");
                let k = self.bind(id);
                self.counter(&k, &counter);
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
                self.counter(&k, &counter);
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

impl Translator {
    /// Marks a loop counter over untyped bounds as an untyped local.
    fn counter(&mut self, name: &str, counter: &Option<(usize, String)>) {
        if let Some((k, _)) = counter {
            self.int_locals.insert(name.to_string(), *k);
        }
    }

    /// The bounds of a range: an untyped one takes the other's type.
    fn operands_of_range(&mut self, a: &Expr, b: &Expr) -> (String, String) {
        if self.untyped_int(a) {
            let bs = self.expr(b);
            let p = self.partner_of(b, &bs);
            (self.int_like(a, &p), bs)
        } else {
            let as_ = self.expr(a);
            let p = self.partner_of(a, &as_);
            (as_, self.expr_like(b, &p))
        }
    }
}

/// The entry type of a (nested) array type.
fn innermost(t: &syn::Type) -> &syn::Type {
    match t {
        syn::Type::Array(a) => innermost(&a.elem),
        t => t,
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
