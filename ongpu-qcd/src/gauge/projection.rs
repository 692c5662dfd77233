//! Reunitarisation as a device function: links drift off SU(3) by rounding over many
//! updates, and every update ends by projecting them back.

use ongpu::prelude::*;

/// Back onto SU(3): Gram–Schmidt on the first two rows, the third their conjugate cross
/// product. Rounding drifts links off the group over many updates; this removes the drift.
#[ongpu::device]
pub fn reunitarise(m: ColorMatrix<f64>) -> ColorMatrix<f64> {
    let mut u = m;
    let n0 = (u[0][0].norm_sqr() + u[0][1].norm_sqr() + u[0][2].norm_sqr()).sqrt();
    for j in 0..3 {
        u[0][j] /= n0;
    }
    let c = u[0][0].conj() * u[1][0] + u[0][1].conj() * u[1][1] + u[0][2].conj() * u[1][2];
    for j in 0..3 {
        let along = c * u[0][j];
        u[1][j] -= along;
    }
    let n1 = (u[1][0].norm_sqr() + u[1][1].norm_sqr() + u[1][2].norm_sqr()).sqrt();
    for j in 0..3 {
        u[1][j] /= n1;
    }
    u[2][0] = (u[0][1] * u[1][2] - u[0][2] * u[1][1]).conj();
    u[2][1] = (u[0][2] * u[1][0] - u[0][0] * u[1][2]).conj();
    u[2][2] = (u[0][0] * u[1][1] - u[0][1] * u[1][0]).conj();
    u
}
