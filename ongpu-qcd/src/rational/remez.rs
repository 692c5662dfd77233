//! Remez's second algorithm for the rational function of degree `(n, n)` with the least
//! maximal relative error to `t^s` on `[t₀, 1]` (the spectral range scaled by its top).
//!
//! Each round solves, at `2n + 2` reference points `tᵢ`, for the coefficients of `N` and
//! `D` (`D(0) = 1`) and the level `E` in `N(tᵢ) = f(tᵢ) (1 + (−1)ⁱ E) D(tᵢ)`; the system is
//! nonlinear in `E D`, so `E` multiplies the previous `D` ([`level_solution`]). The error `N/(f D) − 1` then changes sign between neighbouring references;
//! its zeros are found by bisection and its extremum between each two zeros by a golden
//! section, both in `ln t`, and those extrema are the next references. The exchange stops
//! when the extrema are level to a part in 10⁴ (the minimax error is then known to that
//! part: de la Vallée Poussin's bound puts it between the smallest and largest extremum).

use super::big::{abs, big, polynomial, root_power, solve, to_f64, Big};

/// `t^(numerator / 2^halvings)`, the function approximated.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target {
    pub numerator: i32,
    pub halvings: u32,
}

impl Target {
    fn at(&self, t: &Big) -> Big {
        root_power(t, self.numerator, self.halvings)
    }
}

/// A converged minimax rational function on `[t₀, 1]`.
pub(crate) struct Minimax {
    /// `N(t) = Σ aₖ tᵏ`.
    pub numerator: Vec<Big>,
    /// `D(t) = Σ dₖ tᵏ`, `d₀ = 1`.
    pub denominator: Vec<Big>,
    /// The largest relative error on the range (the largest extremum).
    pub error: f64,
}

/// Rounds of the exchange before giving up.
const MAX_ROUNDS: usize = 100;
/// Solves per round with `E` times the previous `D`.
const LEVEL_SOLVES: usize = 8;
/// The extrema are level when `(max − min) ≤ LEVEL · max`.
const LEVEL: f64 = 1e-4;

/// The narrowest range the exchange starts on: wider ones are reached by continuation.
const FIRST_RANGE: f64 = 1e-2;

/// The minimax approximation of `target` of degree `(n, n)` on `[t0, 1]`, or why none was
/// found.
///
/// From Chebyshev points in `ln t` the exchange converges on narrow ranges; a wide one is
/// reached by continuation, the range widened tenfold at a time and each solution's
/// references stretched in `ln t` to start the next (the references of the minimax
/// approximation move smoothly with the range).
pub(crate) fn minimax(target: Target, n: usize, t0: f64) -> Result<Minimax, String> {
    let mut lo = t0.max(FIRST_RANGE);
    let m = 2 * n + 2;
    // Chebyshev points in ln t, both ends included.
    let mut refs: Vec<f64> = (0..m)
        .map(|i| {
            let c = (std::f64::consts::PI * i as f64 / (m - 1) as f64).cos();
            (lo.ln() / 2.0 * (1.0 + c)).exp()
        })
        .collect();
    loop {
        let (found, at) = exchange(target, n, lo, &refs)?;
        if lo <= t0 {
            return Ok(found);
        }
        let next = (lo / 10.0).max(t0);
        let stretch = next.ln() / lo.ln();
        refs = at.iter().map(|t| (t.ln() * stretch).exp()).collect();
        lo = next;
    }
}

/// The exchange on `[t0, 1]` from the references `start`: the approximation and its final
/// references.
fn exchange(
    target: Target,
    n: usize,
    t0: f64,
    start: &[f64],
) -> Result<(Minimax, Vec<f64>), String> {
    let m = 2 * n + 2;
    let mut refs: Vec<Big> = start.iter().map(|&t| big(t)).collect();
    refs[0] = big(t0);
    refs[m - 1] = big(1.0);
    let mut denominator_at: Vec<Big> = vec![big(1.0); m];
    for _round in 0..MAX_ROUNDS {
        let (numerator, denominator) = level_solution(target, n, &refs, &mut denominator_at)?;
        let error = |t: &Big| -> Big {
            polynomial(&numerator, t) / (target.at(t) * polynomial(&denominator, t)) - big(1.0)
        };
        // A zero of the error between each two neighbouring references.
        let mut zeros = Vec::with_capacity(m - 1);
        for i in 0..m - 1 {
            zeros.push(zero_between(&error, &refs[i], &refs[i + 1])?);
        }
        // The extremum between each two zeros (and the ends).
        let mut next = Vec::with_capacity(m);
        let mut extrema = Vec::with_capacity(m);
        for i in 0..m {
            let lo = if i == 0 {
                big(t0)
            } else {
                zeros[i - 1].clone()
            };
            let hi = if i == m - 1 {
                big(1.0)
            } else {
                zeros[i].clone()
            };
            let (t, e) = extremum_between(&error, &lo, &hi);
            next.push(t);
            extrema.push(e);
        }
        let largest = extrema.iter().cloned().fold(0.0, f64::max);
        let smallest = extrema.iter().cloned().fold(f64::INFINITY, f64::min);
        if !largest.is_finite() {
            return Err("the error is not finite on the range (a pole crossed it)".to_string());
        }
        if largest - smallest <= LEVEL * largest {
            let at = refs.iter().map(to_f64).collect();
            return Ok((
                Minimax {
                    numerator,
                    denominator,
                    error: largest,
                },
                at,
            ));
        }
        refs = next;
    }
    Err(format!(
        "the Remez exchange did not level the error in {MAX_ROUNDS} rounds"
    ))
}

/// The coefficients of `N` and `D` at the references, with `E D` replaced by `E D_prev`
/// (`D_prev` the last solve's `D`, `D(tᵢ)` in `denominator_at`, updated here) and the solve
/// repeated until `E` settles, at most [`LEVEL_SOLVES`] times. The errors at the references
/// are then `±E D_prev/D`, still alternating; as the references settle over the rounds so
/// does `D`, and the last rounds' levels are exact (a fixed point of these solves converges
/// only linearly while the references still move, so no round waits for it).
fn level_solution(
    target: Target,
    n: usize,
    refs: &[Big],
    denominator_at: &mut [Big],
) -> Result<(Vec<Big>, Vec<Big>), String> {
    let m = refs.len();
    let f: Vec<Big> = refs.iter().map(|t| target.at(t)).collect();
    let powers: Vec<Vec<Big>> = refs
        .iter()
        .map(|t| {
            let mut p = Vec::with_capacity(n + 1);
            let mut power = big(1.0);
            for _ in 0..=n {
                p.push(power.clone());
                power = &power * t;
            }
            p
        })
        .collect();
    let mut last_level = f64::NAN;
    let mut solution = None;
    for _ in 0..LEVEL_SOLVES {
        // Unknowns: a₀…aₙ, d₁…dₙ, E.
        let mut rows = Vec::with_capacity(m);
        let mut rhs = Vec::with_capacity(m);
        for i in 0..m {
            let mut row: Vec<Big> = powers[i].clone();
            for p in &powers[i][1..] {
                row.push(-(&f[i] * p));
            }
            let sign = if i % 2 == 0 { big(1.0) } else { big(-1.0) };
            row.push(-(sign * &f[i] * &denominator_at[i]));
            rows.push(row);
            rhs.push(f[i].clone());
        }
        let x = solve(rows, rhs).ok_or_else(|| "the reference system is singular".to_string())?;
        let numerator = x[..=n].to_vec();
        let mut denominator = vec![big(1.0)];
        denominator.extend(x[n + 1..2 * n + 1].iter().cloned());
        let level = to_f64(&x[2 * n + 1]);
        for (d, t) in denominator_at.iter_mut().zip(refs) {
            *d = polynomial(&denominator, t);
        }
        solution = Some((numerator, denominator));
        if (level - last_level).abs() <= 1e-12 * level.abs() {
            break;
        }
        last_level = level;
    }
    Ok(solution.expect("at least one solve"))
}

/// A zero of `e` between `a` and `b`, where it changes sign (bisection in `ln t`).
fn zero_between(e: &impl Fn(&Big) -> Big, a: &Big, b: &Big) -> Result<Big, String> {
    let (mut lo, mut hi) = (to_f64(a).ln(), to_f64(b).ln());
    let positive_at_lo = e(a) > big(0.0);
    if (e(b) > big(0.0)) == positive_at_lo {
        return Err(format!(
            "the error does not alternate between t = {:.6e} and {:.6e}",
            to_f64(a),
            to_f64(b)
        ));
    }
    for _ in 0..48 {
        let mid = 0.5 * (lo + hi);
        if (e(&big(mid.exp())) > big(0.0)) == positive_at_lo {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(big((0.5 * (lo + hi)).exp()))
}

/// The point of `[a, b]` where `|e|` is largest and that `|e|` (golden section in `ln t`,
/// the ends compared too).
fn extremum_between(e: &impl Fn(&Big) -> Big, a: &Big, b: &Big) -> (Big, f64) {
    let size = |t: f64| to_f64(&abs(&e(&big(t.exp()))));
    let (mut lo, mut hi) = (to_f64(a).ln(), to_f64(b).ln());
    let ratio = 0.5 * (5f64.sqrt() - 1.0);
    let mut x1 = hi - ratio * (hi - lo);
    let mut x2 = lo + ratio * (hi - lo);
    let (mut f1, mut f2) = (size(x1), size(x2));
    for _ in 0..32 {
        if f1 < f2 {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + ratio * (hi - lo);
            f2 = size(x2);
        } else {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - ratio * (hi - lo);
            f1 = size(x1);
        }
    }
    let inside = if f1 > f2 { (x1, f1) } else { (x2, f2) };
    let ends = [
        (to_f64(a).ln(), size(to_f64(a).ln())),
        (to_f64(b).ln(), size(to_f64(b).ln())),
    ];
    let best = ends
        .into_iter()
        .chain(std::iter::once(inside))
        .fold((0.0, -1.0), |acc, c| if c.1 > acc.1 { c } else { acc });
    (big(best.0.exp()), best.1)
}
