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

program_tests!(
    vector_add,
    scalar_control_flow,
    integer_semantics,
    casts,
    maths,
    complex,
    color_algebra,
    color_f64,
    device_functions,
    partial_sites,
    layouts_agree,
    color_operators_f32,
    color_operators_f64
);

#[test]
fn the_list_of_programs_is_complete() {
    assert_eq!(
        programs::all().len(),
        13,
        "add new programs to program_tests! above too"
    );
}
