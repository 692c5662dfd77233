//! What a `println!` costs a body when its branch is not taken: two bodies (an f32 update
//! on 2^24 sites, and SU(3) `x += y * z` on 2^22 sites, whose print would write a whole
//! colour matrix) timed as written and with a print that no site reaches, in one process on
//! the same device (CUDA events, warm-up, medians). The printing call also reads its
//! buffer's count back after each launch; both costs are in the times.
//!
//! `cargo run --release --example print_cost [-- --n 16777216 --reps 30]`

mod common;

use common::{arg, device_name, time, warn_if_checked};
use ongpu::prelude::*;

fn main() -> ongpu::Result<()> {
    let n = arg("--n", 1 << 24);
    let reps = arg("--reps", 30).max(1);
    let backend = ongpu::backend()?;
    warn_if_checked(backend);
    // A captured value, so that the compiler cannot drop the branch: no site has it.
    let never = usize::MAX;

    let mut x: Field<f32> = Field::from_fn(n, |i| (i % 13) as f32);
    let y: Field<f32> = Field::filled(n, 0.5);
    let plain = time(backend, reps, || {
        on_gpu!(n, |i| {
            x = x * y + 1.0;
        })
    })?;
    let printing = time(backend, reps, || {
        on_gpu!(n, |i| {
            x = x * y + 1.0;
            if i == never {
                println!("site {i} x = {x}");
            }
        })
    })?;
    let m = n / 4;
    let mut a: Field<ColorMatrix<f32>> = Field::filled(m, ColorMatrix::identity());
    let b: Field<ColorMatrix<f32>> = Field::filled(m, ColorMatrix::identity() * 0.5);
    let c: Field<ColorMatrix<f32>> = Field::filled(m, ColorMatrix::identity() * 0.25);
    let su3_plain = time(backend, reps, || {
        on_gpu!(m, |i| {
            a += b * c;
        })
    })?;
    let su3_printing = time(backend, reps, || {
        on_gpu!(m, |i| {
            a += b * c;
            if i == never {
                println!("site {i} a = {a:.3}");
            }
        })
    })?;
    println!(
        "print_cost: a println! no site reaches, backend {backend:?} ({})",
        device_name(backend)
    );
    for (what, sites, bytes, t0, t1) in [
        ("x = x * y + 1 (f32)", n, 12, plain, printing),
        ("SU(3) x += y * z (f32)", m, 4 * 72, su3_plain, su3_printing),
    ] {
        println!(
            "  {what:<24} {sites:>9} sites: {:>8.3} ms as written, {:>8.3} ms with the print \
             ({:+.1}%), {:.0} / {:.0} GB/s",
            t0 * 1e3,
            t1 * 1e3,
            100.0 * (t1 / t0 - 1.0),
            (bytes * sites) as f64 / t0 / 1e9,
            (bytes * sites) as f64 / t1 / 1e9,
        );
    }
    Ok(())
}
