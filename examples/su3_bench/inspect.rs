//! `--ptxas`: ours against the hand-written kernel as the compiler sees them, with no GPU
//! needed: ptxas' resource report (registers, spills, stack) for the device architecture, and
//! the PTX instructions that matter for a bandwidth-bound kernel (global loads and stores by
//! width, floating-point arithmetic, local memory), counted per kernel.

use crate::data::{self, Input, Prec};
use crate::{ours, BenchResult, LayoutChoice, Options, Real};
use ongpu::cuda::nvrtc;
use ongpu::inspect::collect_kernel_sources;
use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Element, Layout};
use std::collections::BTreeMap;

/// The source of our kernel for `T`, `L`, taken from a small run on the CPU backend.
fn our_source<T: Prec, L: Layout>(opts: &Options) -> BenchResult<String>
where
    ColorMatrix<T>: Element,
{
    let (result, sources) = collect_kernel_sources(|| {
        with_backend(Backend::Cpu, || {
            let y: Field<ColorMatrix<T>, L> = data::field(opts.seed, Input::Y, 64);
            let z: Field<ColorMatrix<T>, L> = data::field(opts.seed, Input::Z, 64);
            let mut x: Field<ColorMatrix<T>, L> = data::field(opts.seed, Input::X, 64);
            ours(&mut x, &y, &z, opts.tpb)
        })
    });
    result?;
    Ok(sources
        .into_iter()
        .next()
        .ok_or("no kernel was generated")?
        .source)
}

/// The lines of ptxas' report about kernel `name`.
fn ptxas_lines(log: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in log.lines() {
        if line.contains("Compiling entry function") {
            inside = line.contains(&format!("'{name}'"));
        }
        if inside && (line.contains("registers") || line.contains("stack frame")) {
            out.push(line.trim().to_string());
        }
    }
    out
}

/// The PTX of entry `name`.
fn ptx_entry<'a>(ptx: &'a str, name: &str) -> &'a str {
    let start = ptx
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("no entry {name} in the PTX"));
    let rest = &ptx[start..];
    let end = rest[1..].find(".entry ").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

/// Counts of the instructions that matter, by opcode.
fn counts(ptx: &str) -> BTreeMap<String, usize> {
    let mut c = BTreeMap::new();
    for line in ptx.lines() {
        let line = line.trim();
        let op = line
            .trim_start_matches(['@', '!'])
            .split_whitespace()
            .find(|t| !t.starts_with('%') && !t.starts_with('@'))
            .unwrap_or("");
        let interesting = op.starts_with("ld.global")
            || op.starts_with("st.global")
            || op.starts_with("ld.local")
            || op.starts_with("st.local")
            || ((op.starts_with("fma.")
                || op.starts_with("mul.")
                || op.starts_with("add.")
                || op.starts_with("sub.")
                || op.starts_with("neg."))
                && (op.ends_with(".f32") || op.ends_with(".f64")));
        if interesting {
            *c.entry(op.to_string()).or_insert(0) += 1;
        }
    }
    c
}

fn compare<T: Prec, L: Layout>(opts: &Options) -> BenchResult<()>
where
    ColorMatrix<T>: Element,
{
    let src = our_source::<T, L>(opts)?;
    let hand = format!(
        "su3_{}_{}",
        T::NAME,
        L::name().to_lowercase().replace(['<', '>'], "")
    );
    let ptx_arch = opts.arch.replace("sm_", "compute_");
    let v = &["--ptxas-options=-v"];
    let ours_log = nvrtc::compile(&src, &opts.arch, "on_gpu! kernel", v)?.log;
    let ref_log = nvrtc::compile(crate::gpu::REFERENCE, &opts.arch, "reference.cu", v)?.log;
    let ours_ptx = nvrtc::compile(&src, &ptx_arch, "on_gpu! kernel", &[])?.image;
    let ref_ptx = nvrtc::compile(crate::gpu::REFERENCE, &ptx_arch, "reference.cu", &[])?.image;
    let ours_ptx = String::from_utf8_lossy(&ours_ptx).into_owned();
    let ref_ptx = String::from_utf8_lossy(&ref_ptx).into_owned();
    if let Some(dir) = &opts.emit {
        let tag = format!(
            "{}_{}",
            T::NAME,
            L::name().to_lowercase().replace(['<', '>'], "")
        );
        std::fs::create_dir_all(dir)?;
        std::fs::write(format!("{dir}/on_gpu_{tag}.cu"), &src)?;
        std::fs::write(format!("{dir}/on_gpu_{tag}.ptx"), &ours_ptx)?;
        std::fs::write(format!("{dir}/reference.ptx"), &ref_ptx)?;
    }
    let (co, ch) = (
        counts(ptx_entry(&ours_ptx, "ongpu_kernel")),
        counts(ptx_entry(&ref_ptx, &hand)),
    );
    println!("== {} {} ({})", T::NAME, L::name(), opts.arch);
    for l in ptxas_lines(&ours_log, "ongpu_kernel") {
        println!("  on_gpu!       {l}");
    }
    for l in ptxas_lines(&ref_log, &hand) {
        println!("  hand-written  {l}");
    }
    if L::name() == "AoS" {
        for l in ptxas_lines(&ref_log, &format!("{hand}_staged")) {
            println!("  hand, staged  {l}");
        }
    }
    println!(
        "  {:<24} {:>8} {:>13}",
        "PTX instruction", "on_gpu!", "hand-written"
    );
    let ops: std::collections::BTreeSet<&String> = co.keys().chain(ch.keys()).collect();
    for op in ops {
        println!(
            "  {op:<24} {:>8} {:>13}",
            co.get(op).copied().unwrap_or(0),
            ch.get(op).copied().unwrap_or(0)
        );
    }
    Ok(())
}

/// Prints the comparison for every variant asked for.
pub fn report(opts: &Options) -> BenchResult<()> {
    if !nvrtc::available() {
        return Err("--ptxas needs NVRTC (libnvrtc.so.13 on LD_LIBRARY_PATH)".into());
    }
    for &real in &opts.reals {
        for &layout in &opts.layouts {
            match (real, layout) {
                (Real::F32, LayoutChoice::Aos) => compare::<f32, AoS>(opts)?,
                (Real::F32, LayoutChoice::Soa) => compare::<f32, SoA>(opts)?,
                (Real::F32, LayoutChoice::AoSoA32) => compare::<f32, AoSoA<32>>(opts)?,
                (Real::F64, LayoutChoice::Aos) => compare::<f64, AoS>(opts)?,
                (Real::F64, LayoutChoice::Soa) => compare::<f64, SoA>(opts)?,
                (Real::F64, LayoutChoice::AoSoA32) => compare::<f64, AoSoA<32>>(opts)?,
            }
        }
    }
    Ok(())
}
