//! `on_both_backends!(a, b, …)`: a test per function on the CPU backend (module `cpu`), and
//! with the `cuda` feature the same on the GPU (module `gpu`, ignored unless run with
//! `--include-ignored` on a machine with a CUDA device).

#[allow(unused_macros)] // not every harness uses it
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod cpu {
            $(
                #[test]
                fn $name() {
                    ongpu::with_backend(ongpu::Backend::Cpu, super::$name)
                }
            )*
        }
        #[cfg(feature = "cuda")]
        mod gpu {
            $(
                #[test]
                #[ignore = "needs a CUDA device"]
                fn $name() {
                    ongpu::with_backend(ongpu::Backend::Cuda, super::$name)
                }
            )*
        }
    };
}

/// Runs `f` on a thread with a `mib` MiB stack, on the backend of the calling thread: the
/// 5-D sites of domain-wall fields at larger `Ls` (kilobytes each, copied by value in
/// unoptimised builds) outgrow a test thread's 2 MiB.
pub fn with_stack<R: Send + 'static>(mib: usize, f: impl FnOnce() -> R + Send + 'static) -> R {
    let backend = ongpu::backend().expect("a backend");
    std::thread::Builder::new()
        .stack_size(mib << 20)
        .spawn(move || ongpu::with_backend(backend, f))
        .expect("a test thread")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
