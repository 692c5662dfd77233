//! Capture analysis: the free identifiers of a body (names not bound by `let`, `for` or the
//! site-index parameter, and not called as functions), in order of first use, split into
//! written and read-only sets. A written capture whose first use is a whole assignment
//! (`x = ...` at the top level of the body, not reading `x`) is never loaded; one that the
//! body only ever assigns entry by entry (`x[k] = ...`) is stored entry by entry.

pub mod kernel;

use crate::ir::{Block, Body, Else, Expr, If, Stmt};
use proc_macro2::Span;
use std::collections::HashSet;
use syn::Ident;

/// One capture.
#[derive(Debug, Clone)]
pub struct Capture {
    /// The name, with the span of its first use.
    pub ident: Ident,
    /// Where the body first assigns it, if it does.
    pub written_at: Option<Span>,
    /// Whether its old value is read (always, for read-only captures).
    pub load: bool,
    /// Where the body first shifts it (`f.shift(mu, k)`), if it does.
    pub shifted_at: Option<Span>,
    /// True if every use is one entry `x[k]` (read, assigned or compounded, anywhere in the
    /// body; not borrowed): on the GPU a written one is read and written entry by entry in
    /// the field itself, and the element is neither loaded nor stored whole (a loop over
    /// the entries of a large element, `out[s] = ...` for each of `Ls` spinors, would
    /// otherwise hold the whole element in a local array).
    pub entry_stores: bool,
}

impl Capture {
    /// True if the body assigns it.
    pub fn is_written(&self) -> bool {
        self.written_at.is_some()
    }

    /// True for a read-only capture named in UPPERCASE (`K`, `N_COLORS`): Rust's naming of
    /// constants. A `const` cannot be rebound by the body's closure (the binding would be a
    /// pattern that matches the constant), so it is passed by value and read directly.
    pub fn is_constant(&self) -> bool {
        let name = self.ident.to_string();
        !self.is_written()
            && self.shifted_at.is_none()
            && name.chars().any(|c| c.is_ascii_uppercase())
            && name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    }
}

/// The captures of `body`, whose outermost scope already binds `params` (the site index of
/// `|i|`, or a function's parameters).
pub fn analyse(body: &Body, params: &[Ident]) -> Vec<Capture> {
    analyse_with_shifts(body, params).0
}

/// The captures of `body` and the locals it shifts (which `check_shifts` reports).
fn analyse_with_shifts(body: &Body, params: &[Ident]) -> (Vec<Capture>, Vec<Ident>) {
    let mut a = Analysis {
        scopes: vec![params.iter().map(Ident::to_string).collect()],
        captures: Vec::new(),
        depth: 0,
        shifted_locals: Vec::new(),
    };
    a.block_stmts(&body.block);
    (a.captures, a.shifted_locals)
}

/// The captures of an `on_gpu!` body, with its shifts checked: only captured fields that
/// the call does not write can be shifted.
pub fn analyse_call(body: &Body, params: &[Ident]) -> syn::Result<Vec<Capture>> {
    let (caps, locals) = analyse_with_shifts(body, params);
    let mut errors: Option<syn::Error> = None;
    let mut error = |span: Span, msg: String| {
        let e = syn::Error::new(span, msg);
        match &mut errors {
            Some(all) => all.combine(e),
            None => errors = Some(e),
        }
    };
    for l in &locals {
        error(
            l.span(),
            format!(
                "`{l}` is a local of the body, and only captured fields can be shifted: \
                 `f.shift(mu, k)` reads the field `f` at another site"
            ),
        );
    }
    for c in &caps {
        if let (Some(shift), Some(_)) = (c.shifted_at, c.written_at) {
            error(
                shift,
                format!(
                    "`{}` is written by this call, so it cannot be shifted in it (its \
                     neighbours would be read while other sites write them): compute the \
                     neighbours into another field in a call of their own first",
                    c.ident
                ),
            );
        }
    }
    errors.map_or(Ok(caps), Err)
}

struct Analysis {
    scopes: Vec<HashSet<String>>,
    captures: Vec<Capture>,
    /// Nesting inside control flow or nested blocks (a whole assignment there may not run).
    depth: usize,
    /// Locals that the body shifts (an error).
    shifted_locals: Vec<Ident>,
}

/// What a use of a capture does.
#[derive(Clone, Copy, PartialEq)]
enum Use {
    Read,
    /// `x = ...` at the body's top level: the old value is not needed, if nothing came first.
    WholeAssign,
    /// `x[k] = ...` or `x[k] op= ...`: one entry written, the others kept.
    EntryStore,
    /// `x[k]` read (not borrowed).
    EntryRead,
    /// Any other write (`x += ...`, `x[i][j] = ...`, a conditional `x = ...`): the old value
    /// is kept or read.
    Write,
}

impl Analysis {
    fn is_local(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.contains(name))
    }

    fn declare(&mut self, name: &Ident) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .insert(name.to_string());
    }

    fn note(&mut self, ident: &Ident, u: Use) {
        let name = ident.to_string();
        if self.is_local(&name) {
            return;
        }
        let c = match self.captures.iter_mut().find(|c| c.ident == name) {
            Some(c) => c,
            None => {
                self.captures.push(Capture {
                    ident: ident.clone(),
                    written_at: None,
                    load: u != Use::WholeAssign,
                    shifted_at: None,
                    entry_stores: matches!(u, Use::EntryStore | Use::EntryRead),
                });
                let c = self.captures.last_mut().expect("just pushed");
                if !matches!(u, Use::Read | Use::EntryRead) {
                    c.written_at = Some(ident.span());
                }
                return;
            }
        };
        if !matches!(u, Use::Read | Use::EntryRead) && c.written_at.is_none() {
            c.written_at = Some(ident.span());
        }
        if !matches!(u, Use::EntryStore | Use::EntryRead) {
            c.entry_stores = false;
        }
    }

    /// A shift of `ident`: a read of a capture, at other sites (a local is reported by
    /// [`check_shifts`]).
    fn shifted(&mut self, ident: &Ident) {
        if self.is_local(&ident.to_string()) {
            self.shifted_locals.push(ident.clone());
            return;
        }
        self.note(ident, Use::Read);
        if let Some(c) = self.captures.iter_mut().find(|c| c.ident == *ident) {
            c.shifted_at.get_or_insert(ident.span());
        }
    }

    fn nested<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.scopes.push(HashSet::new());
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        self.scopes.pop();
        r
    }

    fn block_stmts(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn block(&mut self, b: &Block) {
        self.nested(|a| a.block_stmts(b));
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(l) => {
                if let Some((_, e)) = &l.init {
                    self.expr(e);
                }
                self.declare(&l.binding.ident);
            }
            Stmt::Expr(e, _) => self.expr(e),
        }
    }

    /// The root name of an assigned place, and whether the place is the whole name.
    fn place(&mut self, e: &Expr, whole: bool, compound: bool) {
        match e {
            Expr::Var(id) => {
                let u = if compound || !whole || self.depth > 0 {
                    Use::Write
                } else {
                    Use::WholeAssign
                };
                if u == Use::Write {
                    // `x += ...` and partial writes read the old value first.
                    self.note(id, Use::Read);
                }
                self.note(id, u);
            }
            Expr::Index(base, _, index) => {
                self.expr(index);
                match &**base {
                    Expr::Var(id) if whole => self.note(id, Use::EntryStore),
                    _ => self.place(base, false, compound),
                }
            }
            Expr::Field(base, ..) => self.place(base, false, compound),
            Expr::Paren(_, x) => self.place(x, whole, compound),
            other => self.expr(other),
        }
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Assign(l, _, r) => {
                self.expr(r);
                self.place(l, true, false);
            }
            Expr::Binary(l, _, r) if e.is_compound_assign() => {
                self.expr(r);
                // `x[k] op= ...` writes one entry whole (from its old value).
                let entry = matches!(&**l, Expr::Index(base, ..) if matches!(**base, Expr::Var(_)));
                self.place(l, entry, true);
            }
            // `x[k]`: one entry read.
            Expr::Index(base, _, index) if matches!(**base, Expr::Var(_)) => {
                self.expr(index);
                if let Expr::Var(id) = &**base {
                    self.note(id, Use::EntryRead);
                }
            }
            Expr::Var(id) => self.note(id, Use::Read),
            Expr::If(i) => self.if_expr(i),
            Expr::For(f) => {
                self.expr(&f.start);
                self.expr(&f.end);
                self.nested(|a| {
                    a.declare(&f.binding.ident);
                    a.block_stmts(&f.body);
                });
            }
            Expr::While(_, cond, body) => self.nested(|a| {
                a.expr(cond);
                a.block_stmts(body);
            }),
            Expr::Loop(_, body) | Expr::Block(body) => self.block(body),
            // `&mut a[i]`, the target of a kernel's atomic; `&a` or `&mut a`, a local array
            // passed to a device function: a place in the element, which an entry read is
            // not.
            Expr::RefMut(_, _, x) | Expr::Borrow(_, _, x) => match &**x {
                Expr::Index(base, _, index) if matches!(**base, Expr::Var(_)) => {
                    self.expr(index);
                    self.expr(base);
                }
                _ => self.expr(x),
            },
            Expr::Binary(l, _, r) | Expr::Index(l, _, r) => {
                self.expr(l);
                self.expr(r);
            }
            Expr::Unary(_, x)
            | Expr::Paren(_, x)
            | Expr::Group(_, x)
            | Expr::Cast(x, ..)
            | Expr::Field(x, ..)
            | Expr::Len(x, ..) => self.expr(x),
            Expr::Return(_, x) => {
                if let Some(x) = x {
                    self.expr(x);
                }
            }
            Expr::Method(m) => {
                self.expr(&m.receiver);
                m.args.iter().for_each(|a| self.expr(a));
            }
            Expr::Shift(s) => {
                for h in &s.hops {
                    self.expr(&h.mu);
                    self.expr(&h.k);
                }
                self.shifted(&s.field);
            }
            Expr::Call(c) => c.args.iter().for_each(|a| self.expr(a)),
            Expr::Print(p) => p.args.iter().for_each(|a| self.expr(a)),
            // The array literal of `ColorVector::new([..])` / `ColorMatrix::new([[..]])`.
            Expr::Array(_, elems) => elems.iter().for_each(|a| self.expr(a)),
            Expr::Repeat(_, value, _, len) => {
                self.expr(value);
                self.expr(len);
            }
            // Constant paths and called functions are not captures.
            Expr::Lit(_)
            | Expr::Const(..)
            | Expr::Break(_)
            | Expr::Continue(_)
            | Expr::Shared(_) => {}
        }
    }

    fn if_expr(&mut self, i: &If) {
        self.nested(|a| a.expr(&i.cond));
        self.block(&i.then_branch);
        match i.else_branch.as_ref().map(|(_, e)| &**e) {
            Some(Else::Block(b)) => self.nested(|a| a.block(b)),
            Some(Else::If(i)) => self.nested(|a| a.if_expr(i)),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(src: &str) -> Vec<(String, bool, bool)> {
        let b: syn::Block = syn::parse_str(src).unwrap();
        let b = crate::ir::lower(&b, crate::ir::Context::OnGpu).unwrap();
        let i: Ident = syn::parse_str("i").unwrap();
        analyse(&b, &[i])
            .into_iter()
            .map(|c| (c.ident.to_string(), c.is_written(), c.load))
            .collect()
    }

    #[test]
    fn free_names_in_first_use_order() {
        assert_eq!(
            caps("{ x += y * z; }"),
            vec![
                ("y".into(), false, true),
                ("z".into(), false, true),
                ("x".into(), true, true)
            ]
        );
    }

    #[test]
    fn locals_site_index_and_functions_are_not_captures() {
        let c = caps("{ let t = a * 2.0; for k in 0..3 { t += k as f32; } out = helper(t + i as f32).sqrt(); }");
        assert_eq!(
            c,
            vec![("a".into(), false, true), ("out".into(), true, false)]
        );
    }

    #[test]
    fn whole_assignment_first_is_not_loaded() {
        assert_eq!(
            caps("{ x = y; }"),
            vec![("y".into(), false, true), ("x".into(), true, false)]
        );
        // reads itself on the right: loaded
        assert_eq!(caps("{ x = x + y; }")[0], ("x".into(), true, true));
        // assigned only inside a branch: the other path keeps the old value
        assert_eq!(caps("{ if c { x = y; } }")[2], ("x".into(), true, true));
        // partial writes keep the rest
        assert_eq!(caps("{ m[0][0] = z; }")[1], ("m".into(), true, true));
        // read before the assignment
        assert_eq!(caps("{ let t = x; x = t; }")[0], ("x".into(), true, true));
    }

    /// The captures used only entry by entry: every use an entry `x[k]` (read, assigned or
    /// compounded), in any branch or loop.
    fn entry_stored(src: &str) -> Vec<String> {
        let b: syn::Block = syn::parse_str(src).unwrap();
        let b = crate::ir::lower(&b, crate::ir::Context::OnGpu).unwrap();
        analyse(&b, &[])
            .into_iter()
            .filter(|c| c.entry_stores)
            .map(|c| c.ident.to_string())
            .collect()
    }

    #[test]
    fn entry_assignments_only_are_stored_entry_by_entry() {
        assert_eq!(
            entry_stored("{ for s in 0..n { out[s] = y[s]; } }"),
            ["y", "out"]
        );
        assert_eq!(
            entry_stored("{ if c { out[0] = y; } out[1] = y; }"),
            ["out"]
        );
        // entries read and compounded too
        assert_eq!(
            entry_stored("{ out[0] = w; out[1] += out[0] * w; z = out[1].norm2(); }"),
            ["out"]
        );
        // used whole, written whole or below an entry: the element is loaded
        assert!(entry_stored("{ out[0] = w; z = out; }").is_empty());
        assert!(entry_stored("{ out[0] = w; out = w; }").is_empty());
        assert!(entry_stored("{ m[0][0] = z; }").is_empty());
        assert!(entry_stored("{ x = y.shift(0, 1)[0]; }").is_empty());
        // a local is not a capture
        assert!(entry_stored("{ let mut a = y; a[0] = w; z = a; }").is_empty());
        // still a written capture that keeps its old entries
        assert_eq!(caps("{ out[0] = y; }")[1], ("out".into(), true, true));
    }

    #[test]
    fn names_inside_constructor_arrays_are_captures() {
        assert_eq!(
            caps("{ u = ColorVector::new([a, b, a]); }"),
            vec![
                ("a".into(), false, true),
                ("b".into(), false, true),
                ("u".into(), true, false)
            ]
        );
    }

    #[test]
    fn shadowing_starts_after_the_let() {
        assert_eq!(
            caps("{ let y = y * 2.0; x = y; }"),
            vec![("y".into(), false, true), ("x".into(), true, false)]
        );
    }
}
