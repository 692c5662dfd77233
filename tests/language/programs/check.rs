//! How a program's outputs are compared: each element against its own bound, so that one
//! wrong element cannot hide in an error averaged over the whole output.

/// How an output is compared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// Integers and exactly rounded results: equal bit for bit.
    Exact,
    /// Floating point: every element within `tol * (|want| + rms)`, where `rms` is the root
    /// mean square of the whole reference. The `rms` term stands for the size of the
    /// operands, so that an element whose result cancels to near zero is held to the
    /// rounding of the values it came from, not to its own tiny size.
    Rel(f64),
}

/// One output of a program.
#[derive(Debug, Clone)]
pub struct Output {
    pub name: &'static str,
    pub got: Vec<f64>,
    pub want: Vec<f64>,
    pub kind: Kind,
}

/// The root mean square of the elements that are not NaN (NaN references mark elements the
/// program must leave unwritten).
pub fn rms(v: &[f64]) -> f64 {
    let (sum, count) = v
        .iter()
        .filter(|x| !x.is_nan())
        .fold((0.0, 0usize), |(s, c), x| (s + x * x, c + 1));
    if count == 0 {
        0.0
    } else {
        (sum / count as f64).sqrt()
    }
}

/// Panics at the first element of `got` that is not within `tol * (|want| + rms(want))` of
/// `want`; where `want` is NaN, `got` must be NaN too.
pub fn assert_close(context: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{context}: length");
    let scale = rms(want);
    for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
        if w.is_nan() {
            assert!(g.is_nan(), "{context}: element {k} is {g}, want NaN");
            continue;
        }
        let bound = tol * (w.abs() + scale);
        assert!(
            (g - w).abs() <= bound,
            "{context}: element {k}: got {g}, want {w} (off by {:.3e}, bound {bound:.3e})",
            (g - w).abs()
        );
    }
}

/// Panics unless `got` and `want` are equal bit for bit, or both NaN.
pub fn assert_exact(context: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{context}: length");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{context}: element {k}: got {g}, want {w}"
        );
    }
}

impl Output {
    /// Panics unless `got` matches `want` element by element (every element written, within
    /// its bound).
    pub fn check(&self, program: &str) {
        let context = format!("{program}/{}", self.name);
        for (k, g) in self.got.iter().enumerate() {
            assert!(
                !g.is_nan() || self.want.get(k).is_some_and(|w| w.is_nan()),
                "{context}: element {k} is NaN (unwritten?)"
            );
        }
        match self.kind {
            Kind::Exact => assert_exact(&context, &self.got, &self.want),
            Kind::Rel(tol) => assert_close(&context, &self.got, &self.want, tol),
        }
    }
}

/// Panics unless each GPU output matches its reference and the CPU backend's output: bit for
/// bit (NaN where the reference has one) for exact kinds; for the others element by element
/// within twice the output's bound (each backend is within one bound of the reference), or
/// 1e-6 where the bound is 0 (bitwise on one backend; FMA contraction may round differently
/// across backends).
#[allow(dead_code)] // not every test file compares backends
pub fn assert_backends_agree(program: &str, gpu: &[Output], cpu: &[Output]) {
    assert_eq!(gpu.len(), cpu.len(), "{program}: number of outputs");
    for (g, c) in gpu.iter().zip(cpu) {
        g.check(program);
        let context = format!("{program}/{}: CUDA vs CPU", g.name);
        match g.kind {
            Kind::Exact => assert_exact(&context, &g.got, &c.got),
            Kind::Rel(tol) => {
                let tol = if tol == 0.0 { 1e-6 } else { 2.0 * tol };
                assert_close(&context, &g.got, &c.got, tol)
            }
        }
    }
}
