//! Differential tests of random bodies (written by `scripts/gen_differential.py` into
//! `generated.rs`): each body runs with `on_gpu!` and as the same statements in a plain Rust
//! loop. On the CPU backend the two agree bit for bit; every generated kernel compiles with
//! NVRTC without a warning; on a GPU (`--include-ignored`) integers agree with the CPU bit
//! for bit and floats within a few units in the last place (NVRTC contracts `a * b + c`
//! into fused multiply-adds, and CUDA's `sin cos exp` are within 2 ulp).

#[path = "../support/mod.rs"]
mod support;
#[rustfmt::skip]
mod generated;

use ongpu::{with_backend, Backend, Field};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The captured fields of every case, and their values on the host.
pub struct Inputs {
    pub n: usize,
    pub a: Field<i32>,
    pub b: Field<i32>,
    pub u: Field<u32>,
    pub f: Field<f32>,
    pub g: Field<f32>,
    pub d: Field<f64>,
    pub av: Vec<i32>,
    pub bv: Vec<i32>,
    pub uv: Vec<u32>,
    pub fv: Vec<f32>,
    pub gv: Vec<f32>,
    pub dv: Vec<f64>,
}

impl Inputs {
    /// Values in the ranges the generator assumes: |a| <= 1000, 1 <= |b| <= 40, any u,
    /// |f| <= 10, 0.5 <= g <= 4, |d| <= 10.
    fn new() -> Self {
        let n = 257;
        let mut r = SmallRng::seed_from_u64(7);
        let av: Vec<i32> = (0..n).map(|_| r.random_range(-1000..=1000)).collect();
        let bv: Vec<i32> = (0..n)
            .map(|_| {
                let v = r.random_range(1..=40);
                if r.random() {
                    v
                } else {
                    -v
                }
            })
            .collect();
        let uv: Vec<u32> = (0..n).map(|_| r.random()).collect();
        let fv: Vec<f32> = (0..n).map(|_| r.random_range(-10.0..10.0)).collect();
        let gv: Vec<f32> = (0..n).map(|_| r.random_range(0.5..4.0)).collect();
        let dv: Vec<f64> = (0..n).map(|_| r.random_range(-10.0..10.0)).collect();
        Inputs {
            n,
            a: Field::from_vec(av.clone()),
            b: Field::from_vec(bv.clone()),
            u: Field::from_vec(uv.clone()),
            f: Field::from_vec(fv.clone()),
            g: Field::from_vec(gv.clone()),
            d: Field::from_vec(dv.clone()),
            av,
            bv,
            uv,
            fv,
            gv,
            dv,
        }
    }
}

/// A value of an output, as bits and as a number.
pub trait Out: Copy {
    fn bits(self) -> u64;
    fn num(self) -> f64;
    /// True for floating point.
    const FLOAT: bool;
}
impl Out for i32 {
    fn bits(self) -> u64 {
        self as u32 as u64
    }
    fn num(self) -> f64 {
        self as f64
    }
    const FLOAT: bool = false;
}
impl Out for u32 {
    fn bits(self) -> u64 {
        self as u64
    }
    fn num(self) -> f64 {
        self as f64
    }
    const FLOAT: bool = false;
}
impl Out for f32 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn num(self) -> f64 {
        self as f64
    }
    const FLOAT: bool = true;
}
impl Out for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn num(self) -> f64 {
        self
    }
    const FLOAT: bool = true;
}

/// One generated case.
pub type Case = fn(&Inputs) -> Outcome;

/// What one case gave: the call's output and the plain loop's.
pub struct Outcome {
    pub case: usize,
    pub body: &'static str,
    pub float: bool,
    pub got: Vec<(u64, f64)>,
    pub want: Vec<(u64, f64)>,
}

/// Collects a case's results (panics if the call failed).
pub fn outcome<T: Out>(
    case: usize,
    body: &'static str,
    run: ongpu::Result<()>,
    got: ongpu::Result<Vec<T>>,
    want: Vec<T>,
) -> Outcome {
    run.unwrap_or_else(|e| panic!("case {case} `{body}`: {e}"));
    let pairs = |v: Vec<T>| v.into_iter().map(|x| (x.bits(), x.num())).collect();
    Outcome {
        case,
        body,
        float: T::FLOAT,
        got: pairs(got.unwrap()),
        want: pairs(want),
    }
}

fn run_group(backend: Backend, group: usize) -> Vec<Outcome> {
    let inputs = Inputs::new();
    with_backend(backend, || {
        generated::GROUPS[group]
            .iter()
            .map(|c| c(&inputs))
            .collect()
    })
}

fn cpu_matches_plain_rust(group: usize) {
    for o in run_group(Backend::Cpu, group) {
        for (s, (g, w)) in o.got.iter().zip(&o.want).enumerate() {
            assert!(
                g.0 == w.0 || (g.1.is_nan() && w.1.is_nan()),
                "case {} `{}`, site {s}: on_gpu! gave {}, the plain loop {}",
                o.case,
                o.body,
                g.1,
                w.1
            );
        }
    }
}

/// GPU against CPU: integers exactly, floats to `tol` relative to the value's size (at
/// least 1).
#[cfg(feature = "cuda")]
fn gpu_matches_cpu(group: usize) {
    let (gpu, cpu) = (
        run_group(Backend::Cuda, group),
        run_group(Backend::Cpu, group),
    );
    for (g, c) in gpu.iter().zip(&cpu) {
        for (s, (x, y)) in g.got.iter().zip(&c.got).enumerate() {
            let ok = if g.float {
                // The output's precision decides: an f32 output (`of`) may differ in its last
                // bits (FMA contraction) even where the body passes through f64 casts.
                let tol = if g.body.contains("of =") {
                    1e-5
                } else if g.body.contains("f64") || g.body.contains("od =") {
                    1e-12
                } else {
                    1e-5
                };
                (x.1.is_nan() && y.1.is_nan()) || (x.1 - y.1).abs() <= tol * y.1.abs().max(1.0)
            } else {
                x.0 == y.0
            };
            assert!(
                ok,
                "case {} `{}`, site {s}: GPU {}, CPU {}",
                g.case, g.body, x.1, y.1
            );
        }
    }
}

macro_rules! groups {
    ($($cpu:ident $gpu:ident $k:expr;)*) => {$(
        #[test]
        fn $cpu() {
            cpu_matches_plain_rust($k);
        }
        #[cfg(feature = "cuda")]
        #[test]
        #[ignore = "needs a CUDA device"]
        fn $gpu() {
            gpu_matches_cpu($k);
        }
    )*};
}

groups! {
    cpu_group_0 gpu_group_0 0;
    cpu_group_1 gpu_group_1 1;
    cpu_group_2 gpu_group_2 2;
    cpu_group_3 gpu_group_3 3;
    cpu_group_4 gpu_group_4 4;
    cpu_group_5 gpu_group_5 5;
    cpu_group_6 gpu_group_6 6;
    cpu_group_7 gpu_group_7 7;
}

#[test]
fn the_groups_cover_every_case() {
    assert_eq!(generated::GROUPS.len(), 8);
    assert!(generated::GROUPS.iter().map(|g| g.len()).sum::<usize>() >= 500);
}

/// Every kernel of every case compiles with NVRTC, without a warning.
#[cfg(feature = "cuda")]
#[test]
fn every_generated_kernel_compiles_without_warnings() {
    if !support::require_nvrtc() {
        return;
    }
    let (mut seen, mut total) = (std::collections::HashSet::new(), 0);
    for group in 0..generated::GROUPS.len() {
        let (_, sources) =
            ongpu::inspect::collect_kernel_sources(|| run_group(Backend::Cpu, group));
        total += sources.len();
        for s in sources {
            if !seen.insert(s.source.clone()) {
                continue;
            }
            let what = format!("the kernel at {}", s.location);
            let log =
                ongpu::inspect::compile(&s, "sm_90").unwrap_or_else(|e| panic!("{what}: {e}"));
            support::check_no_warnings(&what, &log);
        }
    }
    // Bodies the generator happened to write twice are one kernel.
    assert!(total >= 500, "only {total} calls");
    assert!(seen.len() >= 400, "only {} distinct kernels", seen.len());
}
