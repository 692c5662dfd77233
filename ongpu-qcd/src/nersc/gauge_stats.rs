//! The two numbers a NERSC header carries to check the links: the average plaquette and the
//! average link trace, with the normalisation of Grid (`WilsonLoops::avgPlaquette`,
//! `linkTrace`), QDP++ (`mesplq` in `lib/qdp_iogauge.cc`) and MILC (`save_serial_archive`):
//! both are 1 for unit links.
//!
//! Sums run over fixed chunks of sites whose partial sums are added in order, so the result
//! does not depend on how many threads computed it.

use super::links::SiteLinks;
use ongpu_runtime::ColorMatrix;
use ongpu_runtime::Lattice;
use std::ops::Range;

/// Sites per partial sum.
const CHUNK: usize = 2048;

/// The mean over sites `x` and the six planes `mu < nu` of
/// `Re tr(U_mu(x) U_nu(x+mu) U_mu(x+nu)† U_nu(x)†) / 3`, periodic. `u` is in `lat`'s order.
pub(super) fn plaquette(lat: &Lattice, u: &[SiteLinks]) -> f64 {
    let sum = chunked_sum(u.len(), |sites| {
        let mut s = 0.0;
        for i in sites {
            for mu in 0..4 {
                for nu in mu + 1..4 {
                    let forward = u[i][mu] * u[lat.shift(i, mu, 1)][nu];
                    let backward = u[i][nu] * u[lat.shift(i, nu, 1)][mu];
                    s += re_trace_times_adj(&forward, &backward);
                }
            }
        }
        s
    });
    sum / (u.len() as f64 * 6.0 * 3.0)
}

/// The mean over all links of `Re tr U / 3`.
pub(super) fn link_trace(u: &[SiteLinks]) -> f64 {
    let sum = chunked_sum(u.len(), |sites| {
        u[sites].iter().flatten().map(|m| m.trace().re).sum::<f64>()
    });
    sum / (u.len() as f64 * 4.0 * 3.0)
}

/// `Re tr(a b†)`, without forming the product.
fn re_trace_times_adj(a: &ColorMatrix<f64>, b: &ColorMatrix<f64>) -> f64 {
    a.m.iter()
        .flatten()
        .zip(b.m.iter().flatten())
        .map(|(x, y)| x.re * y.re + x.im * y.im)
        .sum()
}

/// `part` summed over chunks of `0..n`, on the host's threads; the partial sums are added
/// in chunk order.
fn chunked_sum(n: usize, part: impl Fn(Range<usize>) -> f64 + Sync) -> f64 {
    let chunks = n.div_ceil(CHUNK);
    let range = |c: usize| c * CHUNK..((c + 1) * CHUNK).min(n);
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .clamp(1, chunks.max(1));
    let mut partials = vec![0.0; chunks];
    if threads == 1 {
        for (c, p) in partials.iter_mut().enumerate() {
            *p = part(range(c));
        }
    } else {
        let per_thread = chunks.div_ceil(threads);
        std::thread::scope(|scope| {
            for (t, block) in partials.chunks_mut(per_thread).enumerate() {
                let part = &part;
                scope.spawn(move || {
                    for (k, p) in block.iter_mut().enumerate() {
                        *p = part(range(t * per_thread + k));
                    }
                });
            }
        });
    }
    partials.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ongpu_runtime::Complex;

    #[test]
    fn unit_links_give_one() {
        let lat = Lattice::new([2, 4, 2, 6]).unwrap();
        let u = vec![[ColorMatrix::identity(); 4]; lat.volume()];
        assert_eq!(plaquette(&lat, &u), 1.0);
        assert_eq!(link_trace(&u), 1.0);
    }

    #[test]
    fn a_constant_abelian_field_in_one_plane() {
        // U_0 = diag(e^{iθ}, e^{-iθ}, 1) everywhere, other links 1: plaquettes of the
        // planes (0, nu) are U_0 U_0† = 1 as well (constant field), so the plaquette is 1;
        // the link trace sees the phase.
        let lat = Lattice::new([4, 2, 2, 2]).unwrap();
        let theta = 0.3f64;
        let mut u0 = ColorMatrix::<f64>::identity();
        u0.m[0][0] = Complex::from_polar(1.0, theta);
        u0.m[1][1] = Complex::from_polar(1.0, -theta);
        let id = ColorMatrix::identity();
        let u = vec![[u0, id, id, id]; lat.volume()];
        assert!((plaquette(&lat, &u) - 1.0).abs() < 1e-15);
        let want = (3.0 * 3.0 + (2.0 * theta.cos() + 1.0)) / 12.0;
        assert!((link_trace(&u) - want).abs() < 1e-15);
    }

    #[test]
    fn chunked_sums_do_not_depend_on_the_chunking_of_threads() {
        let n = 5 * CHUNK + 17;
        let s = chunked_sum(n, |r| r.map(|i| 1.0 / (i as f64 + 1.0)).sum());
        let mut want = 0.0;
        for c in 0..n.div_ceil(CHUNK) {
            let r = c * CHUNK..((c + 1) * CHUNK).min(n);
            want += r.map(|i| 1.0 / (i as f64 + 1.0)).sum::<f64>();
        }
        assert_eq!(s, want);
        assert_eq!(chunked_sum(0, |_| 1.0), 0.0);
    }
}
