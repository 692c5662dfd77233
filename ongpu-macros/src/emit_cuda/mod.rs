//! The CUDA C++ emitter: translates a checked body to C++ statements, syntactically; C++
//! overloading resolves the operators (rustc has already checked the types), and the
//! prelude's helpers give the few operations whose C++ meaning differs from Rust's
//! (`%` on floats, shifts, `!`, `as`) their Rust meaning.

pub mod expr;
mod ints;
pub mod kernel;
mod lit;
mod stmt;

use crate::ir::{Block, Body};
use crate::names::{cuda_ident, NamePool};
use std::collections::{HashMap, HashSet};
use syn::Ident;

/// What happens to a block's tail expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// Evaluated as a statement (element-wise bodies).
    Discard,
    /// Returned (device functions).
    Return,
}

/// Translation state of one function or body.
pub struct Translator {
    /// Rust name → C++ name, innermost scope last.
    scopes: Vec<HashMap<String, String>>,
    /// C++ names declared so far in the function (for shadowing).
    declared: HashSet<String>,
    pool: NamePool,
    /// The C++ type of unsuffixed float literals.
    real: String,
    /// The type parameters the body's types may name (Rust name, C++ name).
    type_params: Vec<(String, String)>,
    out: String,
    indent: usize,
    /// Device functions called, as written (`helper`, `util::helper`).
    device_calls: Vec<syn::Path>,
    /// What decides the type of a returned unsuffixed float literal (a device function's
    /// return type).
    returns: lit::Partner,
    /// The arrays and intrinsics of an `#[ongpu::kernel]` body (`None` elsewhere).
    kernel: Option<kernel::KernelArrays>,
    /// C++ name → placeholder type, of the locals bound to untyped integers.
    int_locals: HashMap<String, usize>,
    /// C++ name → C++ type, of the other locals whose type the syntax shows.
    local_types: HashMap<String, String>,
    /// The placeholder types.
    int_types: ints::IntTypes,
    /// Rust names of the captures an `on_gpu!` body only reads: `x[i]` of one is read entry
    /// by entry where it is used (`ONGPU_SITE_ENTRY`), not from a copy of the whole
    /// element loaded at the start of the site.
    site_reads: HashSet<String>,
    /// Rust names of the written captures the body uses only entry by entry: `x[k] = v` of
    /// one stores that entry straight to the field (`ONGPU_SITE_STORE`), `x[k]` reads it
    /// there (`ONGPU_SITE_ENTRY`).
    site_stores: HashSet<String>,
    /// Inside `&...` (a reference to a place, which an entry read is not).
    in_borrow: bool,
}

/// The result of translating a body.
pub struct Translation {
    /// C++ statements.
    pub code: String,
    /// The device functions the body calls.
    pub device_calls: Vec<syn::Path>,
}

/// The C++ name of the device function at `path` (its last segment, prefixed).
pub fn device_fn_name(path: &syn::Path) -> String {
    let last = &path.segments.last().expect("a path has a segment").ident;
    format!("ongpu_fn_{}", last.to_string().trim_start_matches("r#"))
}

impl Translator {
    /// A translator for `body`, whose outer scope binds `bound` (Rust name, C++ name):
    /// captures, the site index, parameters.
    pub fn new(body: &Body, bound: &[(String, String)], real: &str) -> Self {
        let mut used: HashSet<String> = body.names.iter().map(|n| cuda_ident(n)).collect();
        used.extend(bound.iter().map(|(_, c)| c.clone()));
        Translator {
            scopes: vec![bound.iter().cloned().collect()],
            declared: bound.iter().map(|(_, c)| c.clone()).collect(),
            pool: NamePool::new(used),
            real: real.to_string(),
            type_params: body.type_params.clone(),
            out: String::new(),
            indent: 0,
            device_calls: Vec::new(),
            returns: lit::Partner::None,
            kernel: None,
            int_locals: HashMap::new(),
            local_types: HashMap::new(),
            int_types: ints::IntTypes::default(),
            site_reads: HashSet::new(),
            site_stores: HashSet::new(),
            in_borrow: false,
        }
    }

    /// Reads `x[i]` of the read-only captures `names` entry by entry where the body uses
    /// them: only the entries used are loaded, each where it is needed, so that a large
    /// element (a site's clover blocks) does not hold registers through the whole body.
    pub fn reading_sites(mut self, names: impl IntoIterator<Item = String>) -> Self {
        self.site_reads = names.into_iter().collect();
        self
    }

    /// Reads and writes the written captures `names` (which the body uses only as entries
    /// `x[k]`) entry by entry in the field: the element is neither loaded nor held whole.
    pub fn storing_entries(mut self, names: impl IntoIterator<Item = String>) -> Self {
        self.site_stores = names.into_iter().collect();
        self
    }

    /// The C++ capture name and index of `place` if it is an entry `x[k]` of a capture
    /// stored entry by entry (and `x` is not shadowed).
    fn site_store(&mut self, place: &crate::ir::Expr) -> Option<(String, String)> {
        let crate::ir::Expr::Index(base, _, index) = place else {
            return None;
        };
        let crate::ir::Expr::Var(id) = &**base else {
            return None;
        };
        let rust = id.to_string();
        let cpp = cuda_ident(&rust);
        (self.site_stores.contains(&rust) && self.lookup(&rust) == cpp)
            .then(|| (cpp, self.expr(index)))
    }

    /// `x[k] op= r` of a capture stored entry by entry: the entry read, combined and stored.
    fn entry_compound(
        &mut self,
        place: &crate::ir::Expr,
        op: &syn::BinOp,
        r: &crate::ir::Expr,
    ) -> Option<String> {
        let (name, index) = self.site_store(place)?;
        let (ls, rs) = self.operands(place, r, true, ints::is_shift(op));
        let value = self.combined(op, ls, rs);
        Some(format!("ONGPU_SITE_STORE({name}, ({index}), ({value}))"))
    }

    /// `x[k] = r` of a capture stored entry by entry, as a C++ expression (`r` typed like
    /// the entry, as an assignment types it).
    fn entry_store(&mut self, place: &crate::ir::Expr, r: &crate::ir::Expr) -> Option<String> {
        let (name, index) = self.site_store(place)?;
        let ls = self.expr(place);
        let partner = self.partner_of(place, &ls);
        let value = self.expr_like(r, &partner);
        Some(format!("ONGPU_SITE_STORE({name}, ({index}), ({value}))"))
    }

    /// True if `rust` names a capture read entry by entry: not shadowed by a local (a
    /// `let` at the body's top level shares the captures' scope, under a fresh C++ name).
    fn is_site_read(&self, rust: &str) -> bool {
        !self.in_borrow
            && (self.site_reads.contains(rust) || self.site_stores.contains(rust))
            && self.lookup(rust) == cuda_ident(rust)
    }

    /// Types returned unsuffixed float literals as `ty` (a device function's result type).
    pub fn returning(mut self, ty: &str) -> Self {
        self.returns = lit::Partner::Type(ty.to_string());
        self
    }

    /// Translates the statements of `block` (without braces).
    pub fn translate(mut self, block: &Block, tail: Tail) -> Translation {
        self.stmts(block, tail);
        Translation {
            code: self.int_types.finish(self.out),
            device_calls: self.device_calls,
        }
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn lookup(&self, rust: &str) -> String {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(rust).cloned())
            .unwrap_or_else(|| cuda_ident(rust))
    }

    /// Declares a new binding in the current scope and returns its C++ name.
    fn bind(&mut self, rust: &Ident) -> String {
        let rust = rust.to_string();
        let base = cuda_ident(&rust);
        let name = self.pool.fresh(&base, self.declared.contains(&base));
        self.declared.insert(base);
        self.declared.insert(name.clone());
        self.scopes
            .last_mut()
            .expect("a scope")
            .insert(rust, name.clone());
        name
    }

    /// A fresh C++ name for a generated temporary.
    fn temp(&mut self, hint: &str) -> String {
        let name = self.pool.fresh(hint, self.declared.contains(hint));
        self.declared.insert(hint.to_string());
        self.declared.insert(name.clone());
        name
    }

    fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    fn pop_scope(&mut self) {
        self.scopes.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn body(src: &str) -> String {
        let b: syn::Block = syn::parse_str(src).unwrap();
        let b = crate::ir::lower(&b, crate::ir::Context::OnGpu).unwrap();
        let bound = vec![
            ("x".into(), "x".into()),
            ("y".into(), "y".into()),
            ("i".into(), "i".into()),
        ];
        Translator::new(&b, &bound, "ongpu_real")
            .translate(&b.block, Tail::Discard)
            .code
    }

    #[test]
    fn statements_translate() {
        let c = body("{ let a = y * 2.0; let mut b: f32 = 0.0; b += a; x = b; }");
        assert_eq!(c, "auto a = (y * ongpu::lit<decltype(y), ongpu_real>(2.0f, 2.0));\nfloat b = 0.0f;\nb += a;\nx = b;\n");
    }

    /// `y[k]` of a read-only capture is an entry read at the site, until a `let` shadows it
    /// (even at the top level, where the local shares the captures' scope).
    #[test]
    fn read_only_captures_are_read_entry_by_entry_until_shadowed() {
        let b: syn::Block = syn::parse_str("{ let a = y[0]; let y = a; x = y[1]; }").unwrap();
        let b = crate::ir::lower(&b, crate::ir::Context::OnGpu).unwrap();
        let bound = vec![("x".into(), "x".into()), ("y".into(), "y".into())];
        let c = Translator::new(&b, &bound, "ongpu_real")
            .reading_sites(["y".to_string()])
            .translate(&b.block, Tail::Discard)
            .code;
        assert!(c.contains("auto a = ONGPU_SITE_ENTRY(y, 0);"), "{c}");
        assert!(c.contains("x = y_1[1];"), "{c}");
        assert!(!c.contains("ONGPU_SITE_ENTRY(y_1"), "{c}");
    }

    /// `x[k] = v` of a capture stored entry by entry is an entry store, until a `let`
    /// shadows it.
    #[test]
    fn entry_stored_captures_store_entry_by_entry_until_shadowed() {
        let src = "{ for s in 0..4 { x[s] = y * 2.0; } let mut x = y; x[0] = y; }";
        let b: syn::Block = syn::parse_str(src).unwrap();
        let b = crate::ir::lower(&b, crate::ir::Context::OnGpu).unwrap();
        let bound = vec![("x".into(), "x".into()), ("y".into(), "y".into())];
        let c = Translator::new(&b, &bound, "ongpu_real")
            .storing_entries(["x".to_string()])
            .translate(&b.block, Tail::Discard)
            .code;
        assert!(
            c.contains(
                "ONGPU_SITE_STORE(x, (s), ((y * ongpu::lit<decltype(y), ongpu_real>(2.0f, 2.0))));"
            ),
            "{c}"
        );
        assert!(c.contains("x_1[0] = y;"), "{c}");

        let b: syn::Block = syn::parse_str("{ x[1] += x[0] * y; }").unwrap();
        let b = crate::ir::lower(&b, crate::ir::Context::OnGpu).unwrap();
        let c = Translator::new(&b, &bound, "ongpu_real")
            .storing_entries(["x".to_string()])
            .translate(&b.block, Tail::Discard)
            .code;
        assert_eq!(
            c,
            "ONGPU_SITE_STORE(x, (1), ((ONGPU_SITE_ENTRY(x, 1) + (ONGPU_SITE_ENTRY(x, 0) * y))));\n"
        );
    }

    #[test]
    fn shadowing_in_one_scope_renames() {
        let c = body("{ let a = 1; let a = a + 1; x = a as f32; }");
        assert!(c.contains("int a = 1;"), "{c}");
        assert!(c.contains("int a_1 = ((int)(a) + 1);"), "{c}");
        assert!(c.contains("x = ongpu::cast<float>(a_1);"), "{c}");
    }

    #[test]
    fn rust_semantics_helpers() {
        let c = body("{ x = y % 2.0; let k = !(i << 3u32); }");
        assert!(
            c.contains("ongpu::rem(y, ongpu::lit<decltype(y), ongpu_real>(2.0f, 2.0))"),
            "{c}"
        );
        assert!(c.contains("ongpu::not_((ongpu::shl(i, 3u)))"), "{c}");
    }

    #[test]
    fn loops_and_branches() {
        let c = body("{ for k in 0..3 { if k == 1 { x += y; } else { x -= y; } } }");
        assert!(
            c.contains("for (int k = 0, ongpu_end = 3; k < ongpu_end; ++k) {"),
            "{c}"
        );
        assert!(c.contains("if ((k == 1)) {"), "{c}");
        assert!(c.contains("} else {"), "{c}");
    }

    #[test]
    fn methods_fields_and_paths() {
        let c = body("{ x = y.adj() * ColorMatrix::identity(); let t = x.trace().re; let z = Complex::new(t, 0.0); }");
        assert!(
            c.contains("x = (ongpu::adj(y) * ongpu::ColorMatrix<ongpu_real>::identity());"),
            "{c}"
        );
        assert!(c.contains("auto t = ongpu::trace(x).re;"), "{c}");
        assert!(
            c.contains("ongpu::make_complex(t, ongpu::lit<decltype(t), ongpu_real>(0.0f, 0.0))"),
            "{c}"
        );
    }

    #[test]
    fn array_constructors_pass_their_entries_in_row_major_order() {
        let c = body("{ u = ColorVector::new([a, b, c]); x = ColorMatrix::<f32>::new([[a, b, c], [b, c, a], [c, a, b]]); }");
        assert!(c.contains("u = ongpu::make_color_vector(a, b, c);"), "{c}");
        assert!(
            c.contains("x = ongpu::make_color_matrix<float>(a, b, c, b, c, a, c, a, b);"),
            "{c}"
        );
    }

    #[test]
    fn unsuffixed_integers_take_the_type_rust_infers() {
        let c = body("{ let t: u64 = 1 << 40; let big: u64 = 100000 * 100000; }");
        assert!(
            c.contains("unsigned long long t = ongpu::shl(1ull, 40);"),
            "{c}"
        );
        assert!(
            c.contains("unsigned long long big = (100000ull * 100000ull);"),
            "{c}"
        );
        // The other operand decides; a shift's amount keeps its own type.
        let c = body("{ x = y * (100000 * 100000); let s = 1 << y; }");
        assert!(
            c.contains(
                "(ongpu::lit_int<decltype(y)>(100000) * ongpu::lit_int<decltype(y)>(100000))"
            ),
            "{c}"
        );
        assert!(c.contains("int s = ongpu::shl(1, y);"), "{c}");
    }

    #[test]
    fn untyped_locals_take_the_type_of_their_first_typed_use() {
        let c = body("{ let a = 1; let b = a << 40; let t: u64 = b; }");
        assert!(c.contains("unsigned long long a = 1ull;"), "{c}");
        assert!(
            c.contains("unsigned long long b = ongpu::shl((unsigned long long)(a), 40);"),
            "{c}"
        );
        let c = body("{ let mut acc = 0; for k in 0..4 { acc += y; x = k << 40; } }");
        assert!(
            c.contains("ongpu::int_type<decltype(y)> acc = ongpu::lit_int<ongpu::int_type<decltype(y)>>(0);"),
            "{c}"
        );
        assert!(
            c.contains("for (ongpu::int_type<decltype(x)> k = ongpu::lit_int<ongpu::int_type<decltype(x)>>(0)"),
            "{c}"
        );
        // Nothing typed: Rust's default, i32.
        let c = body("{ for k in 0..4 { let j = k + 1; } }");
        assert!(c.contains("for (int k = 0, ongpu_end = 4;"), "{c}");
        assert!(c.contains("int j = ((int)(k) + 1);"), "{c}");
    }

    #[test]
    fn if_expression_becomes_ternary() {
        let c = body("{ let a = if y > 0.0 { y } else { -y }; }");
        assert!(
            c.contains(
                "auto a = ((y > ongpu::lit<decltype(y), ongpu_real>(0.0f, 0.0)) ? y : (-y));"
            ),
            "{c}"
        );
    }
}
