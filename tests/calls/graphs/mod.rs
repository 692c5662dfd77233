//! A CG-shaped sequence of calls with its scalars on the device, run eagerly and as a
//! [`Graph`]: `rr = |r|²`, `pap = ⟨p, A p⟩` (A a diagonal positive operator), `α = rr/pap`
//! in a one-site call, `x += α p`, `r -= α A p`, `rr_new = |r|²`, `β = rr_new/rr`,
//! `p = r + β p`. Shared by the CPU tests (`graphs.rs`) and the GPU tests (`graphs_gpu.rs`).

#![allow(dead_code)]

use ongpu::prelude::*;

/// The fields and scalars of a solve of `A x = b` with `A = diag(1 + site/n)`.
pub struct Cg {
    pub n: usize,
    pub a: Field<f64>,
    pub x: Field<f64>,
    pub r: Field<f64>,
    pub p: Field<f64>,
    pub ap: Field<f64>,
    pub rr: DeviceScalar,
    pub rr_new: DeviceScalar,
    pub pap: DeviceScalar,
    pub alpha: DeviceScalar,
    pub beta: DeviceScalar,
}

impl Cg {
    /// A solve from `x = 0` with `b` = a fixed pattern, `r = p = b`.
    pub fn new(n: usize) -> Cg {
        let b = |i: usize| 1.0 + ((i * 7) % 11) as f64 * 0.25;
        Cg {
            n,
            a: Field::from_fn(n, |i| 1.0 + i as f64 / n as f64),
            x: Field::zeros(n),
            r: Field::from_fn(n, b),
            p: Field::from_fn(n, b),
            ap: Field::zeros(n),
            rr: DeviceScalar::zero(),
            rr_new: DeviceScalar::zero(),
            pap: DeviceScalar::zero(),
            alpha: DeviceScalar::zero(),
            beta: DeviceScalar::zero(),
        }
    }

    /// `rr = |r|²`, before the first iteration.
    pub fn start(&mut self) -> ongpu::Result<()> {
        let Cg { r, rr, .. } = self;
        on_gpu!(sum -> rr: { r * r })
    }

    /// One iteration: five kernels, two reductions into device scalars, no host access.
    pub fn iterate(&mut self) -> ongpu::Result<()> {
        let Cg {
            a,
            x,
            r,
            p,
            ap,
            rr,
            rr_new,
            pap,
            alpha,
            beta,
            ..
        } = self;
        on_gpu!(sum -> pap: {
            ap = a * p;
            p * ap
        })?;
        on_gpu!({
            alpha = rr / pap;
        })?;
        on_gpu!({
            x += alpha * p;
            r -= alpha * ap;
        })?;
        on_gpu!(sum -> rr_new: { r * r })?;
        on_gpu!({
            beta = rr_new / rr;
            rr = rr_new;
        })?;
        on_gpu!({
            p = r + beta * p;
        })
    }

    /// The residual `|b − A x|` relative to `|b|`, on the host.
    pub fn true_residual(&self) -> f64 {
        let (a, x) = (self.a.to_vec().unwrap(), self.x.to_vec().unwrap());
        let b = |i: usize| 1.0 + ((i * 7) % 11) as f64 * 0.25;
        let (mut num, mut den) = (0.0, 0.0);
        for i in 0..self.n {
            let d = b(i) - a[i] * x[i];
            num += d * d;
            den += b(i) * b(i);
        }
        (num / den).sqrt()
    }
}

/// `iters` iterations eagerly: the solution and `|r|²`.
pub fn eager(n: usize, iters: usize) -> (Vec<f64>, f64) {
    let mut cg = Cg::new(n);
    cg.start().unwrap();
    for _ in 0..iters {
        cg.iterate().unwrap();
    }
    (cg.x.to_vec().unwrap(), cg.rr.get().unwrap())
}

/// `iters` iterations as one graph replayed `iters` times.
pub fn graphed(n: usize, iters: usize) -> (Vec<f64>, f64, Graph) {
    let mut cg = Cg::new(n);
    cg.start().unwrap();
    let mut graph = Graph::new();
    for _ in 0..iters {
        graph.run(|| cg.iterate()).unwrap();
    }
    (cg.x.to_vec().unwrap(), cg.rr.get().unwrap(), graph)
}

/// Iterations while `|r|² > tol2`, at most `max`, with the host reading `|r|²` before each:
/// the solution, `|r|²` and the iterations.
pub fn eager_until(n: usize, tol2: f64, max: u32) -> (Vec<f64>, f64, u32) {
    let mut cg = Cg::new(n);
    cg.start().unwrap();
    let mut iterations = 0;
    while iterations < max && cg.rr.get().unwrap() > tol2 {
        cg.iterate().unwrap();
        iterations += 1;
    }
    (cg.x.to_vec().unwrap(), cg.rr.get().unwrap(), iterations)
}

/// The same loop as a [`GraphLoop`]: on the GPU one graph launch, the test on the device.
pub fn looped(n: usize, tol2: f64, max: u32) -> (Vec<f64>, f64, u32, GraphLoop) {
    let mut cg = Cg::new(n);
    cg.start().unwrap();
    let mut solve = GraphLoop::new();
    solve
        .run_while(
            &mut cg,
            |cg| LoopTest::above(&cg.rr, tol2),
            max,
            Cg::iterate,
        )
        .unwrap();
    let iterations = solve.iterations().unwrap();
    (
        cg.x.to_vec().unwrap(),
        cg.rr.get().unwrap(),
        iterations,
        solve,
    )
}
