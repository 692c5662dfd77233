//! The supported subset of Rust: every construct outside it is a compile error at its own
//! span, naming what is supported. Runs before analysis and emission, which may then assume
//! a valid body.

use crate::supported::{self, is_compound_assign, BODY_LANGUAGE};
use syn::spanned::Spanned;
use syn::{Block, Expr, Lit, Pat, Stmt, Type, UnOp};

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

/// Collects every unsupported construct of `block`.
pub fn check_block(block: &Block, ctx: Context) -> syn::Result<()> {
    let mut c = Checker { ctx, errors: None };
    c.block(block);
    c.errors.map_or(Ok(()), Err)
}

struct Checker {
    ctx: Context,
    errors: Option<syn::Error>,
}

fn not_supported(what: &str) -> String {
    match what.split_once(" (") {
        Some((thing, hint)) => {
            format!("{thing} is not supported in a GPU body ({hint}; {BODY_LANGUAGE}")
        }
        None => format!("{what} is not supported in a GPU body; {BODY_LANGUAGE}"),
    }
}

impl Checker {
    fn error(&mut self, span: proc_macro2::Span, msg: impl std::fmt::Display) {
        let e = syn::Error::new(span, msg);
        match &mut self.errors {
            Some(all) => all.combine(e),
            None => self.errors = Some(e),
        }
    }

    fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Local(l) => {
                if let Some(init) = &l.init {
                    if let Some((_, diverge)) = &init.diverge {
                        self.error(diverge.span(), not_supported("`let ... else`"));
                    }
                    self.expr(&init.expr);
                }
                let ty = match &l.pat {
                    Pat::Type(t) => {
                        self.binding(&t.pat);
                        self.ty(&t.ty);
                        true
                    }
                    p => {
                        self.binding(p);
                        false
                    }
                };
                if l.init.is_none() && !ty {
                    self.error(l.span(), "a `let` without a value needs a type: `let x: f32;`");
                }
            }
            Stmt::Item(i) => self.error(
                i.span(),
                "items (fn, struct, use, const, ...) cannot be declared inside a GPU body; declare them \
                 outside (functions with #[ongpu::device])",
            ),
            Stmt::Macro(m) => self.error(m.span(), not_supported("a macro (println!, vec!, assert!, ...)")),
            Stmt::Expr(e, _) => self.expr(e),
        }
    }

    /// A binding pattern: a plain name, optionally `mut`.
    fn binding(&mut self, p: &Pat) {
        match p {
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {}
            p => self.error(
                p.span(),
                "only plain names can be bound here (`let x`, `let mut x`); destructuring patterns are not supported",
            ),
        }
    }

    fn ty(&mut self, t: &Type) {
        if crate::types::cuda_type(t, "ongpu_real").is_err() {
            self.error(
                t.span(),
                "unsupported type; types in a GPU body are f32 f64 i8 i16 i32 i64 isize u8 u16 u32 u64 \
                 usize bool, Complex<f32|f64>, ColorVector<f32|f64> and ColorMatrix<f32|f64>",
            );
        }
    }

    /// An expression that is assigned to: a name, `m[i][j]`, or `z.re`.
    fn place(&mut self, e: &Expr) {
        match e {
            Expr::Path(p) if p.path.get_ident().is_some() && p.qself.is_none() => {}
            Expr::Index(i) => {
                self.place(&i.expr);
                self.expr(&i.index);
            }
            Expr::Field(f) => {
                self.field_name(f);
                self.place(&f.base);
            }
            Expr::Paren(p) => self.place(&p.expr),
            other => self.error(
                other.span(),
                "this cannot be assigned to; assign a name (`x = ...`), an entry (`m[i][j] = ...`) or a part (`z.re = ...`)",
            ),
        }
    }

    fn field_name(&mut self, f: &syn::ExprField) {
        match &f.member {
            syn::Member::Named(n) if supported::FIELDS.contains(&n.to_string().as_str()) => {}
            // The coordinates of `thread_idx()` and friends (outside kernels the call itself
            // is the error).
            syn::Member::Named(n)
                if matches!(n.to_string().as_str(), "x" | "y" | "z")
                    && (self.ctx == Context::Kernel || is_intrinsic_call(&f.base)) => {}
            m => self.error(
                m.span(),
                "only the fields .re and .im (of Complex), .m and .v are supported",
            ),
        }
    }

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

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Assign(a) => {
                self.place(&a.left);
                self.expr(&a.right);
            }
            Expr::Binary(b) => {
                if is_compound_assign(&b.op) {
                    self.place(&b.left);
                } else {
                    self.expr(&b.left);
                }
                self.expr(&b.right);
            }
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) | UnOp::Not(_) => self.expr(&u.expr),
                _ => self.error(
                    u.span(),
                    not_supported("dereferencing (`*x`): captures and locals are values"),
                ),
            },
            Expr::Lit(l) => match &l.lit {
                Lit::Int(_) | Lit::Float(_) | Lit::Bool(_) => {}
                other => self.error(
                    other.span(),
                    not_supported("this literal (only numbers and bools)"),
                ),
            },
            Expr::Path(p) => {
                if p.qself.is_some() {
                    self.error(
                        p.span(),
                        not_supported("a qualified path `<T as Trait>::...`"),
                    );
                } else if p.path.get_ident().is_none()
                    && supported::constant_path(&p.path).is_none()
                {
                    self.error(
                        p.span(),
                        "this path is not supported; a GPU body can name locals, captures and the constants \
                         f32::MAX/MIN/EPSILON/INFINITY/NAN, i32::MAX, ..., and std::f64::consts::PI, E, TAU, ... \
                         (bind other values to a local before the call)",
                    );
                }
            }
            Expr::Call(c) => {
                if let Expr::Path(p) = &*c.func {
                    if let Some((depth, _)) = supported::array_constructor(&p.path) {
                        self.call_path(&p.path, c.args.len());
                        for a in &c.args {
                            self.array_of_3(a, depth);
                        }
                        return;
                    }
                }
                match &*c.func {
                    Expr::Path(p) if p.qself.is_none() => self.call_path(&p.path, c.args.len()),
                    other => self.error(
                        other.span(),
                        not_supported("calling this (only named functions)"),
                    ),
                }
                for a in &c.args {
                    self.expr(a);
                }
            }
            Expr::MethodCall(m)
                if self.ctx == Context::Kernel && m.method == "len" && m.args.is_empty() =>
            {
                self.expr(&m.receiver);
            }
            Expr::MethodCall(m) => {
                if let Some(t) = &m.turbofish {
                    self.error(t.span(), not_supported("a method call with `::<...>`"));
                }
                match supported::method(&m.method.to_string()) {
                    Some(n) if n == m.args.len() => {}
                    Some(n) => self.error(m.method.span(), format!("`.{}()` takes {n} argument(s)", m.method)),
                    None => self.error(
                        m.method.span(),
                        format!(
                            "the method `.{}()` is not supported in a GPU body; the supported methods are {}",
                            m.method,
                            supported::method_names()
                        ),
                    ),
                }
                self.expr(&m.receiver);
                for a in &m.args {
                    self.expr(a);
                }
            }
            Expr::Field(f) => {
                self.field_name(f);
                self.expr(&f.base);
            }
            Expr::Index(i) => {
                self.expr(&i.expr);
                self.expr(&i.index);
            }
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Cast(c) => {
                self.expr(&c.expr);
                match crate::types::scalar_name(&c.ty) {
                    Some(_) => {}
                    None => self.error(
                        c.ty.span(),
                        "`as` casts are supported to the number types and bool only",
                    ),
                }
            }
            Expr::If(i) => {
                self.condition(&i.cond);
                self.block(&i.then_branch);
                if let Some((_, e)) = &i.else_branch {
                    self.expr(e);
                }
            }
            Expr::ForLoop(f) => {
                if let Some(l) = &f.label {
                    self.error(l.span(), not_supported("a loop label"));
                }
                self.binding(&f.pat);
                match &*f.expr {
                    Expr::Range(r) if r.start.is_some() && r.end.is_some() => {
                        self.expr(r.start.as_ref().expect("checked"));
                        self.expr(r.end.as_ref().expect("checked"));
                    }
                    other => self.error(
                        other.span(),
                        "a `for` loop runs over a range with both ends: `for k in a..b` or `for k in a..=b`",
                    ),
                }
                self.block(&f.body);
            }
            Expr::Block(b) => {
                if let Some(l) = &b.label {
                    self.error(l.span(), not_supported("a block label"));
                }
                self.block(&b.block);
            }
            Expr::While(w) => {
                if self.control(w.while_token.span, "`while`") {
                    if let Some(l) = &w.label {
                        self.error(l.span(), not_supported("a loop label"));
                    }
                    self.condition(&w.cond);
                    self.block(&w.body);
                }
            }
            Expr::Loop(l) => {
                if self.control(l.loop_token.span, "`loop`") {
                    if let Some(lb) = &l.label {
                        self.error(lb.span(), not_supported("a loop label"));
                    }
                    self.block(&l.body);
                }
            }
            Expr::Break(b) => {
                if self.control(b.break_token.span, "`break`")
                    && (b.label.is_some() || b.expr.is_some())
                {
                    self.error(b.span(), not_supported("`break` with a label or a value"));
                }
            }
            Expr::Continue(c) => {
                if self.control(c.continue_token.span, "`continue`") && c.label.is_some() {
                    self.error(c.span(), not_supported("`continue` with a label"));
                }
            }
            Expr::Return(r) => {
                if self.control(r.return_token.span, "`return`") {
                    if let Some(e) = &r.expr {
                        self.expr(e);
                    }
                }
            }
            Expr::Closure(c) => self.error(
                c.span(),
                not_supported("a closure (move the code into a function marked #[ongpu::device])"),
            ),
            Expr::Reference(r) if self.ctx == Context::Kernel && r.mutability.is_some() => {
                self.place(&r.expr)
            }
            Expr::Macro(m) if self.ctx == Context::Kernel && m.mac.path.is_ident("shared") => {}
            Expr::Macro(m) => self.error(
                m.span(),
                not_supported("a macro (println!, vec!, assert!, ...)"),
            ),
            Expr::Match(m) => {
                self.error(m.match_token.span, not_supported("`match` (use if/else)"))
            }
            Expr::Reference(r) => self.error(
                r.span(),
                not_supported("taking a reference (pass values, not `&x`)"),
            ),
            Expr::Struct(s) => self.error(
                s.span(),
                not_supported(
                    "a struct literal (build values with Complex::new, ColorMatrix::identity, ...)",
                ),
            ),
            Expr::Tuple(t) => self.error(t.span(), not_supported("a tuple")),
            Expr::Array(a) => self.error(a.span(), not_supported("an array")),
            Expr::Repeat(r) => self.error(r.span(), not_supported("an array")),
            Expr::Range(r) => {
                self.error(r.span(), not_supported("a range outside `for k in a..b`"))
            }
            Expr::Try(t) => self.error(t.span(), not_supported("the `?` operator")),
            Expr::Unsafe(u) => self.error(u.unsafe_token.span, not_supported("an `unsafe` block")),
            Expr::Let(l) => self.error(
                l.span(),
                not_supported("`if let`/`while let` (use plain conditions)"),
            ),
            other => self.error(other.span(), not_supported("this expression")),
        }
    }

    /// The argument of `ColorVector::new` (`depth` 1) or `ColorMatrix::new` (2): array
    /// literals of 3 entries, written out, down to the complex numbers.
    fn array_of_3(&mut self, e: &Expr, depth: usize) {
        if depth == 0 {
            return self.expr(e);
        }
        match e {
            Expr::Array(a) if a.elems.len() == 3 => {
                for x in &a.elems {
                    self.array_of_3(x, depth - 1);
                }
            }
            Expr::Group(g) => self.array_of_3(&g.expr, depth),
            other => self.error(
                other.span(),
                "`ColorVector::new` takes `[a, b, c]` and `ColorMatrix::new` takes \
                 `[[a, b, c], [d, e, f], [g, h, i]]`, written out, with complex entries",
            ),
        }
    }

    fn condition(&mut self, e: &Expr) {
        self.expr(e)
    }

    fn call_path(&mut self, path: &syn::Path, args: usize) {
        if let Some(id) = path.get_ident() {
            if let Some(n) = supported::kernel_intrinsic(&id.to_string()) {
                if self.ctx != Context::Kernel {
                    self.error(
                        id.span(),
                        format!(
                            "`{id}()` can only be used in an #[ongpu::kernel] function: {}",
                            if self.ctx == Context::OnGpu {
                                "an on_gpu! body runs each site on its own, with no block of threads to index or synchronise"
                            } else {
                                "pass what a device function needs (such as thread_idx().x) as an argument"
                            }
                        ),
                    );
                } else if n != args {
                    self.error(id.span(), format!("`{id}` takes {n} argument(s)"));
                }
                return;
            }
            if let Some(n) = supported::math_function(&id.to_string()) {
                if n != args {
                    self.error(id.span(), format!("`{id}` takes {n} argument(s)"));
                }
            }
            // Any other name must be an #[ongpu::device] function: checked by the trait bound
            // of the expansion, with the message of `DeviceFunction`.
            return;
        }
        if let Some(expected) = supported::associated_call_arity(path) {
            if expected != args {
                self.error(
                    path.span(),
                    format!("this function takes {expected} argument(s)"),
                );
            }
            return;
        }
        if path.segments.iter().any(|s| !s.arguments.is_none()) {
            self.error(path.span(), not_supported("a generic function call"));
        }
    }
}

/// True for a call of a kernel intrinsic (`thread_idx()`).
fn is_intrinsic_call(e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if matches!(&*c.func, Expr::Path(p)
        if p.path.get_ident().is_some_and(|i| supported::kernel_intrinsic(&i.to_string()).is_some())))
}
