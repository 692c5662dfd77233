//! SU(2) subgroup moves of the Cabibbo–Marinari update, as device functions (run in CUDA
//! kernels and on CPU threads alike).
//!
//! An SU(2) element is a unit quaternion `a0 + i a·σ`; as a 2x2 matrix
//! `[[a0 + i a3, a2 + i a1], [−a2 + i a1, a0 − i a3]]`. The subgroup `sub` = 0, 1, 2 acts on
//! the rows (p, q) = (0, 1), (0, 2), (1, 2) of a colour matrix.

use ongpu::prelude::*;

// Entries are picked with branches over constant indices, never `m[p][q]` with a run-time
// `p`: a matrix indexed at run time lives in local memory on the GPU, a selected entry in
// registers.

/// Entry `(a, b)` (0 for p, 1 for q) of the (p, q) block of `m`.
#[ongpu::device]
pub fn block_entry(m: ColorMatrix<f64>, sub: u32, a: u32, b: u32) -> Complex<f64> {
    if sub == 0 {
        if a == 0 {
            if b == 0 {
                m[0][0]
            } else {
                m[0][1]
            }
        } else if b == 0 {
            m[1][0]
        } else {
            m[1][1]
        }
    } else if sub == 1 {
        if a == 0 {
            if b == 0 {
                m[0][0]
            } else {
                m[0][2]
            }
        } else if b == 0 {
            m[2][0]
        } else {
            m[2][2]
        }
    } else if a == 0 {
        if b == 0 {
            m[1][1]
        } else {
            m[1][2]
        }
    } else if b == 0 {
        m[2][1]
    } else {
        m[2][2]
    }
}

/// Column `j` of row p (`a` = 0) or q (`a` = 1) of subgroup `sub`.
#[ongpu::device]
pub fn row_entry(m: ColorMatrix<f64>, sub: u32, a: u32, j: usize) -> Complex<f64> {
    let r0 = m[0][j];
    let r1 = m[1][j];
    let r2 = m[2][j];
    if a == 0 {
        if sub == 2 {
            r1
        } else {
            r0
        }
    } else if sub == 0 {
        r1
    } else {
        r2
    }
}

/// Component `c` of the quaternion proportional to the SU(2) projection of the (p, q) block
/// of `w`: the part of the block that `Re tr(r w)` sees for r in SU(2).
#[ongpu::device]
pub fn project(w: ColorMatrix<f64>, sub: u32, c: u32) -> f64 {
    let wpp = block_entry(w, sub, 0, 0);
    let wpq = block_entry(w, sub, 0, 1);
    let wqp = block_entry(w, sub, 1, 0);
    let wqq = block_entry(w, sub, 1, 1);
    if c == 0 {
        0.5 * (wpp.re + wqq.re)
    } else if c == 1 {
        0.5 * (wpq.im + wqp.im)
    } else if c == 2 {
        0.5 * (wpq.re - wqp.re)
    } else {
        0.5 * (wpp.im - wqq.im)
    }
}

/// Left-multiplies the rows (p, q) of subgroup `sub` of `m` by the SU(2) element
/// `(r0, r1, r2, r3)`.
#[ongpu::device]
pub fn rotate_rows(
    m: ColorMatrix<f64>,
    sub: u32,
    r0: f64,
    r1: f64,
    r2: f64,
    r3: f64,
) -> ColorMatrix<f64> {
    let r00 = Complex::new(r0, r3);
    let r01 = Complex::new(r2, r1);
    let r10 = Complex::new(-r2, r1);
    let r11 = Complex::new(r0, -r3);
    let mut out = m;
    for j in 0..3 {
        let mp = row_entry(m, sub, 0, j);
        let mq = row_entry(m, sub, 1, j);
        let np = r00 * mp + r01 * mq;
        let nq = r10 * mp + r11 * mq;
        if sub == 0 {
            out[0][j] = np;
            out[1][j] = nq;
        } else if sub == 1 {
            out[0][j] = np;
            out[2][j] = nq;
        } else {
            out[1][j] = np;
            out[2][j] = nq;
        }
    }
    out
}
