//! The linear algebra of 5-D fields that the solvers need, at the sites of a call (the
//! even ones for the preconditioned operator, all for the full one), one colour vector at
//! a time.

use super::{FiveFieldOf, FiveSpinor};
use ongpu::prelude::*;

/// `|v|²` over `sites`.
pub fn norm2<const LS: usize, P: SpaceSubset>(
    sites: P,
    v: &FiveFieldOf<P::Space, LS>,
) -> ongpu::Result<f64>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    let n = 4 * LS;
    on_gpu!(sum: sites, {
        let mut acc = 0.0;
        for k in 0..n {
            acc += v[k].norm2();
        }
        acc
    })
}

/// `v = 0` at `sites`.
pub fn zero<const LS: usize, P: SpaceSubset>(
    sites: P,
    v: &mut FiveFieldOf<P::Space, LS>,
) -> ongpu::Result<()>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    let n = 4 * LS;
    on_gpu!(sites, {
        for k in 0..n {
            v[k] = ColorVector::zero();
        }
    })
}

/// `r = b − ax` at `sites`, returning `|r|²`.
pub fn residual<const LS: usize, P: SpaceSubset>(
    sites: P,
    b: &FiveFieldOf<P::Space, LS>,
    ax: &FiveFieldOf<P::Space, LS>,
    r: &mut FiveFieldOf<P::Space, LS>,
) -> ongpu::Result<f64>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    let n = 4 * LS;
    on_gpu!(sum: sites, {
        let mut acc = 0.0;
        for k in 0..n {
            let d = b[k] - ax[k];
            r[k] = d;
            acc += d.norm2();
        }
        acc
    })
}

/// `x += α p`, `s −= α q` at `sites`, in one pass (CGNR's step).
pub fn step<const LS: usize, P: SpaceSubset>(
    sites: P,
    alpha: f64,
    p: &FiveFieldOf<P::Space, LS>,
    q: &FiveFieldOf<P::Space, LS>,
    x: &mut FiveFieldOf<P::Space, LS>,
    s: &mut FiveFieldOf<P::Space, LS>,
) -> ongpu::Result<()>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    let n = 4 * LS;
    on_gpu!(sites, {
        for k in 0..n {
            x[k] += p[k] * alpha;
            s[k] -= q[k] * alpha;
        }
    })
}

/// `p = r + β p` at `sites` (CGNR's new direction).
pub fn direction<const LS: usize, P: SpaceSubset>(
    sites: P,
    beta: f64,
    r: &FiveFieldOf<P::Space, LS>,
    p: &mut FiveFieldOf<P::Space, LS>,
) -> ongpu::Result<()>
where
    FiveSpinor<f64, LS>: ongpu::Element,
{
    let n = 4 * LS;
    on_gpu!(sites, {
        for k in 0..n {
            p[k] = r[k] + p[k] * beta;
        }
    })
}
