//! Expressions. Binary expressions are fully parenthesised, so Rust's precedence carries
//! over whatever C++'s is.

use super::lit::{self, Partner};
use super::{ints, Tail, Translator};
use crate::ir::{Block, Call, Callee, Else, Expr, If, Shift, Stmt};
use crate::supported;
use crate::types as ty;
use syn::{BinOp, UnOp};

fn binop(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add(_) => "+",
        BinOp::Sub(_) => "-",
        BinOp::Mul(_) => "*",
        BinOp::Div(_) => "/",
        BinOp::And(_) => "&&",
        BinOp::Or(_) => "||",
        BinOp::BitXor(_) => "^",
        BinOp::BitAnd(_) => "&",
        BinOp::BitOr(_) => "|",
        BinOp::Eq(_) => "==",
        BinOp::Lt(_) => "<",
        BinOp::Le(_) => "<=",
        BinOp::Ne(_) => "!=",
        BinOp::Ge(_) => ">=",
        BinOp::Gt(_) => ">",
        BinOp::AddAssign(_) => "+=",
        BinOp::SubAssign(_) => "-=",
        BinOp::MulAssign(_) => "*=",
        BinOp::DivAssign(_) => "/=",
        BinOp::BitXorAssign(_) => "^=",
        BinOp::BitAndAssign(_) => "&=",
        BinOp::BitOrAssign(_) => "|=",
        _ => return None,
    })
}

/// Operators whose C++ meaning differs from Rust's, as prelude helpers.
fn helper_op(op: &BinOp) -> Option<(&'static str, bool)> {
    Some(match op {
        BinOp::Rem(_) => ("ongpu::rem", false),
        BinOp::Shl(_) => ("ongpu::shl", false),
        BinOp::Shr(_) => ("ongpu::shr", false),
        BinOp::RemAssign(_) => ("ongpu::rem", true),
        BinOp::ShlAssign(_) => ("ongpu::shl", true),
        BinOp::ShrAssign(_) => ("ongpu::shr", true),
        _ => return None,
    })
}

/// The entries of nested array literals, in row-major order (checked to be 3 per level).
fn array_leaves<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Array(_, elems) => elems.iter().for_each(|x| array_leaves(x, out)),
        Expr::Group(_, x) => array_leaves(x, out),
        other => out.push(other),
    }
}

impl Translator {
    /// The C++ expression for `e`.
    pub(super) fn expr(&mut self, e: &Expr) -> String {
        if let Some(k) = self.kernel_expr(e) {
            return k;
        }
        match e {
            Expr::Lit(l) => self.literal(l, &Partner::None),
            Expr::Var(id) => self.lookup(&id.to_string()),
            Expr::Const(_, value) => value.to_string(),
            Expr::Paren(_, x) => format!("({})", self.expr(x)),
            Expr::Group(_, x) => self.expr(x),
            Expr::Binary(l, op, r) => match supported::is_compound_assign(op)
                .then(|| self.entry_compound(l, op, r))
                .flatten()
            {
                Some(store) => format!("({store})"),
                None => self.binary(l, op, r),
            },
            Expr::Unary(op, x) => {
                let v = self.expr(x);
                match op {
                    UnOp::Not(_) => format!("ongpu::not_({v})"),
                    _ => format!("(-{v})"),
                }
            }
            Expr::Assign(l, _, r) => {
                if let Some(store) = self.entry_store(l, r) {
                    return format!("({store})");
                }
                let (l, r) = self.operands(l, r, true, false);
                format!("({l} = {r})")
            }
            Expr::Cast(x, _, _, t) => format!("ongpu::cast<{t}>({})", self.expr(x)),
            Expr::Field(base, _, name) => format!("{}.{name}", self.expr(base)),
            // One entry of an element array at another site: only that entry is loaded.
            Expr::Index(base, _, i) if matches!(**base, Expr::Shift(_)) => {
                let Expr::Shift(s) = &**base else {
                    unreachable!()
                };
                let (name, site) = self.shifted_site(s);
                format!("ONGPU_ENTRY_AT({name}, {site}, {})", self.expr(i))
            }
            // One entry of a read-only capture's element at the site: loaded where it is used.
            Expr::Index(base, _, i) if matches!(&**base, Expr::Var(id) if self.is_site_read(&id.to_string())) =>
            {
                format!("ONGPU_SITE_ENTRY({}, {})", self.expr(base), self.expr(i))
            }
            Expr::Index(base, _, i) => format!("{}[{}]", self.expr(base), self.expr(i)),
            Expr::Shift(s) => {
                let (name, site) = self.shifted_site(s);
                format!("ONGPU_AT({name}, {site})")
            }
            Expr::Method(m) => {
                let recv = self.expr(&m.receiver);
                let partner = self.partner_of(&m.receiver, &recv);
                let mut args = vec![recv.clone()];
                for a in &m.args {
                    args.push(self.expr_like(a, &partner));
                }
                format!("ongpu::{}({})", m.name, args.join(", "))
            }
            Expr::Call(c) => self.call(c),
            Expr::Borrow(_, _, x) => {
                let outer = std::mem::replace(&mut self.in_borrow, true);
                let v = self.expr(x);
                self.in_borrow = outer;
                v
            }
            Expr::If(i) => self.if_value(i, &Partner::None),
            Expr::Block(b) => self.lambda(b),
            Expr::Array(..) | Expr::Repeat(..) => self.local_array(e, &Partner::None),
            Expr::Print(p) => self.print(p),
            Expr::For(_)
            | Expr::While(..)
            | Expr::Loop(..)
            | Expr::Break(_)
            | Expr::Continue(_)
            | Expr::Return(..)
            | Expr::Len(..)
            | Expr::RefMut(..)
            | Expr::Shared(_) => unreachable!("a statement, or a kernel construct in a kernel"),
        }
    }

    /// A print: a record of its arguments for the host, keyed by the site (bodies) or the
    /// global thread index (kernels).
    fn print(&mut self, p: &crate::ir::Print) -> String {
        let key = if self.kernel.is_some() {
            "ongpu::print_thread_key()"
        } else {
            "ongpu_site"
        };
        let mut call = format!("ongpu::print_record({key}, {}u", p.id);
        for a in &p.args {
            call.push_str(", ");
            call.push_str(&self.expr(a));
        }
        call.push(')');
        call
    }

    /// The C++ name of a shifted field and the index of the site its hops reach from the
    /// kernel's site, on the call's lattice (`ongpu_lat`).
    fn shifted_site(&mut self, s: &Shift) -> (String, String) {
        let mut site = "ongpu_site".to_string();
        for h in &s.hops {
            let (mu, k) = (self.expr(&h.mu), self.expr(&h.k));
            site = format!("ongpu_lat.shift({site}, {mu}, {k})");
        }
        (self.lookup(&s.field.to_string()), site)
    }

    fn literal(&self, l: &syn::Lit, partner: &Partner) -> String {
        lit::literal(l, partner, &self.real).expect("the suffix was checked")
    }

    fn binary(&mut self, l: &Expr, op: &BinOp, r: &Expr) -> String {
        let (l, r) = self.operands(l, r, supported::is_compound_assign(op), ints::is_shift(op));
        self.operator(op, l, r)
    }

    /// `l op r` of a compound assignment's operator without the assignment (`l + r` of
    /// `+=`), given the operands' C++.
    pub(super) fn combined(&self, op: &BinOp, l: String, r: String) -> String {
        match helper_op(op) {
            Some((f, _)) => format!("{f}({l}, {r})"),
            None => {
                let op = binop(op).expect("every operator is translated");
                format!("({l} {} {r})", op.trim_end_matches('='))
            }
        }
    }

    /// `l op r` in C++, given the operands' C++.
    pub(super) fn operator(&self, op: &BinOp, l: String, r: String) -> String {
        if let Some((f, assign)) = helper_op(op) {
            if assign {
                format!("({l} = {f}({l}, {r}))")
            } else {
                format!("{f}({l}, {r})")
            }
        } else {
            let op = binop(op).expect("every operator is translated");
            format!("({l} {op} {r})")
        }
    }

    fn call(&mut self, c: &Call) -> String {
        if let Callee::ArrayConstructor(path, f) = &c.callee {
            let mut leaves = Vec::new();
            for a in &c.args {
                array_leaves(a, &mut leaves);
            }
            let args = leaves
                .into_iter()
                .map(|e| self.expr(e))
                .collect::<Vec<_>>()
                .join(", ");
            let ty_seg = &path.segments[path.segments.len() - 2];
            return match ty::real_argument_in(&ty_seg.arguments, &self.type_params) {
                Some(r) => format!("{f}<{r}>({args})"),
                None => format!("{f}({args})"),
            };
        }
        let args = self.args_sharing_a_partner(c.args.iter()).join(", ");
        match &c.callee {
            Callee::Math(id) => format!("ongpu::{id}({args})"),
            Callee::Associated(path) => {
                let n = path.segments.len();
                let ty_seg = &path.segments[n - 2];
                let f = path.segments[n - 1].ident.to_string();
                let ty_name = ty_seg.ident.to_string();
                match (ty_name.as_str(), f.as_str()) {
                    ("Complex", "new") => {
                        match ty::real_argument_in(&ty_seg.arguments, &self.type_params) {
                            Some(r) => format!("ongpu::make_complex<{r}>({args})"),
                            None => format!("ongpu::make_complex({args})"),
                        }
                    }
                    ("ColorMatrix" | "ColorVector", _) => {
                        let real = ty::real_argument_in(&ty_seg.arguments, &self.type_params)
                            .unwrap_or_else(|| self.real.clone());
                        let base = supported::generic_type(&ty_name).expect("a lattice type");
                        format!("{base}<{real}>::{f}({args})")
                    }
                    _ => format!("ongpu::{f}({args})"),
                }
            }
            Callee::Device(path) => {
                self.device_calls.push(path.clone());
                let args = match self.array_args(c) {
                    Some(arrays) => arrays,
                    None => args,
                };
                format!("{}({args})", super::device_fn_name(path))
            }
            Callee::Intrinsic(_) | Callee::ArrayConstructor(..) => {
                unreachable!("translated above, or by the kernel extension")
            }
        }
    }

    /// The C++ of an expression whose type Rust infers from where it is used (an unsuffixed
    /// float literal, an untyped integer expression), typed by `partner`.
    pub(super) fn expr_like(&mut self, e: &Expr, partner: &Partner) -> String {
        match e {
            Expr::Lit(l) if e.is_unsuffixed_float() => self.literal(l, partner),
            Expr::Unary(_, x) if e.is_unsuffixed_float() => {
                format!("(-{})", self.expr_like(x, partner))
            }
            Expr::Paren(_, x) if e.is_unsuffixed_float() => {
                format!("({})", self.expr_like(x, partner))
            }
            Expr::Group(_, x) => self.expr_like(x, partner),
            _ if self.untyped_int(e) => self.int_like(e, partner),
            Expr::If(i) => self.if_value(i, partner),
            Expr::Array(..) | Expr::Repeat(..) => self.local_array(e, partner),
            Expr::Paren(_, x) if matches!(**x, Expr::If(_)) => {
                format!("({})", self.expr_like(x, partner))
            }
            _ => self.expr(e),
        }
    }

    /// Two operands of one operation: an untyped one (an unsuffixed literal) takes the
    /// other's type (`assign`: the left side is a place, and always decides; `shift`: the
    /// amount has its own type, and neither decides).
    pub(super) fn operands(
        &mut self,
        l: &Expr,
        r: &Expr,
        assign: bool,
        shift: bool,
    ) -> (String, String) {
        if shift {
            return (self.expr(l), self.expr(r));
        }
        if !assign && self.untyped(l) && !self.untyped(r) {
            let rs = self.expr(r);
            let partner = self.partner_of(r, &rs);
            let l = self.expr_like(l, &partner);
            (l, rs)
        } else {
            if assign {
                self.assigned(l, r);
            }
            let ls = self.expr(l);
            let partner = self.partner_of(l, &ls);
            let r = self.expr_like(r, &partner);
            (ls, r)
        }
    }

    /// Arguments of a maths call: untyped ones take the type of the first argument that is
    /// not.
    pub(super) fn args_sharing_a_partner<'e>(
        &mut self,
        args: impl Iterator<Item = &'e Expr>,
    ) -> Vec<String> {
        let args: Vec<&Expr> = args.collect();
        let mut out = vec![String::new(); args.len()];
        let mut partner = Partner::None;
        for (k, a) in args.iter().enumerate() {
            if !self.untyped(a) {
                out[k] = self.expr(a);
                if matches!(partner, Partner::None) {
                    partner = self.partner_of(a, &out[k]);
                }
            }
        }
        for (k, a) in args.iter().enumerate() {
            if self.untyped(a) {
                out[k] = self.expr_like(a, &partner);
            }
        }
        out
    }

    /// A local array: `[v; N]` is `ongpu::fill<N>(v)`, `[a, b]` is `ongpu::array_of(a, b)`
    /// (both an `ongpu::array`); `partner` types the entries' unsuffixed literals, else the
    /// first typed entry does. `N` is a constant expression (the passes checked its names).
    fn local_array(&mut self, e: &Expr, partner: &Partner) -> String {
        match e {
            Expr::Repeat(_, value, _, len) => {
                let n = self.expr_like(len, &Partner::Type("unsigned long long".into()));
                let v = self.expr_like(value, partner);
                format!("ongpu::fill<({n})>({v})")
            }
            Expr::Array(_, elems) => {
                let entries = match partner {
                    Partner::None => self.args_sharing_a_partner(elems.iter()),
                    p => elems.iter().map(|x| self.expr_like(x, p)).collect(),
                };
                format!("ongpu::array_of({})", entries.join(", "))
            }
            _ => unreachable!("a local array"),
        }
    }

    /// `if` in value position: a conditional expression when both branches are plain values,
    /// else an immediately invoked lambda.
    fn if_value(&mut self, i: &If, partner: &Partner) -> String {
        let else_value = match i.else_branch.as_ref().map(|(_, e)| &**e) {
            Some(Else::Block(b)) => b.simple_value().map(Value::Expr),
            Some(Else::If(i)) => Some(Value::If(i)),
            None => None,
        };
        if let (Some(t), Some(f)) = (i.then_branch.simple_value(), else_value) {
            let cond = self.expr(&i.cond);
            let f = match f {
                Value::Expr(f) => f.clone(),
                Value::If(f) => Expr::If(f.clone()),
            };
            let (t, f) = if matches!(partner, Partner::None) {
                self.operands(t, &f, false, false)
            } else {
                (self.expr_like(t, partner), self.expr_like(&f, partner))
            };
            return format!("({cond} ? {t} : {f})");
        }
        let block = Block {
            brace: Default::default(),
            stmts: vec![Stmt::Expr(Expr::If(i.clone()), None)],
        };
        self.lambda(&block)
    }

    /// A block in value position: `[&]() { ...; return tail; }()`.
    fn lambda(&mut self, block: &Block) -> String {
        let saved = std::mem::take(&mut self.out);
        let indent = std::mem::replace(&mut self.indent, 1);
        self.push_scope();
        self.stmts(block, Tail::Return);
        self.pop_scope();
        let body = std::mem::replace(&mut self.out, saved);
        self.indent = indent;
        format!("[&]() {{\n{body}}}()")
    }
}

/// The value of an `else` branch.
enum Value<'e> {
    Expr(&'e Expr),
    If(&'e If),
}
