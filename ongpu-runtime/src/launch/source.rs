//! Assembly of a kernel's CUDA C++ source: the prelude, the kernel's real type, the device
//! functions it calls, and a grid-stride loop that loads each captured field's element,
//! runs the translated body and stores the written fields back.

use crate::capture::CaptureKind;
use crate::element::RealKind;
use crate::launch::call_site::{DeviceFnInfo, SiteInfo};
use std::fmt::Write;

/// The CUDA C++ prelude every kernel starts with (types, operators, layouts, maths, the
/// arrays, the lattice).
pub const PRELUDE: &str = concat!(
    include_str!("../../cuda/prelude.cuh"),
    include_str!("../../cuda/array.cuh"),
    include_str!("../../cuda/precision.cuh"),
    include_str!("../../cuda/lattice.cuh"),
    include_str!("../../cuda/random.cuh"),
    include_str!("../../cuda/staging.cuh"),
    include_str!("../../cuda/print.cuh")
);

/// The parameters after the captures' that say which sites a kernel runs: the first site,
/// the number of sites, the lattice (zero for a plain count), which shifts use, and a box of
/// it (zero for none: the sites are the lattice's own indices), whose sites the indices
/// count when the call runs part of a lattice cut over ranks, and a second box of the same
/// shape (zero for none) whose sites the second half of the indices count.
pub const SITE_PARAMS: [&str; 5] = [
    "const unsigned long long ongpu_begin",
    "const unsigned long long ongpu_n",
    "const ongpu::Lattice ongpu_lat",
    "const ongpu::Lattice ongpu_box",
    "const ongpu::Lattice ongpu_box2",
];

/// The site index of loop position `j` (an expression): itself, or the lattice's index of
/// the box's site `j` when the call runs over a box (a rank's part of a lattice), or over
/// two (`Lattice::site_in_pair`).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn site_of(j: &str) -> String {
    format!(
        "ongpu_box.half ? ongpu_lat.site_in_pair(ongpu_box, ongpu_box2, {j}, ongpu_begin, \
         ongpu_n) : {j}"
    )
}

/// Name of the generated kernel function.
pub const KERNEL_NAME: &str = "ongpu_kernel";

/// The kernel's real type: the widest float among the captured fields, else among the
/// captured values, else `double` (Rust's own default for an unconstrained float literal).
pub fn kernel_real(kinds: &[CaptureKind]) -> RealKind {
    widest_real(
        kinds.iter().map(|k| match k {
            CaptureKind::Field { real, .. } => *real,
            CaptureKind::Value { .. } | CaptureKind::Scalar { .. } => None,
        }),
        kinds.iter().filter_map(|k| match k {
            CaptureKind::Value { cuda_type } | CaptureKind::Scalar { cuda_type } => {
                Some(cuda_type.as_str())
            }
            CaptureKind::Field { .. } => None,
        }),
    )
}

/// The rule of every kernel's real type: the widest float among the arrays' elements, else
/// among the values' C++ types, else `double`.
pub fn widest_real<'a>(
    arrays: impl Iterator<Item = Option<RealKind>>,
    value_types: impl Iterator<Item = &'a str>,
) -> RealKind {
    arrays
        .flatten()
        .max()
        .or_else(|| value_types.filter_map(real_of_cuda_type).max())
        .unwrap_or(RealKind::F64)
}

fn real_of_cuda_type(t: &str) -> Option<RealKind> {
    if t == "double" || t.contains("<double>") {
        Some(RealKind::F64)
    } else if t == "float" || t.contains("<float>") {
        Some(RealKind::F32)
    } else {
        None
    }
}

/// Appends the definitions of `fns` and everything they call, each once, callees first.
pub fn push_device_fns(out: &mut String, fns: &[&'static DeviceFnInfo]) {
    fn visit(out: &mut String, f: &'static DeviceFnInfo, seen: &mut Vec<*const DeviceFnInfo>) {
        let id = f as *const DeviceFnInfo;
        if seen.contains(&id) {
            return;
        }
        seen.push(id);
        for &g in f.calls {
            visit(out, g, seen);
        }
        out.push_str(f.source);
        out.push('\n');
    }
    let mut seen = Vec::new();
    for &f in fns {
        visit(out, f, &mut seen);
    }
}

/// Sites each thread runs per iteration of the main loop. A thread should have about 16
/// loads in flight to cover memory latency; a site with few loaded components (vector add:
/// 2) runs 4 at a time so their loads issue together, a colour-matrix site (54 loads) one.
/// `ONGPU_UNROLL` overrides it (1 to 8), for tuning.
pub fn sites_per_iteration(kinds: &[CaptureKind]) -> usize {
    static OVERRIDE: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let forced = *OVERRIDE.get_or_init(|| {
        std::env::var("ONGPU_UNROLL")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .map(|k: usize| k.clamp(1, 8))
    });
    forced.unwrap_or_else(|| {
        let loaded: usize = kinds
            .iter()
            .map(|k| match k {
                CaptureKind::Field {
                    components,
                    write: None | Some(true),
                    ..
                } => *components,
                _ => 0,
            })
            .sum();
        (16 / loaded.max(1)).clamp(1, 4)
    })
}

/// The start of every kernel over sites: the bounds-check mode (`checked`: colour and
/// element-array indices are checked, see the prelude), the prelude (and `extra` device
/// code), the kernel's real type, and the device functions the body calls. The call site is not written into
/// the source: identical kernels of different call sites are one source, and so one entry
/// of the disk cache.
pub fn header(site: &SiteInfo, kinds: &[CaptureKind], extra: &str, checked: bool) -> String {
    let mut s = String::with_capacity(PRELUDE.len() + extra.len() + 4096);
    preamble(
        &mut s,
        checked,
        site.prints.is_some(),
        extra,
        kernel_real(kinds),
    );
    push_device_fns(&mut s, site.device_fns);
    s
}

/// What every kernel's source starts with, `on_gpu!` calls and explicit kernels alike: the
/// bounds-check and printing switches, the prelude, `extra` device code and the kernel's
/// real type.
pub(crate) fn preamble(s: &mut String, checked: bool, prints: bool, extra: &str, real: RealKind) {
    let _ = writeln!(s, "#define ONGPU_CHECK_BOUNDS {}", u8::from(checked));
    if prints {
        s.push_str("#define ONGPU_PRINTS 1\n");
    }
    s.push_str(PRELUDE);
    s.push_str(extra);
    let _ = writeln!(s, "\ntypedef {} ongpu_real;", real.cuda_name());
}

/// What the captures put into a kernel over sites.
#[derive(Debug, Default)]
pub struct SiteParts {
    /// Kernel parameters, in capture order: `(pointer, stride)` per field, the value itself
    /// otherwise.
    pub params: Vec<String>,
    /// Opens a site: the site index (if named) and each field's element, loaded unless the
    /// body overwrites it first.
    pub loads: String,
    /// Closes a site: the written fields stored back (and, in checked kernels, the site
    /// noted if its body went out of range).
    pub stores: String,
}

/// The parameters, loads and stores of `site`'s captures.
pub fn site_parts(site: &SiteInfo, kinds: &[CaptureKind]) -> SiteParts {
    site_parts_supplied(site, kinds, &[])
}

/// [`site_parts`], where the fields named in `supplied` are not loaded from and stored to
/// their memory by the site: the code around it supplies the element in `ongpu_in_<name>`
/// and takes a written one from `ongpu_out_<name>` (the staged loop from shared memory,
/// `launch/staged.rs`; the quad loop from 16-byte vectors, `launch/quads.rs`).
pub fn site_parts_supplied(site: &SiteInfo, kinds: &[CaptureKind], supplied: &[&str]) -> SiteParts {
    let mut p = SiteParts::default();
    if let Some(i) = site.site_index {
        let _ = writeln!(
            p.loads,
            "[[maybe_unused]] const unsigned long long {i} = ongpu_site;"
        );
    }
    for (kind, name) in kinds.iter().zip(site.cuda_names) {
        match kind {
            CaptureKind::Field {
                scalar,
                element,
                layout,
                write,
                ..
            } => {
                let constness = if write.is_some() { "" } else { "const " };
                p.params
                    .push(format!("{constness}{scalar}* __restrict__ ongpu_p_{name}"));
                p.params.push(format!("unsigned long long ongpu_s_{name}"));
                // The names that shifts (`ONGPU_AT`) use to read other sites.
                let _ = writeln!(
                    p.loads,
                    "typedef {layout} ongpu_L_{name}; typedef {element} ongpu_T_{name};"
                );
                // `x[e]` of a read-only capture (`ONGPU_SITE_ENTRY`): for a field of element
                // arrays only that entry is loaded, where it is used (the whole element
                // loaded above is then dead code unless the body also uses it whole).
                // A written field that the body uses only entry by entry is read in the
                // field itself too.
                let in_field = write.is_none() || stores_entries(site, name, element);
                let entry = if in_field && element.starts_with("ongpu::array<") {
                    format!("ONGPU_ENTRY_AT({name}, ongpu_site, ongpu_e)")
                } else {
                    format!("({name}[ongpu_e])")
                };
                let _ = writeln!(p.loads, "#define ONGPU_SE_{name}(ongpu_e) {entry}");
                if site.entry_stores.contains(name) {
                    if stores_entries(site, name, element) {
                        // Each `x[k] = v` stores its entry and each `x[k]` reads it, in the
                        // field; the local is never used (it costs nothing).
                        let _ = writeln!(
                            p.loads,
                            "#define ONGPU_SS_{name}(ongpu_e, ongpu_v) ongpu::store_entry<{layout}, {element} >(ongpu_p_{name}, ongpu_site, (ongpu_e), ongpu_s_{name}, (ongpu_v))\n[[maybe_unused]] {element} {name}{{}};"
                        );
                        continue;
                    }
                    let _ = writeln!(
                        p.loads,
                        "#define ONGPU_SS_{name}(ongpu_e, ongpu_v) ({name}[ongpu_e] = (ongpu_v))"
                    );
                }
                if supplied.contains(name) {
                    if *write == Some(false) {
                        let _ = writeln!(p.loads, "{element} {name}{{}};");
                    } else {
                        let _ = writeln!(p.loads, "{element} {name} = ongpu_in_{name};");
                    }
                    if write.is_some() {
                        let _ = writeln!(p.stores, "ongpu_out_{name} = {name};");
                    }
                    continue;
                }
                if *write == Some(false) {
                    let _ = writeln!(p.loads, "{element} {name}{{}};");
                } else {
                    let _ = writeln!(
                        p.loads,
                        "{element} {name} = ongpu::load<{layout}, {element} >(ongpu_p_{name}, ongpu_site, ongpu_s_{name});"
                    );
                }
                if write.is_some() {
                    let _ = writeln!(
                        p.stores,
                        "ongpu::store<{layout} >(ongpu_p_{name}, ongpu_site, ongpu_s_{name}, {name});"
                    );
                }
            }
            CaptureKind::Value { cuda_type } => {
                // An array read at entries the body computes (one coefficient per
                // right-hand side) stays in the kernel's parameter space: without
                // `__grid_constant__` a dynamic index copies it to local memory.
                let grid = if cuda_type.starts_with("ongpu::array<") {
                    "__grid_constant__ "
                } else {
                    ""
                };
                p.params.push(format!("const {grid}{cuda_type} {name}"));
                let _ = writeln!(
                    p.loads,
                    "#define ONGPU_SE_{name}(ongpu_e) ({name}[ongpu_e])"
                );
            }
            CaptureKind::Scalar { cuda_type } => {
                // Loaded per site (through the read-only cache: every thread reads the same
                // address), so that a value written by an earlier kernel of the same graph is
                // seen without the host.
                p.params
                    .push(format!("const {cuda_type}* __restrict__ ongpu_d_{name}"));
                let _ = writeln!(p.loads, "const {cuda_type} {name} = *ongpu_d_{name};");
                let _ = writeln!(
                    p.loads,
                    "#define ONGPU_SE_{name}(ongpu_e) ({name}[ongpu_e])"
                );
            }
        }
    }
    p.stores.push_str("ONGPU_LEAVE_SITE(ongpu_site);\n");
    p
}

/// True if the body's `name[k]` reads and writes go straight to the field: the body uses
/// `name` in no other way (the macro says so in `site.entry_stores`) and its element is an
/// array (`k` indexes a colour vector's components otherwise, which are loaded and stored
/// with the whole element).
pub(crate) fn stores_entries(site: &SiteInfo, name: &str, element: &str) -> bool {
    site.entry_stores.contains(&name) && element.starts_with("ongpu::array<")
}

/// `code` with every line indented by `by`.
fn indent(code: &str, by: &str) -> String {
    code.lines().map(|l| format!("{by}{l}\n")).collect()
}

/// The kernel's signature and the grid-stride loop running `site_code` for every site
/// (`ongpu_site`), `k` sites per iteration while all `k` are in range, so that their loads
/// issue together, then one at a time; `prologue` and `epilogue` go before and after it.
/// With MPI, a call over a box of the lattice (a rank's part) maps each index to the
/// lattice's site (see `site_loop_with`).
pub fn site_loop(
    params: &[String],
    site_code: &str,
    k: usize,
    prologue: &str,
    epilogue: &str,
) -> String {
    site_loop_with(params, site_code, k, prologue, epilogue, Main::Plain(""))
}

/// How a kernel over sites runs plain site indices (not those of a rank's box).
enum Main<'a> {
    /// The plain loops, after code that runs some sites its own way and leaves
    /// `ongpu_first` at the first site it did not run.
    Plain(&'a str),
    /// Code that runs every site when the launch gives the block dynamic shared memory (the
    /// staged loop), else the plain loops.
    Staged(&'a str),
}

/// [`site_loop`] with its plain sites run as `main` says.
fn site_loop_with(
    params: &[String],
    site_code: &str,
    k: usize,
    prologue: &str,
    epilogue: &str,
    main: Main<'_>,
) -> String {
    // With MPI, a call over a box of the lattice (a rank's part: `ongpu_box.half` non-zero)
    // maps each index to the lattice's site. A light body (k > 1) gets a loop of its own for
    // that, so that its plain loop keeps no per-site test (vector add loses 13% to one); a
    // heavy body is not written twice (two copies of the clover-leaf field strength's body
    // exceed the registers), its one loop maps every index.
    let boxed_loop = cfg!(feature = "mpi") && k > 1;
    let site_of_j = |j: &str| {
        if cfg!(feature = "mpi") && !boxed_loop {
            site_of(j)
        } else {
            j.to_string()
        }
    };
    let plain = plain_loops(site_code, k, &site_of_j);
    let main = |by: &str| match main {
        Main::Plain(fast) => indent(fast, by) + &indent(&plain, &by[2..]),
        Main::Staged(code) => {
            format!("{by}if (ongpu::dynamic_smem_bytes() != 0 && !ongpu_box.half) {{\n")
                + &indent(code, &format!("{by}  "))
                + &format!("{by}}} else {{\n")
                + &indent(&plain, by)
                + &format!("{by}}}\n")
        }
    };
    let mut s = String::new();
    let _ = writeln!(s, "\nextern \"C\" __global__ void {KERNEL_NAME}(");
    let _ = writeln!(s, "    {}) {{", params.join(",\n    "));
    s.push_str(&indent(prologue, "  "));
    s.push_str(
        "  const unsigned long long ongpu_step = (unsigned long long)gridDim.x * blockDim.x;\n",
    );
    s.push_str("  [[maybe_unused]] unsigned long long ongpu_first = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n");
    if boxed_loop {
        s.push_str("  if (ongpu_box.half) {\n");
        s.push_str(&indent(&plain_loops(site_code, 1, &site_of), "  "));
        s.push_str("  } else {\n");
        s.push_str(&main("    "));
        s.push_str("  }\n");
    } else {
        s.push_str(&main("  "));
    }
    s.push_str(&indent(epilogue, "  "));
    s.push_str("}\n");
    s
}

/// The loops of [`site_loop`] over plain site indices, the site of index `j` being
/// `site_of(j)`.
fn plain_loops(site_code: &str, k: usize, site_of: &dyn Fn(&str) -> String) -> String {
    let mut s = String::new();
    if k > 1 {
        let _ = writeln!(s, "  // {k} sites per iteration while all are in range, so that their loads issue together");
        let _ = writeln!(
            s,
            "  for (; ongpu_first + {} * ongpu_step < ongpu_n; ongpu_first += {k} * ongpu_step) {{",
            k - 1
        );
        s.push_str("#pragma unroll\n");
        let _ = writeln!(s, "    for (int ongpu_u = 0; ongpu_u < {k}; ongpu_u++) {{");
        let _ = writeln!(
            s,
            "      const unsigned long long ongpu_site = {};",
            site_of("(ongpu_begin + ongpu_first + ongpu_u * ongpu_step)")
        );
        s.push_str(&indent(site_code, "      "));
        s.push_str("    }\n  }\n");
    }
    s.push_str("  for (; ongpu_first < ongpu_n; ongpu_first += ongpu_step) {\n");
    let _ = writeln!(
        s,
        "    const unsigned long long ongpu_site = {};",
        site_of("(ongpu_begin + ongpu_first)")
    );
    s.push_str(&indent(site_code, "    "));
    s.push_str("  }\n");
    s
}

/// The source of the element-wise kernel of `site` for captures of the given kinds, with
/// index checks if `checked`.
pub fn elementwise(site: &SiteInfo, kinds: &[CaptureKind], checked: bool) -> String {
    let mut s = header(site, kinds, "", checked);
    let SiteParts {
        mut params,
        loads,
        stores,
    } = site_parts(site, kinds);
    params.extend(SITE_PARAMS.map(String::from));
    let mut site_code = loads;
    site_code.push_str("{\n");
    site_code.push_str(&indent(site.body, "  "));
    site_code.push_str("}\n");
    site_code.push_str(&stores);
    let staged = super::staged::staged_loop(site, kinds);
    let quads = super::quads::quad_loop(site, kinds).unwrap_or_default();
    let main = match &staged {
        Some(code) => Main::Staged(code),
        None => Main::Plain(&quads),
    };
    s.push_str(&site_loop_with(
        &params,
        &site_code,
        sites_per_iteration(kinds),
        "",
        "",
        main,
    ));
    s
}

/// Shared memory per thread that the element-wise kernel of `site` over `kinds` stages its
/// AoS fields through (0: none, see `launch/staged.rs`).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub fn staged_bytes_per_thread(site: &SiteInfo, kinds: &[CaptureKind]) -> usize {
    super::staged::bytes_per_thread(site, kinds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;

    fn site() -> SiteInfo {
        SiteInfo {
            location: Location {
                file: "t.rs",
                line: 1,
                column: 1,
            },
            captures: &["x", "y", "a"],
            cuda_names: &["x", "y", "a"],
            entry_stores: &[],
            site_index: Some("i"),
            body: "x += y * a;",
            device_fns: &[],
            prints: None,
            lowering: crate::Lowering::LaneMajor,
        }
    }

    #[test]
    fn loads_runs_and_stores() {
        let kinds = vec![
            CaptureKind::Field {
                scalar: "float",
                element: "float".into(),
                layout: "ongpu::AoS".into(),
                components: 1,
                real: Some(RealKind::F32),
                write: Some(true),
            },
            CaptureKind::Field {
                scalar: "float",
                element: "float".into(),
                layout: "ongpu::SoA".into(),
                components: 1,
                real: Some(RealKind::F32),
                write: None,
            },
            CaptureKind::Value {
                cuda_type: "float".into(),
            },
        ];
        let src = elementwise(&site(), &kinds, false);
        assert!(src.contains("typedef float ongpu_real;"));
        assert!(src.contains("const float* __restrict__ ongpu_p_y"));
        assert!(src.contains("float* __restrict__ ongpu_p_x"));
        assert!(src.contains("const float a"));
        assert!(src.contains("[[maybe_unused]] const unsigned long long i = ongpu_site;"));
        assert!(src.contains("ongpu::store<ongpu::AoS >(ongpu_p_x"));
        assert!(!src.contains("ongpu::store<ongpu::SoA >(ongpu_p_y"));
    }

    /// A field the body only assigns entry by entry (`out[s] = v`): an array of AoS
    /// elements is stored entry by entry, neither loaded, stored whole nor staged; a colour
    /// vector (whose `[k]` is a component) keeps the whole element.
    #[test]
    fn entry_stores_of_arrays_write_only_their_entries() {
        let field = |element: &str, components, write| CaptureKind::Field {
            scalar: "double",
            element: element.into(),
            layout: "ongpu::AoS".into(),
            components,
            real: Some(RealKind::F64),
            write,
        };
        let array = "ongpu::array<ongpu::ColorVector<double>, 4>";
        let site = SiteInfo {
            captures: &["out", "y"],
            cuda_names: &["out", "y"],
            entry_stores: &["out"],
            body: "for (int s = 0; s < 4; s++) ONGPU_SITE_STORE(out, (s), (y));",
            ..site()
        };
        let vector = "ongpu::ColorVector<double>";
        let src = elementwise(
            &site,
            &[field(array, 24, Some(true)), field(vector, 6, None)],
            false,
        );
        assert!(src.contains("#define ONGPU_SS_out(ongpu_e, ongpu_v) ongpu::store_entry<ongpu::AoS, ongpu::array<"), "{src}");
        assert!(
            !src.contains("ongpu::store<ongpu::AoS >(ongpu_p_out"),
            "{src}"
        );
        assert!(
            !src.contains("ongpu::load<ongpu::AoS, ongpu::array"),
            "{src}"
        );
        assert!(!src.contains("ongpu_in_out"), "not staged: {src}");
        assert!(
            src.contains("ongpu_in_y"),
            "the other field is staged: {src}"
        );

        let src = elementwise(
            &site,
            &[field(vector, 6, Some(true)), field(vector, 6, None)],
            false,
        );
        assert!(
            src.contains("#define ONGPU_SS_out(ongpu_e, ongpu_v) (out[ongpu_e] = (ongpu_v))"),
            "{src}"
        );
        assert!(src.contains("ongpu_out_out = out;"), "{src}");
    }

    #[test]
    fn real_type_is_widest_field_then_value() {
        let f = |r| CaptureKind::Field {
            scalar: "x",
            element: "x".into(),
            layout: "x".into(),
            components: 1,
            real: r,
            write: None,
        };
        assert_eq!(
            kernel_real(&[f(Some(RealKind::F32)), f(Some(RealKind::F64))]),
            RealKind::F64
        );
        assert_eq!(
            kernel_real(&[
                f(None),
                CaptureKind::Value {
                    cuda_type: "float".into()
                }
            ]),
            RealKind::F32
        );
        assert_eq!(kernel_real(&[f(None)]), RealKind::F64);
    }
}
