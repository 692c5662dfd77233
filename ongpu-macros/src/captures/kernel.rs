//! What a kernel body declares and how it uses its arrays: `shared!` arrays (declared at
//! the top level of the body, of constant size), the arrays' allowed uses (indexing every
//! dimension, `.len()`, `&mut a[i]` as an atomic's target), writes only to writable arrays,
//! barriers as statements, and the free names, which are constants.

use crate::captures;
use crate::input::kernel_signature::{Param, ParamKind};
use crate::input::kernel_syntax::shared_type;
use crate::ir::visit::{self, Visit};
use crate::ir::{Body, Call, Callee, Expr, Let, Stmt};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;
use std::collections::{BTreeSet, HashMap, HashSet};
use syn::spanned::Spanned;
use syn::{Ident, Type};

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
    /// Its extents, outermost first (constants, kept as written).
    pub dims: Vec<syn::Expr>,
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
    /// The 2-D `shared!` arrays (by index) whose rows `load4`/`store4` move: their rows must
    /// hold a multiple of 4 elements, so that every row is aligned.
    pub vector_rows: BTreeSet<usize>,
}

/// Element types of `shared!` arrays (as for `Field`s).
fn shared_element_ok(t: &Type) -> bool {
    match crate::types::cuda_type(t, "ongpu_real") {
        Ok(c) if c.contains('<') => !c.contains("ongpu_real"),
        Ok(c) => matches!(c.as_str(), "float" | "double" | "int" | "unsigned int"),
        Err(()) => false,
    }
}

/// The first of `names` among `tokens` (a `shared!` size stays tokens: it is a constant of
/// the type, not an expression of the body).
fn first_name_in(tokens: TokenStream, names: &HashSet<String>) -> Option<Ident> {
    tokens.into_iter().find_map(|t| match t {
        TokenTree::Ident(i) if names.contains(&i.to_string()) => Some(i),
        TokenTree::Group(g) => first_name_in(g.stream(), names),
        _ => None,
    })
}

/// Analyses `body` (lowered in `Context::Kernel`).
pub fn analyse(body: &Body, params: &[Param]) -> syn::Result<Analysis> {
    let mut v = Validator {
        arrays: HashMap::new(),
        vector_rows: BTreeSet::new(),
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
    for stmt in &body.block.stmts {
        let Stmt::Let(l) = stmt else {
            v.visit_stmt(stmt);
            continue;
        };
        let Some((_, Expr::Shared(mac))) = &l.init else {
            v.visit_stmt(stmt);
            in_scope.insert(l.binding.ident.to_string());
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
    for name in body.array_len_names() {
        if !constants.contains(&name) {
            v.error(
                name.span(),
                format!(
                    "the size of a local array must be a constant (a literal or a `const` item): \
                     `{name}` is a variable of the kernel; a local array lives in registers, \
                     whose number is fixed when the kernel is compiled"
                ),
            );
        }
    }
    match v.errors {
        Some(e) => Err(e),
        None => Ok(Analysis {
            arrays: v.arrays,
            shared,
            constants,
            vector_rows: v.vector_rows,
        }),
    }
}

fn declare_shared(
    l: &Let,
    mac: &syn::Macro,
    in_scope: &HashSet<String>,
    arrays: &HashMap<String, ArrayKind>,
    index: usize,
) -> syn::Result<SharedArray> {
    let (m, ident) = (&l.binding.mutability, l.binding.ident.clone());
    if let Some((colon, ty)) = &l.ty {
        return Err(syn::Error::new(
            quote!(#m #ident #colon #ty).span(),
            "bind a shared! array to a plain name, without a type: `let tile = shared!([f32; 256]);`",
        ));
    }
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
        if let Some(name) = first_name_in(quote!(#d), in_scope) {
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
    vector_rows: BTreeSet<usize>,
    errors: Option<syn::Error>,
}

/// The name a place (`a`, `a[i]`, `a[i].re`) is rooted at.
fn place_root(e: &Expr) -> Option<&Ident> {
    match e {
        Expr::Var(id) => Some(id),
        Expr::Index(base, ..) | Expr::Field(base, ..) | Expr::Paren(_, base) => place_root(base),
        _ => None,
    }
}

/// The name a call names, if it is a plain one (`f(x)`).
fn callee_ident(c: &Callee) -> Option<&Ident> {
    match c {
        Callee::Math(id) => Some(id),
        Callee::Device(p) | Callee::Associated(p) | Callee::ArrayConstructor(p, _) => p.get_ident(),
        Callee::Intrinsic(_) => None,
    }
}

/// `sync_threads()` or `thread_fence()`, which are statements.
fn is_barrier(e: &Expr) -> bool {
    e.intrinsic_call()
        .is_some_and(|(name, _)| name == "sync_threads" || name == "thread_fence")
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

    /// An array named as a value.
    fn not_a_value(&mut self, id: &Ident) {
        self.error(
            id.span(),
            format!(
                "`{id}` is an array: index it (`{id}[i]`), take its length (`{id}.len()`) or pass \
                 `&mut {id}[i]` to an atomic"
            ),
        );
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

    /// `name(args)` of a kernel intrinsic in expression position (`e` is the call).
    fn intrinsic(&mut self, name: &Ident, call: &Call, e: &Expr) {
        if name == "sync_threads" || name == "thread_fence" {
            self.error(
                e.span(),
                format!("`{name}()` is a statement of its own: write `{name}();`"),
            );
            return;
        }
        if !name.to_string().starts_with("atomic_") {
            return;
        }
        let mut args = call.args.iter();
        let target = args.next();
        let ok = match target {
            Some(Expr::RefMut(_, _, place)) => match place.index_chain() {
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
                target.map_or(e.span(), Spanned::span),
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

impl Validator {
    /// `a.load4(q)`, `s[i].store4(q, v)` (`e` is the method call, named `name`).
    fn vector(&mut self, name: &Ident, e: &Expr) {
        let access = e.vector_access();
        let array = access.as_ref().and_then(|v| Some((v, self.array(v.root)?)));
        let Some((v, a)) = array.filter(|(v, a)| a.rank() == 1 + usize::from(v.row.is_some()))
        else {
            return self.error(
                e.span(),
                format!(
                    "`.{name}()` moves 4 elements of an array parameter or shared! array: \
                     `a.{name}(q)` (elements 4q..4q+3), for a 2-D shared array `s[i].{name}(q)`"
                ),
            );
        };
        if v.is_store() && !a.writable() {
            self.error(
                v.root.span(),
                format!(
                    "`{}` is a `&[T]` parameter and cannot be written; declare it `&mut [T]`",
                    v.root
                ),
            );
        }
        if let (ArrayKind::Shared { index, rank: 2 }, Some(_)) = (a, v.row) {
            self.vector_rows.insert(index);
        }
        for x in v.row.into_iter().chain(v.args.iter().copied()) {
            self.visit_expr(x);
        }
    }
}

impl Validator {
    /// The arguments of a device function: an array passes by name (1-D only), the rest are
    /// values.
    fn device_args(&mut self, c: &Call) {
        for a in &c.args {
            match a.var().and_then(|v| Some((v, self.array(v)?))) {
                Some((_, a)) if a.rank() == 1 => {}
                Some((v, _)) => self.error(
                    v.span(),
                    format!(
                        "`{v}` is a 2-D shared! array: a device function takes 1-D arrays \
                         (`&[T]`, `&mut [T]`); pass its elements or declare it 1-D"
                    ),
                ),
                None => self.visit_expr(a),
            }
        }
    }
}

impl Visit for Validator {
    fn visit_stmt(&mut self, s: &Stmt) {
        if !matches!(s, Stmt::Expr(e, _) if is_barrier(e)) {
            visit::walk_stmt(self, s);
        }
    }

    fn visit_let(&mut self, l: &Let) {
        if let Some((_, Expr::Shared(mac))) = &l.init {
            self.error(
                mac.span(),
                "declare shared! arrays at the top level of the kernel body (shared memory \
                 belongs to the whole block): `let tile = shared!([f32; 256]);`",
            );
            return;
        }
        self.no_shadowing(&l.binding.ident);
        visit::walk_let(self, l);
    }

    fn visit_expr(&mut self, e: &Expr) {
        if let Some((name, call)) = e.intrinsic_call() {
            return self.intrinsic(name, call, e);
        }
        if let Expr::Method(m) = e {
            if crate::supported::vector_method(&m.name.to_string()).is_some() {
                return self.vector(&m.name, e);
            }
        }
        if let Some((root, indices)) = e.index_chain() {
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
            Expr::Len(receiver, _, name, _) => {
                if !receiver.var().is_some_and(|r| self.array(r).is_some()) {
                    self.error(
                        name.span(),
                        "`.len()` is the length of an array parameter or shared! array: `a.len()`",
                    );
                }
            }
            Expr::Var(id) if self.array(id).is_some() => self.not_a_value(id),
            Expr::Call(c) => {
                if let Some(id) = callee_ident(&c.callee).filter(|id| self.array(id).is_some()) {
                    self.not_a_value(id);
                }
                if matches!(c.callee, Callee::Device(_)) {
                    return self.device_args(c);
                }
                visit::walk_expr(self, e);
            }
            Expr::Borrow(_, m, place) => {
                if let Some(root) = place_root(place).filter(|r| self.array(r).is_some()) {
                    let m = if m.is_some() { "mut " } else { "" };
                    self.error(
                        root.span(),
                        format!(
                            "`{root}` is an array of the kernel: pass it by name, `f({root})`, to \
                             a device function's `&{m}[T]` parameter (`&` passes a local array)"
                        ),
                    );
                }
                visit::walk_expr(self, e);
            }
            Expr::Assign(left, ..) => {
                self.written(left);
                visit::walk_expr(self, e);
            }
            Expr::Binary(left, ..) if e.is_compound_assign() => {
                self.written(left);
                visit::walk_expr(self, e);
            }
            Expr::RefMut(..) => self.error(
                e.span(),
                "`&mut` is only for the target of an atomic: `atomic_add(&mut a[i], v)`",
            ),
            Expr::Shared(m) => self.error(
                m.span(),
                "declare shared! arrays at the top level of the kernel body: `let tile = shared!([f32; 256]);`",
            ),
            Expr::For(f) => {
                self.no_shadowing(&f.binding.ident);
                visit::walk_expr(self, e);
            }
            _ => visit::walk_expr(self, e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyse_src(sig: &str, body: &str) -> Result<Analysis, String> {
        let f: syn::ItemFn = syn::parse_str(&format!("{sig} {body}")).unwrap();
        let params = crate::input::kernel_signature::params(&f).unwrap();
        let body = crate::ir::lower(&f.block, crate::ir::Context::Kernel).unwrap();
        analyse(&body, &params).map_err(|e| {
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
        assert!(e("{ let t: f32 = shared!([f32; 4]); }").contains("plain name"));
        assert!(e("{ let x = a(1.0); }").contains("is an array"));
        assert!(e("{ let x = &mut c[0]; }").contains("only for the target"));
        assert!(e("{ let t = [0.0f32; n]; }").contains("local array must be a constant"));
        assert!(e("{ let k = 4; let t = [[0u32; 2]; k]; }").contains("`k` is a variable"));
        assert!(e("{ let x = f(&a); }").contains("pass it by name"));
        assert!(e("{ let t = shared!([[f32; 4]; 4]); f(t); }").contains("2-D shared! array"));
        assert!(e("{ let x = f(a[0] + a); }").contains("is an array"));
        analyse_src(
            SIG,
            "{ let t = shared!([f32; 4]); let mut r = [0u32; 2]; f(a, c, t, &mut r); }",
        )
        .unwrap();
    }

    #[test]
    fn vector_accesses() {
        let an = analyse_src(
            SIG,
            "{ let t = shared!([[f32; 8]; 2]); let s = shared!([u32; 8]); \
             t[1].store4(n, a.load4(0)); c.store4(1, s.load4(n)); }",
        )
        .unwrap();
        assert_eq!(an.vector_rows.iter().copied().collect::<Vec<_>>(), vec![0]);
        let e = |body: &str| analyse_src(SIG, body).unwrap_err();
        assert!(e("{ a.store4(0, [1.0; 4]); }").contains("cannot be written"));
        assert!(
            e("{ let t = shared!([[f32; 8]; 2]); let x = t.load4(0); }").contains("s[i].load4(q)")
        );
        assert!(e("{ let x = [0.0f32; 8]; let y = x.load4(0); }").contains("moves 4 elements"));
        assert!(e("{ let y = c[0].load4(0); }").contains("moves 4 elements"));
    }

    #[test]
    fn local_array_sizes_are_constants() {
        let an = analyse_src(
            SIG,
            "{ let mut t = [[0.0f32; TM]; 2 * TN]; t[0][1] = a[n]; }",
        )
        .unwrap();
        let names: Vec<String> = an.constants.iter().map(|c| c.to_string()).collect();
        assert_eq!(names, vec!["TM", "TN"]);
    }
}
