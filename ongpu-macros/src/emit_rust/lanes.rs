//! The body at the lanes of a group on the CPU backend: the same statements as at a lone
//! site, lowered so that every operation runs over the group's lanes once the compiler
//! vectorises the lane loop.
//!
//! - A shift one step along a direction (`f.shift(mu, 1)`, `f.shift(mu, -1)[mu]`) reads the
//!   neighbour from the group's gathered buffer (`near`, `near_entry`, `near_diagonal`): one
//!   component of consecutive lanes adjacent, no table lookup or check per lane. The
//!   neighbours each shifted field needs are collected as [`Gathers`] masks for the runtime,
//!   which gathers them once a group.
//! - A longer shift whose hops are constants or captured values (`f.shift(1, 2)`, a staple's
//!   `u.shift(mu, 1).shift(nu, -1)[nu]` in an unrolled loop or with `mu`, `nu` captured)
//!   reads a slot of its own (`far`, `far_entry`), gathered once a group too, only the
//!   entries the body reads; the call site reads the captured values (`with_values`), the
//!   same for every site. So does a single step along a captured direction.
//! - A `for` loop over constant bounds is unrolled (a loop variable of an unrolled loop is a
//!   constant in the loops inside it), so that the lane loop holds straight-line code: LLVM
//!   vectorises only innermost loops, and does not unroll a loop as long as a Dslash's.
//!
//! What the lowering cannot express stays as at a lone site, and the body is recorded as
//! falling back, with the reason ([`Lowering`]): those lanes run one after another.

use super::body::{self, shift_view, EmitRust};
use crate::ir::{Block, Expr, For, Let, Shift, Stmt};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::{BTreeMap, HashMap};

/// A shift the lanes read from gathered buffers: `steps` (1, or 3 for the Naik term) along
/// `mu` (every direction where it is not a constant), backward if `back`.
#[derive(Clone, Copy)]
struct Near {
    mu: Option<i128>,
    back: bool,
    steps: usize,
}

/// Why a body with a shift the lanes do not gather falls back.
const FAR_SHIFT: &str =
    "a shift of other than one or three steps, or of several hops, whose distance or direction is set per site";

/// Why a body with more longer shifts of one field than a group gathers falls back.
const TOO_MANY_FAR: &str =
    "more than 16 longer shifts of one field, or more than 8 captured values directing them";

/// The most longer shifts of one field that a group gathers (the runtime's `MAX_FAR`).
const MAX_FAR: usize = 16;

/// The most hops of a gathered shift (the runtime's `MAX_HOPS`).
const MAX_HOPS: usize = 8;

/// The most captured values the shifts of one field name (the runtime's `MAX_VALUES`).
const MAX_VALUES: usize = 8;

/// Loops of at most this many iterations are unrolled.
const MAX_UNROLL: i128 = 16;

/// The neighbours a body reads of one shifted field: bit `2 * mu + back + 8 * (steps == 3)`,
/// and the longer shifts.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct Gathers {
    /// Read whole.
    pub whole: u16,
    /// Only their entry `mu` read (`f.shift(mu, ±1)[mu]`).
    pub diagonal: u16,
    /// The longer shifts, in the order of their slots.
    pub far: Vec<FarRead>,
    /// The captures the longer shifts name, in the order of their values.
    values: Vec<syn::Ident>,
}

/// A hop's direction or distance: a constant, or a capture's value (its index in
/// [`Gathers::values`]).
#[derive(Clone, Debug, PartialEq, Eq)]
enum HopArg {
    Const(i64),
    Value(u8),
}

/// A hop's direction or distance as the body names it, before its value has an index.
enum HopSource {
    Const(i64),
    Capture(syn::Ident),
}

/// A longer shift, and what the body reads there.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct FarRead {
    /// `(direction, steps)`, in the order the shift takes them.
    hops: Vec<(HopArg, HopArg)>,
    /// Bit `e`: entry `e` read.
    entries: u32,
    /// The entry read that a captured value names.
    entry_value: Option<u8>,
    /// Read whole (or at an entry neither a constant nor one captured value).
    whole: bool,
}

impl Gathers {
    /// The index of capture `id`'s value; `None` once there are `MAX_VALUES` others.
    fn value(&mut self, id: &syn::Ident) -> Option<u8> {
        if let Some(i) = self.values.iter().position(|v| v == id) {
            return Some(i as u8);
        }
        (self.values.len() < MAX_VALUES).then(|| {
            self.values.push(id.clone());
            (self.values.len() - 1) as u8
        })
    }
}

/// How the CPU backend runs the body's lanes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lowering {
    /// Every construct lowered: the lanes vectorise.
    LaneMajor,
    /// Every construct lowered, the body run in this many runs of its statements, each over
    /// the group's lanes before the next (`chunks`).
    Runs(usize),
    /// The first construct that keeps the lanes one after another, in words.
    Fallback(&'static str),
}

/// The lane emitter: shifts to gathered neighbours, constant loops unrolled.
#[derive(Default)]
pub struct Lanes {
    /// The shifted captures, while no local shadows them: their entries at the lane's own
    /// site are read one entry at a time (`u[mu]`: a colour matrix, not the four a site
    /// holds, whose copy is a loop the compiler keeps, and then the lanes stay scalar).
    shifted: std::collections::HashSet<String>,
    /// Values of the variables of the unrolled loops around the statement being emitted.
    constants: HashMap<String, i128>,
    /// The captures read as values (neither written nor shifted) that no binding of the
    /// body shadows anywhere: the same at every site, so the call site reads them for the
    /// shifts they direct.
    uniform: std::collections::HashSet<String>,
    /// Per shifted field, the neighbours to gather.
    pub gathers: BTreeMap<String, Gathers>,
    /// The first construct that falls back.
    fallback: Option<&'static str>,
    /// True once a loop was unrolled.
    pub unrolled: bool,
}

impl Lanes {
    /// The emitter for a body whose shifted captures are `shifted`, and whose captures read
    /// as values, not bound again in the body, are `uniform`.
    pub fn new<'a>(
        shifted: impl IntoIterator<Item = &'a syn::Ident>,
        uniform: impl IntoIterator<Item = &'a syn::Ident>,
    ) -> Self {
        Lanes {
            shifted: shifted.into_iter().map(|i| i.to_string()).collect(),
            uniform: uniform.into_iter().map(|i| i.to_string()).collect(),
            ..Lanes::default()
        }
    }

    /// A captured value, the same at every site, that `e` names.
    fn uniform_var<'e>(&self, e: &'e Expr) -> Option<&'e syn::Ident> {
        match strip(e) {
            Expr::Var(id) if self.uniform.contains(&id.to_string()) => Some(id),
            _ => None,
        }
    }

    /// How the body's lanes run.
    pub fn lowering(&self) -> Lowering {
        match self.fallback {
            None => Lowering::LaneMajor,
            Some(why) => Lowering::Fallback(why),
        }
    }

    fn fall_back(&mut self, why: &'static str) {
        self.fallback.get_or_insert(why);
    }

    /// The integer value of a constant expression: a literal, the variable of an unrolled
    /// loop, or their sums, differences, products and negations.
    fn constant(&self, e: &Expr) -> Option<i128> {
        match strip(e) {
            Expr::Lit(syn::Lit::Int(i)) => i.base10_parse().ok(),
            Expr::Unary(syn::UnOp::Neg(_), x) => self.constant(x).map(|v| -v),
            Expr::Binary(a, op, b) => {
                let (a, b) = (self.constant(a)?, self.constant(b)?);
                match op {
                    syn::BinOp::Add(_) => a.checked_add(b),
                    syn::BinOp::Sub(_) => a.checked_sub(b),
                    syn::BinOp::Mul(_) => a.checked_mul(b),
                    _ => None,
                }
            }
            Expr::Var(id) => self.constants.get(&id.to_string()).copied(),
            _ => None,
        }
    }

    /// The direction, sign and steps of a shift one or three steps (the Naik term's) along
    /// one direction; the direction is `None` where it is not a constant.
    fn near(&self, s: &Shift) -> Option<Near> {
        let [hop] = s.hops.as_slice() else {
            return None;
        };
        let (back, steps) = match self.constant(&hop.k)? {
            1 => (false, 1),
            -1 => (true, 1),
            3 => (false, 3),
            -3 => (true, 3),
            _ => return None,
        };
        match self.constant(&hop.mu) {
            // A direction out of range goes through the lone site's path, which reports it.
            Some(mu) if !(0..4).contains(&mu) => None,
            // A captured direction: one slot, of the direction the call site reads (not
            // the four directions gathered).
            None if self.uniform_var(&hop.mu).is_some() => None,
            mu => Some(Near { mu, back, steps }),
        }
    }

    /// The hops of a shift whose every direction and distance is a constant (a direction
    /// in range) or a captured value.
    fn far(&self, s: &Shift) -> Option<Vec<(HopSource, HopSource)>> {
        if s.hops.len() > MAX_HOPS {
            return None;
        }
        let source = |e: &Expr, direction: bool| match self.constant(e) {
            Some(v) if direction && !(0..4).contains(&v) => None,
            Some(v) => i64::try_from(v).ok().map(HopSource::Const),
            None => self.uniform_var(e).cloned().map(HopSource::Capture),
        };
        s.hops
            .iter()
            .map(|h| Some((source(&h.mu, true)?, source(&h.k, false)?)))
            .collect()
    }

    /// A gathered longer shift: the neighbour, whole or one entry of it; `None` where the
    /// field has more longer shifts, or they name more captured values, than a group
    /// gathers.
    fn far_read(
        &mut self,
        s: &Shift,
        hops: Vec<(HopSource, HopSource)>,
        index: Option<&Expr>,
    ) -> Option<TokenStream> {
        let entry = index.map(|i| (self.constant(i), self.uniform_var(i).cloned()));
        let gathers = self.gathers.entry(s.field.to_string()).or_default();
        let mut arg = |h: HopSource| match h {
            HopSource::Const(v) => Some(HopArg::Const(v)),
            HopSource::Capture(id) => gathers.value(&id).map(HopArg::Value),
        };
        let hops: Vec<_> = hops
            .into_iter()
            .map(|(mu, k)| Some((arg(mu)?, arg(k)?)))
            .collect::<Option<_>>()?;
        let entry = match entry {
            Some((None, Some(id))) => Some((None, gathers.value(&id))),
            Some((c, _)) => Some((c, None)),
            None => None,
        };
        let reads = &mut gathers.far;
        let k = match reads.iter().position(|f| f.hops == hops) {
            Some(k) => k,
            None if reads.len() < MAX_FAR => {
                reads.push(FarRead {
                    hops,
                    ..FarRead::default()
                });
                reads.len() - 1
            }
            None => return None,
        };
        let read = &mut reads[k];
        match entry {
            None => read.whole = true,
            Some((Some(e), _)) if (0..32).contains(&e) => read.entries |= 1 << e,
            Some((None, Some(v))) if read.entry_value.is_none() || read.entry_value == Some(v) => {
                read.entry_value = Some(v)
            }
            Some(_) => read.whole = true,
        }
        let (view, site) = (shift_view(&s.field), site_var());
        let span = s.field.span();
        Some(match index {
            None => quote_spanned!(span=> #view.far(#site, #k)),
            Some(i) => {
                let i = self.expr(i);
                quote_spanned!(span=> #view.far_entry(#site, #k, ::ongpu::__private::index(#i)))
            }
        })
    }

    /// A shift that is neither near nor of constant or captured hops reads through the
    /// table, and the body falls back.
    fn far_or_fall_back(&mut self, s: &Shift, index: Option<&Expr>, e: &Expr) -> TokenStream {
        let Some(hops) = self.far(s) else {
            self.fall_back(FAR_SHIFT);
            return body::expr(self, e);
        };
        match self.far_read(s, hops, index) {
            Some(t) => t,
            None => {
                self.fall_back(TOO_MANY_FAR);
                body::expr(self, e)
            }
        }
    }

    /// Records that `field`'s neighbours `near` names (every direction where it is not a
    /// constant) are read, whole or only their diagonal entry.
    fn gather(&mut self, field: &syn::Ident, near: Near, diagonal: bool) {
        let dirs = near.mu.map_or(0..4, |m| m..m + 1);
        let g = self.gathers.entry(field.to_string()).or_default();
        for m in dirs {
            let far = if near.steps == 3 { 8 } else { 0 };
            let bit = 1u16 << (2 * m as u32 + near.back as u32 + far);
            if diagonal {
                g.diagonal |= bit;
            } else {
                g.whole |= bit;
            }
        }
    }

    /// A gathered shift: the neighbour, whole or one entry of it.
    fn near_read(&mut self, s: &Shift, near: Near, index: Option<&Expr>) -> TokenStream {
        let hop = &s.hops[0];
        let (view, site) = (shift_view(&s.field), site_var());
        let mu_tokens = self.expr(&hop.mu);
        let (back, steps) = (near.back, near.steps);
        let span = s.field.span();
        match index {
            None => {
                self.gather(&s.field, near, false);
                quote_spanned!(span=> #view.near(#site, #mu_tokens, #back, #steps))
            }
            Some(i) if same_value(self, i, &hop.mu) => {
                self.gather(&s.field, near, true);
                quote_spanned!(span=> #view.near_diagonal(#site, #mu_tokens, #back, #steps))
            }
            Some(i) => {
                self.gather(&s.field, near, false);
                let i = self.expr(i);
                quote_spanned!(span=> #view.near_entry(
                    #site, #mu_tokens, #back, #steps, ::ongpu::__private::index(#i)))
            }
        }
    }

    /// `for v in a..b` over constant bounds, unrolled: one block per value, binding `v`.
    fn unroll(&mut self, f: &For) -> Option<TokenStream> {
        let (start, end) = (self.constant(&f.start)?, self.constant(&f.end)?);
        let end = match f.limits {
            syn::RangeLimits::HalfOpen(_) => end,
            syn::RangeLimits::Closed(_) => end + 1,
        };
        if end - start > MAX_UNROLL || has_jumps(&f.body) {
            return None;
        }
        let suffix = match strip(&f.start) {
            Expr::Lit(syn::Lit::Int(i)) => i.suffix().to_string(),
            _ => String::new(),
        };
        let (m, id) = (&f.binding.mutability, &f.binding.ident);
        let name = id.to_string();
        self.shifted.remove(&name);
        let outer = self.constants.get(&name).copied();
        let mut out = TokenStream::new();
        for v in start..end {
            // A `mut` variable is no constant, and shadows an outer loop's that is.
            if m.is_none() {
                self.constants.insert(name.clone(), v);
            } else {
                self.constants.remove(&name);
            }
            let lit = syn::LitInt::new(&format!("{v}{suffix}"), id.span());
            let body = self.stmts(&f.body);
            out.extend(quote!({ #[allow(unused_variables)] let #m #id = #lit; #body }));
        }
        match outer {
            Some(v) => self.constants.insert(name, v),
            None => self.constants.remove(&name),
        };
        self.unrolled = true;
        Some(quote!({ #out }))
    }
}

/// The closure's site parameter.
fn site_var() -> syn::Ident {
    syn::Ident::new("__ongpu_site", Span::mixed_site())
}

/// `e` without parentheses and invisible groups.
fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(_, x) | Expr::Group(_, x) => strip(x),
        e => e,
    }
}

/// True when `a` and `b` always have the same value: the same variable, or equal constants.
fn same_value(lanes: &Lanes, a: &Expr, b: &Expr) -> bool {
    match (strip(a), strip(b)) {
        (Expr::Var(x), Expr::Var(y)) if x == y => true,
        (a, b) => matches!((lanes.constant(a), lanes.constant(b)), (Some(x), Some(y)) if x == y),
    }
}

/// True when `b` holds a `break` or `continue` (of this loop or one inside it).
fn has_jumps(b: &Block) -> bool {
    struct Jumps(bool);
    impl crate::ir::visit::Visit for Jumps {
        fn visit_expr(&mut self, e: &Expr) {
            self.0 |= matches!(e, Expr::Break(_) | Expr::Continue(_));
            crate::ir::visit::walk_expr(self, e);
        }
    }
    let mut j = Jumps(false);
    crate::ir::visit::Visit::visit_block(&mut j, b);
    j.0
}

impl EmitRust for Lanes {
    fn expr(&mut self, e: &Expr) -> TokenStream {
        match e {
            Expr::Index(x, _, i) if matches!(strip(x), Expr::Var(v) if self.shifted.contains(&v.to_string())) =>
            {
                let Expr::Var(v) = strip(x) else {
                    unreachable!()
                };
                let (view, site) = (shift_view(v), site_var());
                let i = self.expr(i);
                quote_spanned!(v.span()=> #view.centre_entry(#site, ::ongpu::__private::index(#i)))
            }
            Expr::Index(x, _, i) if matches!(strip(x), Expr::Shift(_)) => {
                let Expr::Shift(s) = strip(x) else {
                    unreachable!()
                };
                match self.near(s) {
                    Some(near) => self.near_read(s, near, Some(i)),
                    None => self.far_or_fall_back(s, Some(i), e),
                }
            }
            Expr::Shift(s) => match self.near(s) {
                Some(near) => self.near_read(s, near, None),
                None => self.far_or_fall_back(s, None, e),
            },
            Expr::For(f) => match self.unroll(f) {
                Some(t) => t,
                None => {
                    self.fall_back("a loop whose bounds are not constants (or of more than 16 iterations, or with break or continue)");
                    // Variables of outer unrolled loops stay constants inside, unless this
                    // loop's variable shadows one.
                    let name = f.binding.ident.to_string();
                    let outer = self.constants.remove(&name);
                    let shifted = self.shifted.remove(&name);
                    let t = body::expr(self, e);
                    if let Some(v) = outer {
                        self.constants.insert(name.clone(), v);
                    }
                    if shifted {
                        self.shifted.insert(name);
                    }
                    t
                }
            },
            Expr::While(..) | Expr::Loop(..) => {
                self.fall_back("a `while` or `loop`");
                body::expr(self, e)
            }
            Expr::Print(_) => {
                self.fall_back("a print");
                body::expr(self, e)
            }
            _ => body::expr(self, e),
        }
    }

    fn stmt(&mut self, s: &Stmt) -> TokenStream {
        // A `let` that shadows a loop variable ends its being a constant.
        if let Stmt::Let(Let { binding, .. }) = s {
            self.constants.remove(&binding.ident.to_string());
            self.shifted.remove(&binding.ident.to_string());
        }
        body::stmt(self, s)
    }
}

impl Gathers {
    /// `::ongpu::__private::Gathers::new(whole, diagonal)`, with its longer shifts and the
    /// values of the captures they name, read at the call site.
    pub fn tokens(&self) -> TokenStream {
        let (w, d) = (self.whole, self.diagonal);
        let near = quote!(::ongpu::__private::Gathers::new(#w, #d));
        if self.far.is_empty() {
            return near;
        }
        let arg = |a: &HopArg| match a {
            HopArg::Const(v) => quote!(::ongpu::__private::HopArg::Const(#v)),
            HopArg::Value(i) => quote!(::ongpu::__private::HopArg::Value(#i)),
        };
        let far = self.far.iter().map(|f| {
            let hops = f.hops.iter().map(|(m, k)| {
                let (m, k) = (arg(m), arg(k));
                quote!((#m, #k))
            });
            if f.whole {
                return quote!(::ongpu::__private::FarShift::whole(&[#(#hops),*]));
            }
            let entries = f.entries;
            let value = match f.entry_value {
                Some(v) => quote!(::core::option::Option::Some(#v)),
                None => quote!(::core::option::Option::None),
            };
            quote!(::ongpu::__private::FarShift::entries(&[#(#hops),*], #entries, #value))
        });
        let with_far = quote!(#near.with_far(const { &[#(#far),*] }));
        if self.values.is_empty() {
            return with_far;
        }
        // Autoref picks `NumberValue` (`Some`) for a number, `NotANumber` (`None`) otherwise.
        let values = self.values.iter().map(|id| {
            quote_spanned!(id.span()=> {
                #[allow(unused_imports)]
                use ::ongpu::__private::{NotANumber as _, NumberValue as _};
                #[allow(clippy::needless_borrow)]
                let value = (&&::ongpu::__private::CapturedValue(&#id)).captured_value();
                value
            })
        });
        quote!(#with_far.with_values([#(#values),*]))
    }
}

impl ToTokens for Lowering {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(match self {
            Lowering::LaneMajor => quote!(::ongpu::__private::Lowering::LaneMajor),
            Lowering::Runs(n) => {
                let n = *n as u32;
                quote!(::ongpu::__private::Lowering::Runs(#n))
            }
            Lowering::Fallback(why) => quote!(::ongpu::__private::Lowering::Fallback(#why)),
        })
    }
}
