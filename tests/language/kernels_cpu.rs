//! Explicit kernels on the CPU backend: every kernel program against its reference (barrier
//! and atomic semantics included), and the errors a launch reports.

use crate::kernels;

use kernels::faults::*;
use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Error};

fn run(name: &str, program: kernels::Program) {
    for out in with_backend(Backend::Cpu, program) {
        out.check(name);
    }
}

macro_rules! kernel_tests {
    ($($name:ident),*) => {$(
        #[test]
        fn $name() {
            run(stringify!($name), kernels::$name);
        }
    )*};
}

kernel_tests!(
    indices,
    barriers,
    atomics,
    control_flow,
    lattice_types,
    matmul_examples,
    histogram_examples,
    dot_examples,
    local_arrays,
    device_arrays,
    generic_fns,
    device_barriers
);

#[test]
fn the_list_of_programs_is_complete() {
    assert_eq!(
        kernels::all().len(),
        12,
        "add new programs to kernel_tests! above too"
    );
}

fn cpu<R>(f: impl FnOnce() -> R) -> R {
    with_backend(Backend::Cpu, f)
}

#[test]
fn barriers_not_reached_by_every_thread_are_errors() {
    let mut out: Field<u32, AoS> = Field::zeros(8);
    let e = cpu(|| barrier_in_branch::launch(LaunchShape::linear(2, 8), &mut out, 1)).unwrap_err();
    match &e {
        Error::DivergentBarrier { kernel, detail, .. } => {
            assert_eq!(*kernel, "barrier_in_branch");
            assert!(detail.contains("has returned without reaching it"), "{e}");
            assert!(detail.contains("thread (0, 0, 0) waits"), "{e}");
        }
        other => panic!("{other}"),
    }
    let e =
        cpu(|| barriers_in_both_branches::launch(LaunchShape::linear(1, 8), &mut out)).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, Error::DivergentBarrier { .. }), "{text}");
    let line = |needle: &str| {
        let src = include_str!("kernels/mod.rs");
        let start = src.find("fn barriers_in_both_branches").unwrap();
        start_line(src, start)
            + src[start..]
                .lines()
                .position(|l| l.contains(needle))
                .unwrap()
    };
    let (first, second) = (line("sync_threads();"), line("sync_threads();") + 2);
    assert!(
        text.contains(&format!("line {second}")) && text.contains(&format!("line {first}")),
        "{text}"
    );
}

#[test]
fn a_device_function_barrier_not_reached_by_every_thread_is_an_error() {
    use kernels::device_barriers::device_barrier_in_branch;
    let mut out: Field<f64, AoS> = Field::zeros(8);
    let e =
        cpu(|| device_barrier_in_branch::launch(LaunchShape::linear(1, 8), &mut out)).unwrap_err();
    let src = include_str!("kernels/device_barriers.rs");
    let start = src.find("fn block_sum").unwrap();
    let line = start_line(src, start)
        + src[start..]
            .lines()
            .position(|l| l.contains("sync_threads();"))
            .unwrap();
    match &e {
        Error::DivergentBarrier { kernel, detail, .. } => {
            assert_eq!(*kernel, "device_barrier_in_branch");
            assert!(
                detail.contains(&format!(
                    "thread (0, 0, 0) waits at the sync_threads() of line {line} (in a device \
                     function) but thread (4, 0, 0) has returned"
                )),
                "{e}"
            );
        }
        other => panic!("{other}"),
    }
}

#[test]
fn a_device_function_with_a_barrier_called_from_host_code_panics() {
    #[ongpu::device]
    fn after_barrier(x: u32) -> u32 {
        sync_threads();
        x + 1
    }
    let panic = std::panic::catch_unwind(|| after_barrier(1)).unwrap_err();
    let message = panic.downcast_ref::<&str>().copied().unwrap_or_default();
    assert!(message.contains("only kernels call it"), "{message}");
}

fn start_line(src: &str, offset: usize) -> usize {
    src[..offset].matches('\n').count() + 1
}

#[test]
fn a_uniform_branch_around_a_barrier_is_fine() {
    #[ongpu::kernel]
    fn uniform(out: &mut [u32], go: u32) {
        let t = thread_idx().x as usize;
        if go == 1 {
            out[t] = 1;
            sync_threads();
            let next = out[(t + 1) % 8];
            sync_threads();
            out[t] += next;
        }
    }
    let mut out: Field<u32, AoS> = Field::zeros(8);
    cpu(|| uniform::launch(LaunchShape::linear(1, 8), &mut out, 1)).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![2; 8]);
    cpu(|| uniform::launch(LaunchShape::linear(1, 8), &mut out, 0)).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![2; 8]);
}

#[test]
fn out_of_range_indices_panic_like_rust_and_name_the_array() {
    let a: Field<f32, AoS> = Field::filled(8, 1.0);
    let mut out: Field<f32, AoS> = Field::zeros(8);
    let e = cpu(|| read_past::launch(LaunchShape::linear(1, 8), &a, &mut out, 1)).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, Error::BodyPanicked { .. }), "{text}");
    for needle in [
        "kernel `read_past`",
        "thread (7, 0, 0)",
        "block (0, 0, 0)",
        "the len is 8 but the index is 8",
        "parameter `a`",
    ] {
        assert!(text.contains(needle), "{needle:?} missing: {text}");
    }
    let e = cpu(|| read_past::launch(LaunchShape::linear(1, 8), &a, &mut out, -1)).unwrap_err();
    assert!(e.to_string().contains("the index is -1"), "{e}");
    let e = cpu(|| shared_past::launch(LaunchShape::linear(1, 5), &mut out)).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("the index is 4 in dimension 2 of 2 (shared array `s`"),
        "{text}"
    );
}

#[test]
fn launch_shapes_are_checked_before_anything_runs() {
    let a: Field<f32, AoS> = Field::filled(8, 1.0);
    let mut out: Field<f32, AoS> = Field::filled(8, 5.0);
    for (grid, block, needle) in [
        ((1, 1, 1), (0, 1, 1), "at least 1"),
        ((1, 1, 1), (33, 32, 1), "1056 threads"),
        ((1, 1, 1), (1, 1, 65), "larger than CUDA allows"),
        ((1, 70_000, 1), (8, 1, 1), "grid (1, 70000, 1)"),
    ] {
        let e =
            cpu(|| read_past::launch(LaunchShape { grid, block }, &a, &mut out, 0)).unwrap_err();
        assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
        assert!(e.to_string().contains(needle), "{needle:?}: {e}");
    }
    assert_eq!(out.to_vec().unwrap(), vec![5.0; 8]);
}

#[test]
fn too_much_shared_memory_is_an_error() {
    #[ongpu::kernel]
    fn big(out: &mut [f64]) {
        let s = shared!([f64; 8192]);
        s[0] = 1.0;
        out[0] = s[0];
    }
    let mut out: Field<f64, AoS> = Field::zeros(1);
    let e = cpu(|| big::launch(LaunchShape::linear(1, 1), &mut out)).unwrap_err();
    assert!(
        e.to_string()
            .contains("declares 65536 bytes of shared! arrays"),
        "{e}"
    );
}

#[test]
fn a_kernel_reads_the_host_copy_and_leaves_the_result_on_the_host() {
    #[ongpu::kernel]
    fn double(x: &mut [i32]) {
        let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
        if i < x.len() {
            x[i] *= 2;
        }
    }
    let mut x: Field<i32, AoS> = Field::from_vec((0..100).collect());
    cpu(|| double::launch(LaunchShape::linear(4, 32), &mut x)).unwrap();
    cpu(|| double::launch(LaunchShape::linear(4, 32), &mut x)).unwrap();
    assert_eq!(
        x.to_vec().unwrap(),
        (0..100).map(|v| 4 * v).collect::<Vec<_>>()
    );
    assert_eq!(x.transfers().uploads, 0);
}
