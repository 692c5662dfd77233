//! Helpers shared by the test harnesses (each harness uses its own part).

#![allow(dead_code)]

#[macro_use]
pub mod backends;
pub mod dense;
#[cfg(feature = "qcd")]
pub mod md;
#[cfg(feature = "qcd")]
pub mod spinors;

/// True when NVRTC can be loaded. Tests that prove generated kernels compile need it: they
/// fail without it, unless `ONGPU_SKIP_NVRTC` is set (then they return early).
#[cfg(feature = "cuda")]
pub fn require_nvrtc() -> bool {
    if ongpu::cuda::nvrtc::available() {
        return true;
    }
    if std::env::var_os("ONGPU_SKIP_NVRTC").is_some() {
        eprintln!("NVRTC not found; skipped because ONGPU_SKIP_NVRTC is set");
        return false;
    }
    panic!(
        "NVRTC (libnvrtc.so.13) not found: `pip install nvidia-cuda-nvrtc==13.0.88` and put \
         site-packages/nvidia/cu13/lib on LD_LIBRARY_PATH (scripts/test.sh does this), or set \
         ONGPU_SKIP_NVRTC=1"
    );
}

/// Runs this test binary again as a child, running only the test `name` of the module
/// `module` (its `module_path!()`) with the given environment, and returns its standard
/// output (the child sees `ONGPU_TEST_CHILD=1`).
pub fn run_child(module: &str, name: &str, env: &[(&str, &str)]) -> String {
    // The harness names a test by its path below the crate: `tuning::tuning_child`.
    let test = match module.split_once("::") {
        Some((_crate, path)) => format!("{path}::{name}"),
        None => name.to_string(),
    };
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", &test, "--nocapture", "--test-threads=1"])
        .env("ONGPU_TEST_CHILD", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// True in a child started by [`run_child`].
pub fn is_child() -> bool {
    std::env::var_os("ONGPU_TEST_CHILD").is_some()
}

/// Panics if NVRTC warned about the kernel `what` (its log is `log`): a warning points at
/// a translation that differs from the Rust it came from.
#[cfg(feature = "cuda")]
pub fn check_no_warnings(what: &str, log: &str) {
    if let Some(w) = ongpu::inspect::warnings(log) {
        panic!("NVRTC warned about {what}:\n{w}");
    }
}

/// Checks ptxas' resource report in an NVRTC log: no register spills, no stack frame.
/// Returns whether there was a report. The CUDA 13.0 toolkit's NVRTC has been seen to print
/// none for a kernel that the `nvidia-cuda-nvrtc` wheel reports in full (with no spills);
/// then this says so and returns `false`, and callers require reports for most kernels, so
/// that the check cannot pass by having nothing to check.
#[cfg(feature = "cuda")]
pub fn check_no_local_memory(what: &str, log: &str) -> bool {
    if !log.contains("ptxas info") {
        eprintln!(
            "note: NVRTC printed no ptxas report for {what}; its spills are not checked here"
        );
        return false;
    }
    // One line per function of the module: every one must be free of spills (a `contains`
    // over the whole log would pass if any one function were), and of stack frames, except
    // for CUDA's double-precision trigonometric argument reduction, whose slow path (huge
    // arguments only) keeps a small table on the stack of the kernel that may call it.
    let lines: Vec<&str> = log.lines().filter(|l| l.contains("stack frame")).collect();
    let trig_slow_path = log.contains("__internal_trig_reduction_slowpath");
    assert!(
        !lines.is_empty()
            && lines.iter().all(|l| {
                (trig_slow_path || l.contains(" 0 bytes stack frame"))
                    && l.contains(" 0 bytes spill stores")
                    && l.contains(" 0 bytes spill loads")
            }),
        "{what} spills or uses local memory:\n{log}"
    );
    true
}

/// The distinct kernels among `sources` (one call site run many times gives one kernel many
/// times), in a fixed order.
#[cfg(feature = "cuda")]
pub fn distinct_kernels(
    sources: Vec<ongpu::inspect::KernelSource>,
) -> Vec<ongpu::inspect::KernelSource> {
    let mut kernels = sources;
    kernels.sort_by(|a, b| a.source.cmp(&b.source));
    kernels.dedup_by(|a, b| a.source == b.source);
    kernels
}

/// The distinct kernels `f` generates, run on the CPU backend without bounds checks (the
/// sources a release run on a GPU would compile; no GPU needed).
#[cfg(feature = "cuda")]
pub fn cpu_kernel_sources(f: impl FnOnce()) -> Vec<ongpu::inspect::KernelSource> {
    let ((), sources) = ongpu::inspect::collect_kernel_sources(|| {
        ongpu::with_bounds_checks(false, || ongpu::with_backend(ongpu::Backend::Cpu, f))
    });
    distinct_kernels(sources)
}

/// Compiles every kernel for each of `archs` with the real NVRTC and hands each log to
/// `check` with a description of the kernel and arch (an NVRTC error panics).
#[cfg(feature = "cuda")]
fn check_compiled_kernels(
    kernels: &[ongpu::inspect::KernelSource],
    archs: &[&str],
    check: impl Fn(&str, &str),
) {
    for k in kernels {
        for &arch in archs {
            let what = format!("the kernel at {} ({arch})", k.location);
            let log = ongpu::inspect::compile(k, arch).unwrap_or_else(|e| panic!("{what}: {e}"));
            check(&what, &log);
        }
    }
}

/// Compiles every kernel for Hopper and Ampere with the real NVRTC: no warnings.
#[cfg(feature = "cuda")]
pub fn check_kernels_compile(kernels: &[ongpu::inspect::KernelSource]) {
    check_compiled_kernels(kernels, &["sm_90", "sm_80"], check_no_warnings);
}

/// Compiles every kernel for Hopper and Ampere with the real NVRTC: no warnings, and no
/// local memory where ptxas reports (see [`check_no_local_memory`]).
#[cfg(feature = "cuda")]
pub fn check_kernels_stay_in_registers(kernels: &[ongpu::inspect::KernelSource]) {
    check_kernels_stay_in_registers_on(kernels, &["sm_90", "sm_80"]);
}

/// As [`check_kernels_stay_in_registers`] for the archs `registers`, and no warnings for
/// Ampere where it is not among them (kernels that hold a site's eight f64 links through a
/// loop fit Hopper's registers and spill a few bytes on Ampere).
#[cfg(feature = "cuda")]
pub fn check_kernels_stay_in_registers_on(
    kernels: &[ongpu::inspect::KernelSource],
    registers: &[&str],
) {
    check_compiled_kernels(kernels, registers, |what, log| {
        check_no_warnings(what, log);
        check_no_local_memory(what, log);
    });
    if !registers.contains(&"sm_80") {
        check_compiled_kernels(kernels, &["sm_80"], check_no_warnings);
    }
}
