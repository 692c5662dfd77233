//! Expressions. Binary expressions are fully parenthesised, so Rust's precedence carries
//! over whatever C++'s is.

use super::lit::{self, is_unsuffixed_float, Partner};
use super::{Tail, Translator};
use crate::supported;
use crate::supported::{associated_call_arity, constant_path};
use crate::types as ty;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, UnOp};

fn unsupported(span: proc_macro2::Span) -> syn::Error {
    syn::Error::new(span, supported::BODY_LANGUAGE)
}

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
        Expr::Array(a) => a.elems.iter().for_each(|x| array_leaves(x, out)),
        Expr::Group(g) => array_leaves(&g.expr, out),
        other => out.push(other),
    }
}

/// A block whose only content is a tail expression.
fn simple_value(b: &syn::Block) -> Option<&Expr> {
    match b.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => Some(e),
        _ => None,
    }
}

impl Translator {
    /// The C++ expression for `e`.
    pub(super) fn expr(&mut self, e: &Expr) -> syn::Result<String> {
        if let Some(k) = self.kernel_expr(e)? {
            return Ok(k);
        }
        Ok(match e {
            Expr::Lit(l) => lit::literal(&l.lit, &Partner::None, &self.real)
                .ok_or_else(|| unsupported(l.span()))?,
            Expr::Path(p) => match p.path.get_ident() {
                Some(id) => self.lookup(&id.to_string()),
                None => constant_path(&p.path)
                    .ok_or_else(|| unsupported(p.span()))?
                    .to_string(),
            },
            Expr::Paren(p) => format!("({})", self.expr(&p.expr)?),
            Expr::Group(g) => self.expr(&g.expr)?,
            Expr::Binary(b) => {
                let (l, r) =
                    self.operands(&b.left, &b.right, supported::is_compound_assign(&b.op))?;
                if let Some((f, assign)) = helper_op(&b.op) {
                    if assign {
                        format!("({l} = {f}({l}, {r}))")
                    } else {
                        format!("{f}({l}, {r})")
                    }
                } else {
                    let op = binop(&b.op).ok_or_else(|| unsupported(b.op.span()))?;
                    format!("({l} {op} {r})")
                }
            }
            Expr::Unary(u) => {
                let v = self.expr(&u.expr)?;
                match u.op {
                    UnOp::Neg(_) => format!("(-{v})"),
                    UnOp::Not(_) => format!("ongpu::not_({v})"),
                    _ => return Err(unsupported(u.span())),
                }
            }
            Expr::Assign(a) => {
                let (l, r) = self.operands(&a.left, &a.right, true)?;
                format!("({l} = {r})")
            }
            Expr::Cast(c) => {
                let t = ty::scalar_name(&c.ty).ok_or_else(|| unsupported(c.ty.span()))?;
                format!("ongpu::cast<{t}>({})", self.expr(&c.expr)?)
            }
            Expr::Field(f) => {
                let base = self.expr(&f.base)?;
                match &f.member {
                    syn::Member::Named(n) => format!("{base}.{n}"),
                    m => return Err(unsupported(m.span())),
                }
            }
            Expr::Index(i) => format!("{}[{}]", self.expr(&i.expr)?, self.expr(&i.index)?),
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                if supported::method(&name).is_none() {
                    return Err(unsupported(m.method.span()));
                }
                let recv = self.expr(&m.receiver)?;
                let mut args = vec![recv.clone()];
                for a in &m.args {
                    args.push(self.expr_like(a, &Partner::Expr(recv.clone()))?);
                }
                format!("ongpu::{name}({})", args.join(", "))
            }
            Expr::Call(c) => self.call(c)?,
            Expr::If(i) => self.if_value(i)?,
            Expr::Block(b) => self.lambda(&b.block)?,
            other => return Err(unsupported(other.span())),
        })
    }

    fn call(&mut self, c: &syn::ExprCall) -> syn::Result<String> {
        let Expr::Path(p) = &*c.func else {
            return Err(unsupported(c.func.span()));
        };
        let path = &p.path;
        if let Some((_, f)) = supported::array_constructor(path) {
            let mut leaves = Vec::new();
            for a in &c.args {
                array_leaves(a, &mut leaves);
            }
            let args = leaves
                .into_iter()
                .map(|e| self.expr(e))
                .collect::<syn::Result<Vec<_>>>()?
                .join(", ");
            let ty_seg = &path.segments[path.segments.len() - 2];
            return Ok(match ty::real_argument(&ty_seg.arguments) {
                Some(r) => format!("{f}<{r}>({args})"),
                None => format!("{f}({args})"),
            });
        }
        let args = self.args_sharing_a_partner(c.args.iter())?.join(", ");
        if let Some(id) = path.get_ident() {
            let name = id.to_string();
            if supported::math_function(&name).is_some() {
                return Ok(format!("ongpu::{name}({args})"));
            }
        }
        let n = path.segments.len();
        if n >= 2 && associated_call_arity(path).is_some() {
            let ty_seg = &path.segments[n - 2];
            let f = path.segments[n - 1].ident.to_string();
            let ty_name = ty_seg.ident.to_string();
            return Ok(match (ty_name.as_str(), f.as_str()) {
                ("Complex", "new") => match ty::real_argument(&ty_seg.arguments) {
                    Some(r) => format!("ongpu::make_complex<{r}>({args})"),
                    None => format!("ongpu::make_complex({args})"),
                },
                ("ColorMatrix" | "ColorVector", _) => {
                    let real = ty::real_argument(&ty_seg.arguments)
                        .unwrap_or(&self.real)
                        .to_string();
                    let base = supported::generic_type(&ty_name).expect("a lattice type");
                    format!("{base}<{real}>::{f}({args})")
                }
                _ => format!("ongpu::{f}({args})"),
            });
        }
        self.device_calls.push(path.clone());
        Ok(format!("{}({args})", super::device_fn_name(path)))
    }

    /// The C++ of an expression whose unsuffixed float literal (if it is one) is typed by
    /// `partner`.
    pub(super) fn expr_like(&mut self, e: &Expr, partner: &Partner) -> syn::Result<String> {
        match e {
            Expr::Lit(l) if is_unsuffixed_float(e) => {
                lit::literal(&l.lit, partner, &self.real).ok_or_else(|| unsupported(l.span()))
            }
            Expr::Unary(u) if is_unsuffixed_float(e) => {
                Ok(format!("(-{})", self.expr_like(&u.expr, partner)?))
            }
            Expr::Paren(p) if is_unsuffixed_float(e) => {
                Ok(format!("({})", self.expr_like(&p.expr, partner)?))
            }
            Expr::Group(g) => self.expr_like(&g.expr, partner),
            _ => self.expr(e),
        }
    }

    /// Two operands of one operation: an unsuffixed float literal on one side takes the
    /// other side's type (`assign`: the left side is a place, and always decides).
    fn operands(&mut self, l: &Expr, r: &Expr, assign: bool) -> syn::Result<(String, String)> {
        if !assign && is_unsuffixed_float(l) && !is_unsuffixed_float(r) {
            let r = self.expr(r)?;
            let l = self.expr_like(l, &Partner::Expr(r.clone()))?;
            Ok((l, r))
        } else {
            let l = self.expr(l)?;
            let r = self.expr_like(r, &Partner::Expr(l.clone()))?;
            Ok((l, r))
        }
    }

    /// Arguments of a maths call: unsuffixed float literals take the type of the first
    /// argument that is not one.
    fn args_sharing_a_partner<'e>(
        &mut self,
        args: impl Iterator<Item = &'e Expr>,
    ) -> syn::Result<Vec<String>> {
        let args: Vec<&Expr> = args.collect();
        let mut out = vec![String::new(); args.len()];
        let mut partner = Partner::None;
        for (k, a) in args.iter().enumerate() {
            if !is_unsuffixed_float(a) {
                out[k] = self.expr(a)?;
                if matches!(partner, Partner::None) {
                    partner = Partner::Expr(out[k].clone());
                }
            }
        }
        for (k, a) in args.iter().enumerate() {
            if is_unsuffixed_float(a) {
                out[k] = self.expr_like(a, &partner)?;
            }
        }
        Ok(out)
    }

    /// `if` in value position: a conditional expression when both branches are plain values,
    /// else an immediately invoked lambda.
    fn if_value(&mut self, i: &syn::ExprIf) -> syn::Result<String> {
        let else_simple = match i.else_branch.as_ref().map(|(_, e)| &**e) {
            Some(Expr::Block(b)) => simple_value(&b.block).is_some(),
            Some(Expr::If(_)) => true,
            _ => false,
        };
        if let (Some(t), true) = (simple_value(&i.then_branch), else_simple) {
            let cond = self.expr(&i.cond)?;
            let f_expr = match i.else_branch.as_ref().map(|(_, e)| &**e) {
                Some(Expr::Block(b)) => simple_value(&b.block).expect("checked"),
                Some(e @ Expr::If(_)) => e,
                _ => unreachable!("checked above"),
            };
            let (t, f) = self.operands(t, f_expr, false)?;
            return Ok(format!("({cond} ? {t} : {f})"));
        }
        let block: syn::Block = syn::parse_quote!({ #i });
        self.lambda(&block)
    }

    /// A block in value position: `[&]() { ...; return tail; }()`.
    fn lambda(&mut self, block: &syn::Block) -> syn::Result<String> {
        let saved = std::mem::take(&mut self.out);
        let indent = std::mem::replace(&mut self.indent, 1);
        let r = {
            self.push_scope();
            let r = self.stmts(block, Tail::Return);
            self.pop_scope();
            r
        };
        let body = std::mem::replace(&mut self.out, saved);
        self.indent = indent;
        r?;
        Ok(format!("[&]() {{\n{body}}}()"))
    }
}
