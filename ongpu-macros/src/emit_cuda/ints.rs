//! Unsuffixed integers. Rust gives the `1` of `let t: u64 = 1 << 40;` the type `u64`, where
//! C++ would compute in `int`. An *untyped* integer expression (unsuffixed literals, locals
//! bound to one, counters of loops over such bounds, and their arithmetic) is spelled with
//! the type of what it meets. A local bound to one is declared with a placeholder type: the
//! locals that Rust unifies share one, and the first typed use found while translating the
//! rest of the function fixes it (else Rust's default, `int`); `finish` fills them in.

use super::lit::{self, Partner};
use super::Translator;
use crate::ir::Expr;
use syn::{BinOp, Lit, UnOp};

/// The placeholder types of one function: a union-find of the untyped locals, each class
/// with the C++ type that fixed it, if any.
#[derive(Default)]
pub(super) struct IntTypes {
    parent: Vec<usize>,
    fixed: Vec<Option<String>>,
}

/// Marks a placeholder in the C++ text (never in user text: it is a control character).
const MARK: char = '\u{1}';

fn marker(k: usize) -> String {
    format!("{MARK}{k}{MARK}")
}

/// The placeholder a type string is, if it is one.
fn as_marker(t: &str) -> Option<usize> {
    t.strip_prefix(MARK)?.strip_suffix(MARK)?.parse().ok()
}

impl IntTypes {
    fn root(&mut self, mut k: usize) -> usize {
        while self.parent[k] != k {
            self.parent[k] = self.parent[self.parent[k]];
            k = self.parent[k];
        }
        k
    }

    fn fresh(&mut self) -> usize {
        self.parent.push(self.parent.len());
        self.fixed.push(None);
        self.parent.len() - 1
    }

    /// Placeholder `k` meets type `t` (another placeholder, or a C++ type).
    fn meet(&mut self, k: usize, t: &str) {
        let a = self.root(k);
        match as_marker(t) {
            Some(other) => {
                let b = self.root(other);
                if a != b {
                    self.parent[b] = a;
                    if self.fixed[a].is_none() {
                        self.fixed[a] = self.fixed[b].take();
                    }
                }
            }
            None if !t.contains(MARK) && self.fixed[a].is_none() => {
                self.fixed[a] = Some(t.to_string())
            }
            None => {}
        }
    }

    /// The C++ type of placeholder `k`.
    fn resolved(&mut self, k: usize) -> String {
        let r = self.root(k);
        match self.fixed[r].clone() {
            None => "int".to_string(),
            Some(t) if is_int_name(&t) => t,
            Some(t) => format!("ongpu::int_type<{t}>"),
        }
    }

    /// `code` with every placeholder replaced by its type (and the conversions to a
    /// placeholder that turned out a plain integer type written as casts or literals).
    pub(super) fn finish(&mut self, code: String) -> String {
        if !code.contains(MARK) {
            return code;
        }
        let mut out = String::with_capacity(code.len());
        let mut rest = code.as_str();
        while let Some(start) = rest.find(MARK) {
            let conversion = rest[..start].ends_with(LIT_INT);
            let head = if conversion {
                &rest[..start - LIT_INT.len()]
            } else {
                &rest[..start]
            };
            out.push_str(head);
            let after = &rest[start + 1..];
            let end = after.find(MARK).expect("a closed placeholder");
            let ty = self.resolved(after[..end].parse().expect("a placeholder"));
            rest = &after[end + 1..];
            if !conversion {
                out.push_str(&ty);
                continue;
            }
            // `ongpu::lit_int<P>(v)`: `rest` starts with `>(`.
            rest = &rest[2..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            match (is_int_name(&ty), int_suffix(&ty)) {
                (_, Some(suffix)) if digits > 0 && rest[digits..].starts_with(')') => {
                    out.push_str(&rest[..digits]);
                    out.push_str(suffix);
                    rest = &rest[digits + 1..];
                }
                (true, _) => out.push_str(&format!("({ty})(")),
                (false, _) => out.push_str(&format!("{LIT_INT}{ty}>(")),
            }
        }
        out.push_str(rest);
        out
    }
}

/// The conversion of an untyped integer to a type (the prelude's).
const LIT_INT: &str = "ongpu::lit_int<";

/// The suffix that gives a small C++ literal the integer type `t`, where there is one.
pub(super) fn int_suffix(t: &str) -> Option<&'static str> {
    Some(match t {
        "int" => "",
        "unsigned int" => "u",
        "long long" => "ll",
        "unsigned long long" => "ull",
        _ => return None,
    })
}

/// The C++ integer types the body language has.
pub(super) fn is_int_name(t: &str) -> bool {
    matches!(
        t,
        "signed char"
            | "short"
            | "int"
            | "long long"
            | "unsigned char"
            | "unsigned short"
            | "unsigned int"
            | "unsigned long long"
    )
}

/// How an operator relates the types of its operands and result.
enum Kind {
    /// Both operands and the result have one type (`+`, `&`, ...).
    Same,
    /// The result has the left operand's type; the right one is independent (`<<`, `>>`).
    Shift,
    /// Anything else (comparisons, `&&`, assignments).
    Other,
}

fn kind(op: &BinOp) -> Kind {
    match op {
        BinOp::Add(_)
        | BinOp::Sub(_)
        | BinOp::Mul(_)
        | BinOp::Div(_)
        | BinOp::Rem(_)
        | BinOp::BitXor(_)
        | BinOp::BitAnd(_)
        | BinOp::BitOr(_) => Kind::Same,
        BinOp::Shl(_) | BinOp::Shr(_) | BinOp::ShlAssign(_) | BinOp::ShrAssign(_) => Kind::Shift,
        _ => Kind::Other,
    }
}

/// True for `<<`, `>>`, `<<=` and `>>=`, whose amount does not take the value's type.
pub(super) fn is_shift(op: &BinOp) -> bool {
    matches!(kind(op), Kind::Shift)
}

impl Translator {
    /// True for an expression whose type Rust infers from where it is used: an unsuffixed
    /// float literal, or an untyped integer expression.
    pub(super) fn untyped(&self, e: &Expr) -> bool {
        e.is_unsuffixed_float() || self.untyped_int(e)
    }

    /// True for an untyped integer expression.
    pub(super) fn untyped_int(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(Lit::Int(i)) => i.suffix().is_empty(),
            Expr::Var(id) => self.int_locals.contains_key(&self.lookup(&id.to_string())),
            Expr::Paren(_, x) | Expr::Group(_, x) | Expr::Unary(UnOp::Neg(_) | UnOp::Not(_), x) => {
                self.untyped_int(x)
            }
            Expr::Binary(l, op, r) => match kind(op) {
                Kind::Same => self.untyped_int(l) && self.untyped_int(r),
                Kind::Shift => self.untyped_int(l),
                Kind::Other => false,
            },
            _ => false,
        }
    }

    /// The C++ type of `e` where the syntax shows it, as a string valid anywhere in the
    /// function (a type, `decltype` of an outer name, or a placeholder).
    pub(super) fn static_type(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Lit(Lit::Int(i)) if !i.suffix().is_empty() => {
                crate::supported::scalar_type(i.suffix()).map(str::to_string)
            }
            Expr::Lit(Lit::Float(f)) if !f.suffix().is_empty() => {
                crate::supported::scalar_type(f.suffix()).map(str::to_string)
            }
            Expr::Lit(Lit::Bool(_)) => Some("bool".to_string()),
            Expr::Var(id) => {
                let name = self.lookup(&id.to_string());
                if let Some(k) = self.int_locals.get(&name) {
                    return Some(marker(*k));
                }
                if let Some(t) = self.local_types.get(&name) {
                    return Some(t.clone());
                }
                let outer = self.scopes[0].get(&id.to_string()) == Some(&name);
                outer.then(|| format!("decltype({name})"))
            }
            Expr::Paren(_, x) | Expr::Group(_, x) | Expr::Unary(_, x) => self.static_type(x),
            Expr::Cast(_, _, _, t) => Some(t.to_string()),
            Expr::Binary(l, op, r) => match kind(op) {
                // A typed side first: the other one is then the same type.
                Kind::Same => match (self.static_type(l), self.static_type(r)) {
                    (Some(a), _) if !a.contains(MARK) => Some(a),
                    (a, Some(b)) if !b.contains(MARK) => Some(b).or(a),
                    (a, b) => a.or(b),
                },
                Kind::Shift => self.static_type(l),
                Kind::Other if crate::supported::is_compound_assign(op) => None,
                Kind::Other => Some("bool".to_string()),
            },
            Expr::Method(m) if matches!(m.name.to_string().as_str(), "min" | "max" | "abs") => {
                self.static_type(&m.receiver)
            }
            _ => None,
        }
    }

    /// What an untyped operand meeting `e` (whose C++ text is `text`) takes its type from.
    pub(super) fn partner_of(&self, e: &Expr, text: &str) -> Partner {
        match self.static_type(e) {
            Some(t) => Partner::Type(t),
            // Two untyped operands: neither decides.
            None if self.untyped(e) => Partner::None,
            None => Partner::Expr(text.to_string()),
        }
    }

    /// A new placeholder type, for a local bound to an untyped integer.
    pub(super) fn int_placeholder(&mut self) -> (usize, String) {
        let k = self.int_types.fresh();
        (k, marker(k))
    }

    /// The untyped local `name` meets `partner`: its type follows a typed one.
    pub(super) fn meet(&mut self, name: &str, partner: &Partner) {
        if let (Some(&k), Partner::Type(t)) = (self.int_locals.get(name), partner) {
            self.int_types.meet(k, t);
        }
    }

    /// An assignment `place = value` (or `place op= value`) whose place is an untyped local:
    /// the value's type is the local's.
    pub(super) fn assigned(&mut self, place: &Expr, value: &Expr) {
        if let (Some(id), Some(t)) = (place.var(), self.static_type(value)) {
            let name = self.lookup(&id.to_string());
            self.meet(&name, &Partner::Type(t));
        }
    }

    /// The C++ of the untyped integer expression `e`, typed by `partner`.
    pub(super) fn int_like(&mut self, e: &Expr, partner: &Partner) -> String {
        match e {
            Expr::Lit(Lit::Int(i)) if i.suffix().is_empty() => {
                lit::int_literal(i.base10_digits(), partner)
            }
            Expr::Var(id) => {
                let name = self.lookup(&id.to_string());
                self.meet(&name, partner);
                lit::int_value(&name, partner)
            }
            Expr::Paren(_, x) => format!("({})", self.int_like(x, partner)),
            Expr::Group(_, x) => self.int_like(x, partner),
            Expr::Unary(UnOp::Neg(_), x) => format!("(-{})", self.int_like(x, partner)),
            Expr::Unary(_, x) => format!("ongpu::not_({})", self.int_like(x, partner)),
            Expr::Binary(l, op, r) => {
                let l = self.int_like(l, partner);
                let r = match kind(op) {
                    Kind::Shift => self.expr(r),
                    _ => self.int_like(r, partner),
                };
                self.operator(op, l, r)
            }
            _ => self.expr(e),
        }
    }
}
