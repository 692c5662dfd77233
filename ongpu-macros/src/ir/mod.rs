//! The checked form of a body: the supported subset of Rust as a typed tree, built once by
//! `lower` (which reports every construct outside it) and read by the later passes
//! (captures, the CUDA emitter, the Rust emitter), which do not look at `syn::Expr` again. Leaves keep their tokens (names, literals, types, paths),
//! so that the Rust emitter gives back the user's code with the user's spans.

mod lower;
pub mod reduction;
pub mod visit;

pub use lower::{lower, lower_generic, Context};

use std::collections::BTreeSet;
use syn::punctuated::Punctuated;
use syn::token;
use syn::{Ident, Token};

/// A checked body.
#[derive(Debug, Clone)]
pub struct Body {
    /// Its statements.
    pub block: Block,
    /// Every identifier written in it (the C++ names of new bindings avoid them).
    pub names: BTreeSet<String>,
    /// The type parameters its types may name (a generic device function's): Rust name and
    /// C++ name.
    pub type_params: Vec<(String, String)>,
}

/// `{ statements }`.
#[derive(Debug, Clone)]
pub struct Block {
    /// The braces.
    pub brace: token::Brace,
    /// The statements.
    pub stmts: Vec<Stmt>,
}

impl Block {
    /// The tail expression, if the block is nothing else: `{ value }`.
    pub fn simple_value(&self) -> Option<&Expr> {
        match self.stmts.as_slice() {
            [Stmt::Expr(e, None)] => Some(e),
            _ => None,
        }
    }
}

/// A statement (a body has a few: their size does not matter).
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum Stmt {
    /// `let`.
    Let(Let),
    /// An expression, with its `;` if it has one.
    Expr(Expr, Option<Token![;]>),
}

/// `let [mut] name[: T] [= value];`
#[derive(Debug, Clone)]
pub struct Let {
    /// Attributes, kept for the Rust code.
    pub attrs: Vec<syn::Attribute>,
    /// `let`.
    pub let_token: Token![let],
    /// The name bound.
    pub binding: Binding,
    /// The declared type.
    pub ty: Option<(Token![:], syn::Type)>,
    /// The value.
    pub init: Option<(Token![=], Expr)>,
    /// `;`.
    pub semi: Token![;],
}

/// A bound name: `x` or `mut x`.
#[derive(Debug, Clone)]
pub struct Binding {
    /// `mut`, if there.
    pub mutability: Option<Token![mut]>,
    /// The name.
    pub ident: Ident,
}

/// An expression of the body language.
#[derive(Debug, Clone)]
pub enum Expr {
    /// A number or bool (its suffix checked).
    Lit(syn::Lit),
    /// A local, a capture or a parameter.
    Var(Ident),
    /// A constant path (`f32::MAX`) and its C++ value.
    Const(syn::Path, &'static str),
    /// `(e)`.
    Paren(token::Paren, Box<Expr>),
    /// An invisible group (a macro_rules fragment).
    Group(token::Group, Box<Expr>),
    /// `a op b`, compound assignments included (their left side is a place).
    Binary(Box<Expr>, syn::BinOp, Box<Expr>),
    /// `place = value`.
    Assign(Box<Expr>, Token![=], Box<Expr>),
    /// `-e` or `!e`.
    Unary(syn::UnOp, Box<Expr>),
    /// `e as T`, with the C++ scalar type.
    Cast(Box<Expr>, Token![as], syn::Type, &'static str),
    /// `e.name` (`.re`, `.im`, `.m`, `.v`, and `.x .y .z` of thread indices).
    Field(Box<Expr>, Token![.], Ident),
    /// `e[i]`.
    Index(Box<Expr>, token::Bracket, Box<Expr>),
    /// `e.name(args)` of a supported method.
    Method(Method),
    /// `f.shift(mu, k)`, possibly chained: a captured field read at another site.
    Shift(Shift),
    /// `f(args)`.
    Call(Call),
    /// `[a, b, c]`: the argument of `ColorVector::new`/`ColorMatrix::new`, or a local array
    /// (device functions and kernels).
    Array(token::Bracket, Punctuated<Expr, Token![,]>),
    /// `[value; len]`: a local array (device functions and kernels); `len` is a constant
    /// expression (the checks of the kernel and device-function passes say which).
    Repeat(token::Bracket, Box<Expr>, Token![;], Box<Expr>),
    /// `if`.
    If(If),
    /// `for k in a..b` or `a..=b`.
    For(For),
    /// `while cond { .. }` (device functions and kernels).
    While(Token![while], Box<Expr>, Block),
    /// `loop { .. }` (device functions and kernels).
    Loop(Token![loop], Block),
    /// `{ .. }`.
    Block(Block),
    /// `break` (device functions and kernels).
    Break(Token![break]),
    /// `continue` (device functions and kernels).
    Continue(Token![continue]),
    /// `return [e]` (device functions and kernels).
    Return(Token![return], Option<Box<Expr>>),
    /// `a.len()` in a kernel (the analysis checks that `a` is an array).
    Len(Box<Expr>, Token![.], Ident, token::Paren),
    /// `&mut place` in a kernel (the analysis checks that it is an atomic's target).
    RefMut(Token![&], Token![mut], Box<Expr>),
    /// `&place` or `&mut place` as the argument of a device function in a kernel or device
    /// function: a local array passed by reference (the passes check the root).
    Borrow(Token![&], Option<Token![mut]>, Box<Expr>),
    /// `shared!(TYPE)` in a kernel (the analysis checks its place and type).
    Shared(syn::Macro),
    /// `println!`, `print!`, `eprintln!` or `eprint!` (bodies and kernels).
    Print(Print),
}

/// A print: its format rewritten so that every placeholder names its argument by position
/// (`{0}`, `{1:.3}`), with the arguments in that order (the named and inline ones after the
/// positional ones).
#[derive(Debug, Clone)]
pub struct Print {
    /// The macro's name (its span locates the print).
    pub name: Ident,
    /// The print's number in its body (records of the GPU name it).
    pub id: u32,
    /// The rewritten format, spanned at the user's literal, with the newline of `println!`.
    pub format: syn::LitStr,
    /// The arguments.
    pub args: Vec<Expr>,
    /// True for `eprintln!`/`eprint!`.
    pub to_stderr: bool,
}

/// A method call.
#[derive(Debug, Clone)]
pub struct Method {
    /// The receiver.
    pub receiver: Box<Expr>,
    /// `.`.
    pub dot: Token![.],
    /// The method (one of `supported::METHODS`).
    pub name: Ident,
    /// The parentheses.
    pub paren: token::Paren,
    /// The arguments.
    pub args: Punctuated<Expr, Token![,]>,
}

/// `f.shift(mu, k).shift(nu, l)...`: the captured field `f` at the site reached by the hops,
/// in order, from the call's site.
#[derive(Debug, Clone)]
pub struct Shift {
    /// The field.
    pub field: Ident,
    /// The hops (at least one).
    pub hops: Vec<Hop>,
}

/// One `.shift(mu, k)`.
#[derive(Debug, Clone)]
pub struct Hop {
    /// `shift` (its span locates the hop).
    pub name: Ident,
    /// The direction.
    pub mu: Box<Expr>,
    /// The distance.
    pub k: Box<Expr>,
}

/// `root.load4(q)`, `root[row].load4(q)`, `root.store4(q, v)`, `root[row].store4(q, v)`.
#[derive(Debug, Clone)]
pub struct VectorAccess<'a> {
    /// `load4` or `store4`.
    pub name: &'a Ident,
    /// The array.
    pub root: &'a Ident,
    /// The row of a 2-D array.
    pub row: Option<&'a Expr>,
    /// `q`, and the value stored.
    pub args: Vec<&'a Expr>,
}

impl VectorAccess<'_> {
    /// True for `store4`.
    pub fn is_store(&self) -> bool {
        self.name == "store4"
    }
}

/// A call.
#[derive(Debug, Clone)]
pub struct Call {
    /// What is called.
    pub callee: Callee,
    /// The parentheses.
    pub paren: token::Paren,
    /// The arguments.
    pub args: Punctuated<Expr, Token![,]>,
}

/// What a call calls.
#[derive(Debug, Clone)]
pub enum Callee {
    /// A maths function (`sqrt`).
    Math(Ident),
    /// A kernel intrinsic (`thread_idx`, `atomic_add`).
    Intrinsic(Ident),
    /// A supported associated function (`Complex::new`, `f32::sqrt`, `ColorMatrix::zero`).
    Associated(syn::Path),
    /// `ColorVector::new` or `ColorMatrix::new`, whose argument is written out as arrays,
    /// with the C++ function taking the entries.
    ArrayConstructor(syn::Path, &'static str),
    /// Any other name: an `#[ongpu::device]` function (the expansion checks the mark).
    Device(syn::Path),
}

/// `if cond { .. } [else ..]`.
#[derive(Debug, Clone)]
pub struct If {
    /// `if`.
    pub if_token: Token![if],
    /// The condition.
    pub cond: Box<Expr>,
    /// The first branch.
    pub then_branch: Block,
    /// `else` and a block or another `if`.
    pub else_branch: Option<(Token![else], Box<Else>)>,
}

/// What follows `else`.
#[derive(Debug, Clone)]
pub enum Else {
    /// `else { .. }`.
    Block(Block),
    /// `else if ..`.
    If(If),
}

/// `for k in start..end { .. }`.
#[derive(Debug, Clone)]
pub struct For {
    /// `for`.
    pub for_token: Token![for],
    /// The loop variable.
    pub binding: Binding,
    /// `in`.
    pub in_token: Token![in],
    /// The first value.
    pub start: Box<Expr>,
    /// `..` or `..=`.
    pub limits: syn::RangeLimits,
    /// The end.
    pub end: Box<Expr>,
    /// The body.
    pub body: Block,
}

impl Body {
    /// Its prints, in order of their numbers.
    pub fn prints(&self) -> Vec<Print> {
        struct Prints(Vec<Print>);
        impl visit::Visit for Prints {
            fn visit_expr(&mut self, e: &Expr) {
                if let Expr::Print(p) = e {
                    self.0.push(p.clone());
                }
                visit::walk_expr(self, e);
            }
        }
        let mut prints = Prints(Vec::new());
        visit::Visit::visit_block(&mut prints, &self.block);
        prints.0.sort_by_key(|p| p.id);
        prints.0
    }

    /// True if it calls `sync_threads()`.
    pub fn has_barriers(&self) -> bool {
        self.any_call(|c| matches!(&c.callee, Callee::Intrinsic(id) if id == "sync_threads"))
    }

    /// True if it calls a device function.
    pub fn calls_device_fns(&self) -> bool {
        self.any_call(|c| matches!(c.callee, Callee::Device(_)))
    }

    /// True if some call of the body satisfies `f`.
    fn any_call(&self, f: impl Fn(&Call) -> bool) -> bool {
        struct Any<F>(F, bool);
        impl<F: Fn(&Call) -> bool> visit::Visit for Any<F> {
            fn visit_expr(&mut self, e: &Expr) {
                if let Expr::Call(c) = e {
                    self.1 |= (self.0)(c);
                }
                visit::walk_expr(self, e);
            }
        }
        let mut any = Any(f, false);
        visit::Visit::visit_block(&mut any, &self.block);
        any.1
    }

    /// The names in the sizes of its local arrays (`N` of `[0.0; N]`, `M` of `[[x; N]; M]`),
    /// in source order: the passes check that they are constants.
    pub fn array_len_names(&self) -> Vec<Ident> {
        struct Lens(Vec<Ident>, bool);
        impl visit::Visit for Lens {
            fn visit_expr(&mut self, e: &Expr) {
                match e {
                    Expr::Repeat(_, value, _, len) => {
                        self.visit_expr(value);
                        let outer = std::mem::replace(&mut self.1, true);
                        self.visit_expr(len);
                        self.1 = outer;
                    }
                    Expr::Var(id) if self.1 => self.0.push(id.clone()),
                    _ => visit::walk_expr(self, e),
                }
            }
        }
        let mut lens = Lens(Vec::new(), false);
        visit::Visit::visit_block(&mut lens, &self.block);
        lens.0
    }
}

impl Expr {
    /// The name of a plain variable expression (`a`).
    pub fn var(&self) -> Option<&Ident> {
        match self {
            Expr::Var(id) => Some(id),
            _ => None,
        }
    }

    /// `root[i][j]...`: the root name and the indices, innermost first; `None` if this is
    /// not an index expression on a plain name.
    pub fn index_chain(&self) -> Option<(&Ident, Vec<&Expr>)> {
        let mut indices = Vec::new();
        let mut cur = self;
        loop {
            match cur {
                Expr::Index(base, _, index) => {
                    indices.push(&**index);
                    cur = base;
                }
                Expr::Var(id) if !indices.is_empty() => {
                    indices.reverse();
                    return Some((id, indices));
                }
                _ => return None,
            }
        }
    }

    /// A vector access of a kernel's array (`a.load4(q)`, `s[i].store4(q, v)`), if this is
    /// one: the method, the array's name, its row index (2-D shared arrays) and the
    /// arguments.
    pub fn vector_access(&self) -> Option<VectorAccess<'_>> {
        let Expr::Method(m) = self else { return None };
        crate::supported::vector_method(&m.name.to_string())?;
        let (root, row) = match &*m.receiver {
            Expr::Var(id) => (id, None),
            Expr::Index(base, _, row) => (base.var()?, Some(&**row)),
            _ => return None,
        };
        Some(VectorAccess {
            name: &m.name,
            root,
            row,
            args: m.args.iter().collect(),
        })
    }

    /// The intrinsic this calls, if it calls one (`sync_threads()`).
    pub fn intrinsic_call(&self) -> Option<(&Ident, &Call)> {
        match self {
            Expr::Call(c) => match &c.callee {
                Callee::Intrinsic(id) => Some((id, c)),
                _ => None,
            },
            _ => None,
        }
    }

    /// True for an unsuffixed float literal, possibly negated or parenthesised (its type is
    /// that of the operand it meets).
    pub fn is_unsuffixed_float(&self) -> bool {
        match self {
            Expr::Lit(syn::Lit::Float(f)) => f.suffix().is_empty(),
            Expr::Unary(syn::UnOp::Neg(_), e) | Expr::Paren(_, e) | Expr::Group(_, e) => {
                e.is_unsuffixed_float()
            }
            _ => false,
        }
    }

    /// True for a compound assignment (`x += ...`).
    pub fn is_compound_assign(&self) -> bool {
        matches!(self, Expr::Binary(_, op, _) if crate::supported::is_compound_assign(op))
    }
}
