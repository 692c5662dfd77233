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
