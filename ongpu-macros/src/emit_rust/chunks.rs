//! A long body lowered in chunks for the CPU backend's lanes: its top-level statements
//! split into runs of few shifted reads, each run a loop over the group's lanes before the
//! next, the locals that cross from one run to a later one kept per lane
//! (`LaneVar`, component-major). One lane loop over a Wilson hop reads more distinct
//! addresses than LLVM's alias analysis tracks (it gives up, and the lanes stay scalar);
//! each run's loop reads few, and vectorises. Every lane runs the same operations in the
//! same order as at a lone site: the bits do not change.

use super::body::EmitRust;
use super::lanes::Lanes;
use crate::ir::visit::{walk_expr, Visit};
use crate::ir::{Block, Expr, Stmt};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

/// Shifted reads a run holds at most, unless one statement holds more: a Wilson hop's two
/// neighbours along one direction and the backward link. (With a run of two directions, the
/// addresses one f32 run reads come within a few of the 250 that LLVM's alias analysis
/// tracks.)
const RUN_SHIFTS: usize = 3;

/// The runs of `block`'s top-level statements, when there are two or more; `None` for a body
/// that runs as one lane loop: few shifts, a `let` without a value (which a run could not
/// hand on), or a top-level `let` that binds a capture's name (`captures`): a run sets the
/// group's captures by name, and would set the local in the capture's place.
pub fn plan(block: &Block, captures: &[&syn::Ident]) -> Option<Vec<Range<usize>>> {
    if block.stmts.iter().any(|s| match s {
        Stmt::Let(l) => l.init.is_none() || captures.iter().any(|c| l.binding.ident == **c),
        _ => false,
    }) {
        return None;
    }
    let mut runs = Vec::new();
    let (mut start, mut shifts) = (0, 0);
    for (k, s) in block.stmts.iter().enumerate() {
        let n = Names::of(std::slice::from_ref(s)).shifts;
        if k > start && shifts + n > RUN_SHIFTS {
            runs.push(start..k);
            (start, shifts) = (k, 0);
        }
        shifts += n;
    }
    runs.push(start..block.stmts.len());
    (runs.len() > 1).then_some(runs)
}

/// What a run of statements names: the variables it reads or writes, those it assigns to
/// (the roots of places), and how many shifts it reads.
#[derive(Default)]
struct Names {
    used: BTreeSet<String>,
    assigned: BTreeSet<String>,
    shifts: usize,
}

impl Names {
    fn of(stmts: &[Stmt]) -> Names {
        let mut n = Names::default();
        for s in stmts {
            n.visit_stmt(s);
        }
        n
    }
}

/// The variable at the root of a place (`x`, `x[0]`, `x.re`).
fn root(e: &Expr) -> Option<String> {
    match e {
        Expr::Var(v) => Some(v.to_string()),
        Expr::Paren(_, x) | Expr::Group(_, x) | Expr::Index(x, ..) | Expr::Field(x, ..) => root(x),
        _ => None,
    }
}

impl Visit for Names {
    fn visit_expr(&mut self, e: &Expr) {
        match e {
            Expr::Var(v) => {
                self.used.insert(v.to_string());
            }
            Expr::Shift(_) => self.shifts += 1,
            Expr::Assign(place, ..) => self.assigned.extend(root(place)),
            Expr::Binary(place, op, _) if is_compound(op) => self.assigned.extend(root(place)),
            _ => {}
        }
        walk_expr(self, e);
    }
}

fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// A local the runs hand on: its name as bound (with the binding's hygiene), its lane
/// variable, and whether it was bound `mut`.
struct Handed {
    ident: syn::Ident,
    var: syn::Ident,
    mutable: bool,
}

/// What the group closure needs of the call's expansion.
pub struct GroupParts<'a> {
    /// The closure's parameter pattern of the captures at a lane, and its returned tuple.
    pub pats: &'a TokenStream,
    pub ret: &'a TokenStream,
    /// The names of the written captures.
    pub written: Vec<&'a syn::Ident>,
    /// The site index and the shifted captures' own elements at a lane.
    pub bind_lane: &'a TokenStream,
    /// The closure's site parameter.
    pub site_var: &'a syn::Ident,
}

/// The group closure of a body run in `runs`: `|s0, group| { .. }`, each run a loop over
/// the group's lanes, locals handed on in lane variables, the written captures set in a last
/// loop.
pub fn group_closure(
    lanes: &mut Lanes,
    block: &Block,
    runs: &[Range<usize>],
    parts: &GroupParts,
) -> TokenStream {
    let s0 = syn::Ident::new("__ongpu_s0", Span::mixed_site());
    let group = syn::Ident::new("__ongpu_group", Span::mixed_site());
    let lane = syn::Ident::new("__ongpu_lane", Span::mixed_site());
    let GroupParts {
        pats,
        ret,
        written,
        bind_lane,
        site_var,
    } = parts;
    let names: Vec<Names> = runs
        .iter()
        .map(|r| Names::of(&block.stmts[r.clone()]))
        .collect();
    // What each statement reads, found once for the questions below.
    let reads: Vec<BTreeSet<String>> = block
        .stmts
        .iter()
        .map(|s| Names::of(std::slice::from_ref(s)).used)
        .collect();
    // True when a statement after run `k` reads the top-level local `name` of run `k`'s
    // end (before a top-level `let` binds the name again).
    let used_after = |k: usize, name: &str| {
        let after = runs[k].end;
        for (s, read) in block.stmts[after..].iter().zip(&reads[after..]) {
            let reads = read.contains(name);
            match s {
                Stmt::Let(l) if l.binding.ident == name => return reads,
                _ if reads => return true,
                _ => {}
            }
        }
        false
    };
    // Where one run alone names the written captures, they are read from the group and set
    // back in that run (their old values, where the run overwrites them, are then never
    // loaded). Otherwise they are handed on in lane variables, from their values before the
    // call in a first loop to the group in a last: a run sets every written capture of the
    // group, and one that did not name a capture would set its value from before the call
    // over what an earlier run wrote.
    let direct = names
        .iter()
        .filter(|n| written.iter().any(|w| n.used.contains(&w.to_string())))
        .count()
        <= 1;
    let mut scope: HashMap<String, Handed> = HashMap::new();
    let mut vars: Vec<syn::Ident> = Vec::new();
    let fresh = |vars: &mut Vec<syn::Ident>| {
        let v = format_ident!("__ongpu_lane_var_{}", vars.len(), span = Span::mixed_site());
        vars.push(v.clone());
        v
    };
    let mut init = TokenStream::new();
    for w in written.iter().filter(|_| !direct) {
        let var = fresh(&mut vars);
        init.extend(quote!(#var.set(#lane, #w);));
        scope.insert(
            w.to_string(),
            Handed {
                ident: (*w).clone(),
                var,
                mutable: true,
            },
        );
    }
    let lane_loop = |body: TokenStream| {
        quote! {
            for #lane in 0..::ongpu::__private::GROUP_LANES {
                let #site_var: usize = #s0 + #lane;
                #[allow(unused_variables, unused_mut)]
                let #pats = #group.lane(#lane);
                #body
            }
        }
    };
    let mut loops = Vec::new();
    if !direct {
        loops.push(lane_loop(init));
    }
    for (k, run) in runs.iter().enumerate() {
        let n = &names[k];
        // The locals of earlier runs this one names, read at the lane.
        let mut body = TokenStream::new();
        body.extend((*bind_lane).clone());
        for name in &n.used {
            if let Some(h) = scope.get(name) {
                let (id, var) = (&h.ident, &h.var);
                let m = h.mutable.then(|| quote!(mut));
                body.extend(
                    quote!(#[allow(unused_variables, unused_mut)] let #m #id = #var.get(#lane);),
                );
            }
        }
        // The statements, noting the top-level locals they bind (the last binding of a
        // name is the one a later run sees).
        let mut bound: Vec<(syn::Ident, bool)> = Vec::new();
        for s in &block.stmts[run.clone()] {
            if let Stmt::Let(l) = s {
                let id = &l.binding.ident;
                bound.retain(|(b, _)| b != id);
                bound.push((id.clone(), l.binding.mutability.is_some()));
            }
            body.extend(lanes.stmt(s));
        }
        // Hand on what later runs read: locals bound here, and earlier ones assigned here.
        let mut handed: Vec<String> = Vec::new();
        for (ident, mutable) in bound {
            let name = ident.to_string();
            if used_after(k, &name) {
                let var = fresh(&mut vars);
                scope.insert(
                    name.clone(),
                    Handed {
                        ident,
                        var,
                        mutable,
                    },
                );
                handed.push(name);
            } else {
                // A later run's use of the name is not this local's (none reads it).
                scope.remove(&name);
            }
        }
        for name in &n.assigned {
            let is_written = written.iter().any(|w| *w == name);
            if scope.contains_key(name)
                && !handed.contains(name)
                && (is_written || used_after(k, name))
            {
                handed.push(name.clone());
            }
        }
        for name in handed {
            let h = &scope[&name];
            let (id, var) = (&h.ident, &h.var);
            body.extend(quote!(#var.set(#lane, #id);));
        }
        if direct && written.iter().any(|w| n.used.contains(&w.to_string())) {
            body.extend(quote!(#group.set(#lane, #ret);));
        }
        loops.push(lane_loop(body));
    }
    if !direct {
        // The written captures back into the group.
        let mut last = TokenStream::new();
        for w in written {
            let var = &scope[&w.to_string()].var;
            last.extend(quote!(let #w = #var.get(#lane);));
        }
        last.extend(quote!(#group.set(#lane, #ret);));
        loops.push(lane_loop(last));
    }
    // A run may bind a `mut` local that only a later run assigns (the lone sites' body, which
    // rustc also checks, warns where it matters).
    quote! {
        #[inline(always)]
        #[allow(unused_assignments, unused_mut, clippy::needless_range_loop)]
        |#s0: usize, #group: &mut ::ongpu::__private::LaneGroup<'_, _>| {
            #(let mut #vars = ::ongpu::__private::LaneVar::new();)*
            #(#loops)*
        }
    }
}
