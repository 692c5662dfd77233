//! A dense complex linear solve, the direct answer that CG is compared with.

use ongpu::prelude::*;

/// Solves `a x = b` for a square matrix `a` (rows) by Gaussian elimination with partial
/// pivoting (the largest remaining entry of each column as the pivot). Panics if `a` is
/// singular to working precision.
pub fn solve(mut a: Vec<Vec<Complex<f64>>>, mut b: Vec<Complex<f64>>) -> Vec<Complex<f64>> {
    let n = b.len();
    assert!(a.len() == n && a.iter().all(|row| row.len() == n));
    for k in 0..n {
        let pivot = (k..n)
            .max_by(|&i, &j| a[i][k].norm().total_cmp(&a[j][k].norm()))
            .unwrap();
        assert!(a[pivot][k].norm() > 1e-300, "singular matrix at column {k}");
        a.swap(k, pivot);
        b.swap(k, pivot);
        let (done, rest) = a.split_at_mut(k + 1);
        let (row_k, b_k) = (&done[k], b[k]);
        for (row, bi) in rest.iter_mut().zip(&mut b[k + 1..]) {
            let f = row[k] / row_k[k];
            for (x, y) in row[k..].iter_mut().zip(&row_k[k..]) {
                *x -= f * y;
            }
            *bi -= f * b_k;
        }
    }
    let mut x = vec![Complex::new(0.0, 0.0); n];
    for k in (0..n).rev() {
        let s: Complex<f64> = (k + 1..n).map(|j| a[k][j] * x[j]).sum();
        x[k] = (b[k] - s) / a[k][k];
    }
    x
}
