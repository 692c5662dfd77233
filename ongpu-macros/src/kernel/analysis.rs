//! What a kernel body declares and how it uses its arrays: `shared!` arrays (declared at
//! the top level of the body, of constant size), the arrays' allowed uses (indexing every
//! dimension, `.len()`, `&mut a[i]` as an atomic's target), writes only to writable arrays,
//! barriers as statements, and the free names, which are constants.

use super::signature::{Param, ParamKind};
use super::syntax::{index_chain, intrinsic_call, path_ident, shared_macro, shared_type};
use crate::captures;
use proc_macro2::Span;
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Block, Expr, Ident, Stmt, Type};

/// An array a body can index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayKind {
    /// Parameter `index`; `writable` for `&mut [T]`.
    Param { index: usize, writable: bool },
    /// The `index`-th `shared!` array, of `rank` dimensions.
    Shared { index: usize, rank: usize },
}

impl ArrayKind {
    /// Dimensions indexed by `a[i]...`.
    pub fn rank(self) -> usize {
        match self {
            ArrayKind::Param { .. } => 1,
            ArrayKind::Shared { rank, .. } => rank,
        }
    }

    fn writable(self) -> bool {
        !matches!(
            self,
            ArrayKind::Param {
                writable: false,
                ..
            }
        )
    }
}

/// A `let name = shared!([T; N]);` declaration.
#[derive(Debug, Clone)]
pub struct SharedArray {
    /// Its name.
    pub ident: Ident,
    /// Its element type.
    pub element: Type,
    /// Its extents, outermost first.
    pub dims: Vec<Expr>,
}

/// The name a `let` or `for` pattern binds.
fn binding_ident(p: &syn::Pat) -> Option<&Ident> {
    match p {
        syn::Pat::Ident(i) => Some(&i.ident),
        syn::Pat::Type(t) => binding_ident(&t.pat),
        _ => None,
    }
}

/// The facts the emitters need.
#[derive(Debug)]
pub struct Analysis {
    /// Arrays by name.
    pub arrays: HashMap<String, ArrayKind>,
    /// `shared!` arrays in declaration order.
    pub shared: Vec<SharedArray>,
    /// Free names of the body: constants, in order of first use.
    pub constants: Vec<Ident>,
}

/// Element types of `shared!` arrays (as for `Field`s).
fn shared_element_ok(t: &Type) -> bool {
    match crate::types::cuda_type(t, "ongpu_real") {
        Ok(c) if c.contains('<') => !c.contains("ongpu_real"),
        Ok(c) => matches!(c.as_str(), "float" | "double" | "int" | "unsigned int"),
        Err(()) => false,
    }
}

struct Idents<'a>(&'a HashSet<String>, Option<Ident>);
impl<'ast> Visit<'ast> for Idents<'_> {
    fn visit_ident(&mut self, i: &'ast Ident) {
        if self.1.is_none() && self.0.contains(&i.to_string()) {
            self.1 = Some(i.clone());
        }
    }
}

/// Analyses `block` (already checked by `check_block(.., Context::Kernel)`).
pub fn analyse(block: &Block, body: &crate::ir::Body, params: &[Param]) -> syn::Result<Analysis> {
    let mut v = Validator {
        arrays: HashMap::new(),
        errors: None,
    };
    for (index, p) in params.iter().enumerate() {
        if let ParamKind::Array { writable, .. } = p.kind {
            v.arrays
                .insert(p.ident.to_string(), ArrayKind::Param { index, writable });
        }
    }
    let mut in_scope: HashSet<String> = params.iter().map(|p| p.ident.to_string()).collect();
    let mut shared = Vec::new();
    for stmt in &block.stmts {
        let Stmt::Local(l) = stmt else {
            v.visit_stmt(stmt);
            continue;
        };
        let Some(mac) = l.init.as_ref().and_then(|i| shared_macro(&i.expr)) else {
            v.visit_stmt(stmt);
            if let Some(id) = binding_ident(&l.pat) {
                in_scope.insert(id.to_string());
            }
            continue;
        };
        match declare_shared(l, mac, &in_scope, &v.arrays, shared.len()) {
            Ok(s) => {
                v.arrays.insert(
                    s.ident.to_string(),
                    ArrayKind::Shared {
                        index: shared.len(),
                        rank: s.dims.len(),
                    },
                );
                in_scope.insert(s.ident.to_string());
                shared.push(s);
            }
            Err(e) => v.error_from(e),
        }
    }
    let names: Vec<Ident> = params.iter().map(|p| p.ident.clone()).collect();
    let mut constants = Vec::new();
    for c in captures::analyse(body, &names) {
        match c.written_at {
            Some(span) => v.error(
                span,
                format!(
                    "`{}` is not a local of the kernel: a kernel writes its locals, `&mut [T]` parameters \
                     and shared! arrays (other names are constants)",
                    c.ident
                ),
            ),
            None => constants.push(c.ident),
        }
    }
    match v.errors {
        Some(e) => Err(e),
        None => Ok(Analysis {
            arrays: v.arrays,
            shared,
            constants,
        }),
    }
}

fn declare_shared(
    l: &syn::Local,
    mac: &syn::Macro,
    in_scope: &HashSet<String>,
    arrays: &HashMap<String, ArrayKind>,
    index: usize,
) -> syn::Result<SharedArray> {
    let ident = match &l.pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
        other => {
            return Err(syn::Error::new(
                other.span(),
                "bind a shared! array to a plain name, without a type: `let tile = shared!([f32; 256]);`",
            ))
        }
    };
    if arrays.contains_key(&ident.to_string()) || in_scope.contains(&ident.to_string()) {
        return Err(syn::Error::new(
            ident.span(),
            format!(
                "`{ident}` is already a name of this kernel; give the shared! array its own name"
            ),
        ));
    }
    let ty = shared_type(mac)?;
    if !shared_element_ok(&ty.element) {
        return Err(syn::Error::new(
            ty.element.span(),
            "unsupported shared! element type; shared arrays hold f32 f64 i32 u32 Complex<f32|f64> \
             ColorVector<f32|f64> or ColorMatrix<f32|f64>",
        ));
    }
    for d in &ty.dims {
        let mut found = Idents(in_scope, None);
        found.visit_expr(d);
        if let Some(name) = found.1 {
            return Err(syn::Error::new(
                name.span(),
                format!(
                    "the size of a shared! array must be a constant (a literal or a `const` item): \
                     `{name}` is a variable of the kernel; shared memory is sized when the kernel is \
                     compiled (shared array #{index})"
                ),
            ));
        }
    }
    Ok(SharedArray {
        ident,
        element: ty.element,
        dims: ty.dims,
    })
}

struct Validator {
    arrays: HashMap<String, ArrayKind>,
    errors: Option<syn::Error>,
}

/// The name a place (`a`, `a[i]`, `a[i].re`) is rooted at.
fn place_root(e: &Expr) -> Option<&Ident> {
    match e {
        Expr::Path(_) => path_ident(e),
        Expr::Index(i) => place_root(&i.expr),
        Expr::Field(f) => place_root(&f.base),
        Expr::Paren(p) => place_root(&p.expr),
        _ => None,
    }
}

impl Validator {
    fn error(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.error_from(syn::Error::new(span, msg));
    }

    fn error_from(&mut self, e: syn::Error) {
        match &mut self.errors {
            Some(all) => all.combine(e),
            None => self.errors = Some(e),
        }
    }

    fn array(&self, id: &Ident) -> Option<ArrayKind> {
        self.arrays.get(&id.to_string()).copied()
    }

    fn no_shadowing(&mut self, id: &Ident) {
        if self.array(id).is_some() {
            self.error(
                id.span(),
                format!("`{id}` names an array of this kernel; give this binding another name"),
            );
        }
    }

    /// A written place must not be a read-only array.
    fn written(&mut self, place: &Expr) {
        if let Some(root) = place_root(place) {
            if let Some(ArrayKind::Param {
                writable: false, ..
            }) = self.array(root)
            {
                self.error(
                    root.span(),
                    format!("`{root}` is a `&[T]` parameter and cannot be written; declare it `&mut [T]`"),
                );
            }
        }
    }

    /// `name(args)` of a kernel intrinsic in expression position.
    fn intrinsic(&mut self, name: &str, call: &syn::ExprCall) {
        if matches!(name, "sync_threads" | "thread_fence") {
            self.error(
                call.span(),
                format!("`{name}()` is a statement of its own: write `{name}();`"),
            );
            return;
        }
        if !name.starts_with("atomic_") {
            return;
        }
        let mut args = call.args.iter();
        let target = args.next();
        let ok = match target {
            Some(Expr::Reference(r)) if r.mutability.is_some() => match index_chain(&r.expr) {
                Some((root, indices)) => match self.array(root) {
                    Some(a) if !a.writable() => {
                        self.error(
                            root.span(),
                            format!(
                                "`{root}` is a `&[T]` parameter: atomics need a `&mut [T]` parameter or a shared! array"
                            ),
                        );
                        true
                    }
                    Some(a) if indices.len() == a.rank() => {
                        for i in indices {
                            self.visit_expr(i);
                        }
                        true
                    }
                    _ => false,
                },
                None => false,
            },
            _ => false,
        };
        if !ok {
            self.error(
                target.map_or(call.span(), Spanned::span),
                format!(
                    "the target of `{name}` is an element of a `&mut [T]` parameter or shared! array: \
                     `{name}(&mut a[i], ...)` (for a 2-D shared array `&mut s[i][j]`)"
                ),
            );
        }
        for a in args {
            self.visit_expr(a);
        }
    }
}

impl<'ast> Visit<'ast> for Validator {
    fn visit_stmt(&mut self, s: &'ast Stmt) {
        match s {
            Stmt::Expr(e, _) => {
                if let Some((name, _)) = intrinsic_call(e) {
                    if matches!(name.as_str(), "sync_threads" | "thread_fence") {
                        return;
                    }
                }
                self.visit_expr(e);
            }
            Stmt::Local(l) => {
                if let Some(mac) = l.init.as_ref().and_then(|i| shared_macro(&i.expr)) {
                    self.error(
                        mac.span(),
                        "declare shared! arrays at the top level of the kernel body (shared memory \
                         belongs to the whole block): `let tile = shared!([f32; 256]);`",
                    );
                    return;
                }
                if let Some(id) = binding_ident(&l.pat) {
                    self.no_shadowing(id);
                }
                visit::visit_local(self, l);
            }
            other => visit::visit_stmt(self, other),
        }
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        if let Some((name, call)) = intrinsic_call(e) {
            return self.intrinsic(&name, call);
        }
        if let Some((root, indices)) = index_chain(e) {
            if let Some(a) = self.array(root) {
                if indices.len() < a.rank() {
                    self.error(
                        e.span(),
                        format!(
                            "index every dimension of the shared! array `{root}`: `{root}[i][j]`"
                        ),
                    );
                }
                for i in indices {
                    self.visit_expr(i);
                }
                return;
            }
        }
        match e {
            Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => {
                if !path_ident(&m.receiver).is_some_and(|r| self.array(r).is_some()) {
                    self.error(
                        m.method.span(),
                        "`.len()` is the length of an array parameter or shared! array: `a.len()`",
                    );
                }
            }
            Expr::Path(_) if path_ident(e).is_some_and(|r| self.array(r).is_some()) => {
                let id = path_ident(e).expect("checked");
                self.error(
                    id.span(),
                    format!(
                        "`{id}` is an array: index it (`{id}[i]`), take its length (`{id}.len()`) or pass \
                         `&mut {id}[i]` to an atomic"
                    ),
                );
            }
            Expr::Assign(a) => {
                self.written(&a.left);
                visit::visit_expr_assign(self, a);
            }
            Expr::Binary(b) if crate::supported::is_compound_assign(&b.op) => {
                self.written(&b.left);
                visit::visit_expr_binary(self, b);
            }
            Expr::Reference(r) => self.error(
                r.span(),
                "`&mut` is only for the target of an atomic: `atomic_add(&mut a[i], v)`",
            ),
            Expr::Macro(m) if m.mac.path.is_ident("shared") => self.error(
                m.span(),
                "declare shared! arrays at the top level of the kernel body: `let tile = shared!([f32; 256]);`",
            ),
            Expr::ForLoop(f) => {
                if let Some(id) = binding_ident(&f.pat) {
                    self.no_shadowing(id);
                }
                visit::visit_expr_for_loop(self, f);
            }
            other => visit::visit_expr(self, other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyse_src(sig: &str, body: &str) -> Result<Analysis, String> {
        let f: syn::ItemFn = syn::parse_str(&format!("{sig} {body}")).unwrap();
        let params = super::super::signature::params(&f).unwrap();
        let body = crate::ir::lower(&f.block, crate::ir::Context::Kernel).unwrap();
        analyse(&f.block, &body, &params).map_err(|e| {
            e.into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    const SIG: &str = "fn k(a: &[f32], c: &mut [u32], n: u32)";

    #[test]
    fn shared_arrays_constants_and_arrays() {
        let an = analyse_src(
            SIG,
            "{ let t = shared!([[f32; TILE]; 2]); let h = shared!([u32; 256]); \
             t[0][1] = a[n] * SCALE; atomic_add(&mut h[c.len()], 1); }",
        )
        .unwrap();
        assert_eq!(an.shared.len(), 2);
        assert_eq!(an.arrays["t"], ArrayKind::Shared { index: 0, rank: 2 });
        assert_eq!(
            an.arrays["c"],
            ArrayKind::Param {
                index: 1,
                writable: true
            }
        );
        let names: Vec<String> = an.constants.iter().map(|c| c.to_string()).collect();
        assert_eq!(names, vec!["SCALE"]);
    }

    #[test]
    fn misuse_is_reported() {
        let e = |body: &str| analyse_src(SIG, body).unwrap_err();
        assert!(e("{ let t = shared!([f32; n]); }").contains("must be a constant"));
        assert!(e("{ if true { let t = shared!([f32; 4]); } }").contains("top level"));
        assert!(e("{ a[0] = 1.0; }").contains("cannot be written"));
        assert!(e("{ atomic_add(&mut a[0], 1.0); }").contains("atomics need"));
        assert!(e("{ let t = shared!([[f32; 4]; 4]); t[0] = 1.0; }").contains("every dimension"));
        assert!(e("{ let x = c; }").contains("is an array"));
        assert!(e("{ let v = sync_threads(); }").contains("statement of its own"));
        assert!(
            e("{ let mut x = 0u32; atomic_add(&mut x, 1); }").contains("target of `atomic_add`")
        );
        assert!(e("{ let c = 1; }").contains("names an array"));
        assert!(e("{ N = 3; }").contains("not a local"));
        assert!(e("{ let t = shared!([u8; 4]); }").contains("element type"));
        assert!(e("{ let x = 1.0f32; let l = x.len(); }").contains("length of an array"));
    }
}
