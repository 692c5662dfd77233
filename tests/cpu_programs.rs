//! Every test program on the CPU backend, checked against its f64 reference.

mod programs;

use ongpu::{with_backend, Backend};

fn run(name: &str, program: fn() -> Vec<programs::Output>) {
    for out in with_backend(Backend::Cpu, program) {
        out.check(name);
    }
}

macro_rules! program_tests {
    ($($name:ident),*) => {$(
        #[test]
        fn $name() {
            run(stringify!($name), programs::$name);
        }
    )*};
}

programs::with_program_names!(program_tests);
