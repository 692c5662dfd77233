//! Every operator of the colour types inside `on_gpu!` bodies, one output field per
//! operation, in f32 and f64: on the CPU this checks the Rust operators through the body
//! language; on the GPU it checks each prelude twin against them (the GPU tests compare the
//! backends site by site).

use super::{cplx, matrix, rng, Kind, Output};
use ongpu::prelude::*;
use rand::rngs::SmallRng;

/// The real components of an element, widened to f64.
pub trait Reals {
    fn reals(&self) -> Vec<f64>;
}

macro_rules! reals {
    ($($t:ty),*) => {$(
        impl Reals for $t {
            fn reals(&self) -> Vec<f64> {
                vec![*self as f64]
            }
        }
        impl Reals for Complex<$t> {
            fn reals(&self) -> Vec<f64> {
                vec![self.re as f64, self.im as f64]
            }
        }
        impl Reals for ColorVector<$t> {
            fn reals(&self) -> Vec<f64> {
                self.v.iter().flat_map(|z| z.reals()).collect()
            }
        }
        impl Reals for ColorMatrix<$t> {
            fn reals(&self) -> Vec<f64> {
                self.m.iter().flatten().flat_map(|z| z.reals()).collect()
            }
        }
    )*};
}
reals!(f32, f64);

fn flat<E: Reals>(v: &[E]) -> Vec<f64> {
    v.iter().flat_map(Reals::reals).collect()
}

/// One output: a field's elements against the reference elements.
fn out<E: Reals, W: Reals>(name: &'static str, got: Vec<E>, want: &[W], kind: Kind) -> Output {
    Output {
        name,
        got: flat(&got),
        want: flat(want),
        kind,
    }
}

macro_rules! color_ops_program {
    ($name:ident, $t:ty, $tol:expr) => {
        /// Every colour-type operator in a body, one output per operation.
        pub fn $name() -> Vec<Output> {
            type T = $t;
            let tol = Kind::Rel($tol);
            let n = 1_003;
            let mut r = rng(11);
            // Inputs, rounded to T; their f64 values are what the references start from.
            fn narrow(z: Complex<f64>) -> Complex<f64> {
                Complex::new(z.re as T as f64, z.im as T as f64)
            }
            let m64 = |r: &mut SmallRng| -> ColorMatrix<f64> {
                ColorMatrix::new(matrix(r).m.map(|row| row.map(narrow)))
            };
            let to_t = |m: &ColorMatrix<f64>| -> ColorMatrix<T> {
                ColorMatrix::new(m.m.map(|row| row.map(|z| Complex::new(z.re as T, z.im as T))))
            };
            let vec_t = |v: &ColorVector<f64>| -> ColorVector<T> {
                ColorVector::new(v.v.map(|z| Complex::new(z.re as T, z.im as T)))
            };
            let xs: Vec<ColorMatrix<f64>> = (0..n).map(|_| m64(&mut r)).collect();
            let ys: Vec<ColorMatrix<f64>> = (0..n).map(|_| m64(&mut r)).collect();
            let accs: Vec<ColorMatrix<f64>> = (0..n).map(|_| m64(&mut r)).collect();
            let us: Vec<ColorVector<f64>> = (0..n)
                .map(|_| ColorVector::new([0; 3].map(|_| narrow(cplx(&mut r)))))
                .collect();
            let vs: Vec<ColorVector<f64>> = (0..n)
                .map(|_| ColorVector::new([0; 3].map(|_| narrow(cplx(&mut r)))))
                .collect();
            let ks: Vec<f64> = (0..n)
                .map(|_| (cplx(&mut r).re * 2.0) as T as f64)
                .collect();
            let c64 = narrow(Complex::new(0.375, -1.25));
            let d64 = 1.7 as T as f64;

            let x: Field<ColorMatrix<T>> = Field::from_fn(n, |i| to_t(&xs[i]));
            let y: Field<ColorMatrix<T>, SoA> = Field::from_fn(n, |i| to_t(&ys[i]));
            let u: Field<ColorVector<T>, AoS> = Field::from_fn(n, |i| vec_t(&us[i]));
            let v: Field<ColorVector<T>, AoSoA<8>> = Field::from_fn(n, |i| vec_t(&vs[i]));
            let k: Field<T> = Field::from_fn(n, |i| ks[i] as T);
            let c = Complex::new(c64.re as T, c64.im as T);
            let d = d64 as T;
            let nan = T::NAN;
            let pm = || -> Field<ColorMatrix<T>> {
                Field::filled(n, ColorMatrix::new([[Complex::new(nan, nan); 3]; 3]))
            };
            let pv = || -> Field<ColorVector<T>> {
                Field::filled(n, ColorVector::new([Complex::new(nan, nan); 3]))
            };

            // Matrix arithmetic. (A few matrix outputs per call: every output stays in
            // registers until the site's stores, and nine f64 matrices would spill.)
            let (mut o_add, mut o_sub, mut o_neg, mut o_mul, mut o_k) =
                (pm(), pm(), pm(), pm(), pm());
            on_gpu!({
                o_add = x + y;
                o_sub = x - y;
                o_neg = -x;
                o_mul = x * y;
                o_k = x * k;
            })
            .unwrap();
            let (mut o_kl, mut o_c, mut o_cl, mut o_div) = (pm(), pm(), pm(), pm());
            on_gpu!({
                o_kl = k * x;
                o_c = x * c;
                o_cl = c * x;
                o_div = x / d;
            })
            .unwrap();

            // Compound assignments and the unary methods.
            let (mut a_add, mut a_sub, mut a_mul) = (pm(), pm(), pm());
            on_gpu!({
                a_add = x;
                a_add += y;
                a_sub = x;
                a_sub -= y;
                a_mul = x;
                a_mul *= y;
            })
            .unwrap();
            let (mut a_k, mut a_c, mut a_div) = (pm(), pm(), pm());
            on_gpu!({
                a_k = x;
                a_k *= k;
                a_c = x;
                a_c *= c;
                a_div = x;
                a_div /= d;
            })
            .unwrap();
            let (mut t_adj, mut t_conj, mut t_tr) = (pm(), pm(), pm());
            on_gpu!({
                t_adj = x.adj();
                t_conj = x.conj();
                t_tr = x.transpose();
            })
            .unwrap();

            // Trace, norm, entries, constructors, and the benchmark's X += Y * Z.
            let mut acc: Field<ColorMatrix<T>, SoA> = Field::from_fn(n, |i| to_t(&accs[i]));
            let mut tr: Field<Complex<T>> = Field::filled(n, Complex::new(nan, nan));
            let mut n2: Field<T, AoS> = Field::filled(n, nan);
            let (mut ent, mut made) = (pm(), pm());
            on_gpu!({
                acc += x * y;
                tr = x.trace();
                n2 = x.norm2();
                ent = ColorMatrix::zero();
                ent[0][1] = x[1][0];
                ent[2][2] = x[0][0] * ColorMatrix::identity()[1][1] + ColorMatrix::identity()[0][1];
                ent[1][0].im = x[2][1].re;
                made = ColorMatrix::new([
                    [x[0][0], c, x[0][2]],
                    [x[1][0], x[1][1], c],
                    [c, x[2][1], x[2][2]],
                ]);
            })
            .unwrap();

            // Vector arithmetic and matrix times vector.
            let (mut w_add, mut w_sub, mut w_neg, mut w_k, mut w_kl) =
                (pv(), pv(), pv(), pv(), pv());
            let (mut w_c, mut w_cl, mut w_div, mut w_mv) = (pv(), pv(), pv(), pv());
            on_gpu!({
                w_add = u + v;
                w_sub = u - v;
                w_neg = -u;
                w_k = u * k;
                w_kl = k * u;
                w_c = u * c;
                w_cl = c * u;
                w_div = u / d;
                w_mv = x * u;
            })
            .unwrap();

            // Vector compound assignments, methods, entries and constructors.
            let (mut b_add, mut b_sub, mut b_k, mut b_c, mut b_div) =
                (pv(), pv(), pv(), pv(), pv());
            let (mut b_conj, mut b_ent) = (pv(), pv());
            let mut b_n2: Field<T> = Field::filled(n, nan);
            let mut b_dot: Field<Complex<T>, SoA> = Field::filled(n, Complex::new(nan, nan));
            on_gpu!({
                b_add = u;
                b_add += v;
                b_sub = u;
                b_sub -= v;
                b_k = u;
                b_k *= k;
                b_c = u;
                b_c *= c;
                b_div = u;
                b_div /= d;
                b_conj = u.conj();
                b_n2 = u.norm2();
                b_dot = u.dot(v);
                b_ent = ColorVector::zero();
                b_ent[2] = u[0] + ColorVector::new([c, u[1], v[2]])[0];
                b_ent[0].re = v[1].im;
            })
            .unwrap();

            // The f64 references, from the same (rounded) inputs.
            let id = ColorMatrix::<f64>::identity();
            let each_m = |f: &dyn Fn(usize) -> ColorMatrix<f64>| -> Vec<ColorMatrix<f64>> {
                (0..n).map(f).collect()
            };
            let each_v = |f: &dyn Fn(usize) -> ColorVector<f64>| -> Vec<ColorVector<f64>> {
                (0..n).map(f).collect()
            };
            let (xs, ys, us, vs, ks) = (&xs, &ys, &us, &vs, &ks);
            let mut outs = vec![
                out(
                    "x + y",
                    o_add.to_vec().unwrap(),
                    &each_m(&|i| xs[i] + ys[i]),
                    tol,
                ),
                out(
                    "x - y",
                    o_sub.to_vec().unwrap(),
                    &each_m(&|i| xs[i] - ys[i]),
                    tol,
                ),
                out("-x", o_neg.to_vec().unwrap(), &each_m(&|i| -xs[i]), tol),
                out(
                    "x * y",
                    o_mul.to_vec().unwrap(),
                    &each_m(&|i| xs[i] * ys[i]),
                    tol,
                ),
                out(
                    "x * k",
                    o_k.to_vec().unwrap(),
                    &each_m(&|i| xs[i] * ks[i]),
                    tol,
                ),
                out(
                    "k * x",
                    o_kl.to_vec().unwrap(),
                    &each_m(&|i| ks[i] * xs[i]),
                    tol,
                ),
                out(
                    "x * c",
                    o_c.to_vec().unwrap(),
                    &each_m(&|i| xs[i] * c64),
                    tol,
                ),
                out(
                    "c * x",
                    o_cl.to_vec().unwrap(),
                    &each_m(&|i| c64 * xs[i]),
                    tol,
                ),
                out(
                    "x / d",
                    o_div.to_vec().unwrap(),
                    &each_m(&|i| xs[i] / d64),
                    tol,
                ),
                out(
                    "x += y",
                    a_add.to_vec().unwrap(),
                    &each_m(&|i| xs[i] + ys[i]),
                    tol,
                ),
                out(
                    "x -= y",
                    a_sub.to_vec().unwrap(),
                    &each_m(&|i| xs[i] - ys[i]),
                    tol,
                ),
                out(
                    "x *= y",
                    a_mul.to_vec().unwrap(),
                    &each_m(&|i| xs[i] * ys[i]),
                    tol,
                ),
                out(
                    "x *= k",
                    a_k.to_vec().unwrap(),
                    &each_m(&|i| xs[i] * ks[i]),
                    tol,
                ),
                out(
                    "x *= c",
                    a_c.to_vec().unwrap(),
                    &each_m(&|i| xs[i] * c64),
                    tol,
                ),
                out(
                    "x /= d",
                    a_div.to_vec().unwrap(),
                    &each_m(&|i| xs[i] / d64),
                    tol,
                ),
                out(
                    "x.adj()",
                    t_adj.to_vec().unwrap(),
                    &each_m(&|i| xs[i].adj()),
                    Kind::Exact,
                ),
                out(
                    "x.conj()",
                    t_conj.to_vec().unwrap(),
                    &each_m(&|i| xs[i].conj()),
                    Kind::Exact,
                ),
                out(
                    "x.transpose()",
                    t_tr.to_vec().unwrap(),
                    &each_m(&|i| xs[i].transpose()),
                    Kind::Exact,
                ),
                out(
                    "acc += x * y",
                    acc.to_vec().unwrap(),
                    &each_m(&|i| accs[i] + xs[i] * ys[i]),
                    tol,
                ),
            ];
            let tr_want: Vec<Complex<f64>> = (0..n).map(|i| xs[i].trace()).collect();
            outs.push(out("x.trace()", tr.to_vec().unwrap(), &tr_want, tol));
            let n2_want: Vec<f64> = (0..n).map(|i| xs[i].norm2()).collect();
            outs.push(out("x.norm2()", n2.to_vec().unwrap(), &n2_want, tol));
            let ent_want = each_m(&|i| {
                let mut e = ColorMatrix::zero();
                e[0][1] = xs[i][1][0];
                e[2][2] = xs[i][0][0] * id[1][1] + id[0][1];
                e[1][0].im = xs[i][2][1].re;
                e
            });
            outs.push(out(
                "entries, identity, zero",
                ent.to_vec().unwrap(),
                &ent_want,
                tol,
            ));
            let made_want = each_m(&|i| {
                let x = &xs[i];
                ColorMatrix::new([
                    [x[0][0], c64, x[0][2]],
                    [x[1][0], x[1][1], c64],
                    [c64, x[2][1], x[2][2]],
                ])
            });
            outs.push(out(
                "ColorMatrix::new",
                made.to_vec().unwrap(),
                &made_want,
                Kind::Exact,
            ));
            let vouts = [
                ("u + v", w_add, each_v(&|i| us[i] + vs[i])),
                ("u - v", w_sub, each_v(&|i| us[i] - vs[i])),
                ("-u", w_neg, each_v(&|i| -us[i])),
                ("u * k", w_k, each_v(&|i| us[i] * ks[i])),
                ("k * u", w_kl, each_v(&|i| ks[i] * us[i])),
                ("u * c", w_c, each_v(&|i| us[i] * c64)),
                ("c * u", w_cl, each_v(&|i| c64 * us[i])),
                ("u / d", w_div, each_v(&|i| us[i] / d64)),
                ("x * u", w_mv, each_v(&|i| xs[i] * us[i])),
                ("u += v", b_add, each_v(&|i| us[i] + vs[i])),
                ("u -= v", b_sub, each_v(&|i| us[i] - vs[i])),
                ("u *= k", b_k, each_v(&|i| us[i] * ks[i])),
                ("u *= c", b_c, each_v(&|i| us[i] * c64)),
                ("u /= d", b_div, each_v(&|i| us[i] / d64)),
                ("u.conj()", b_conj, each_v(&|i| us[i].conj())),
                (
                    "vector entries, zero, new",
                    b_ent,
                    each_v(&|i| {
                        let mut e = ColorVector::zero();
                        e[2] = us[i][0] + ColorVector::new([c64, us[i][1], vs[i][2]])[0];
                        e[0].re = vs[i][1].im;
                        e
                    }),
                ),
            ];
            for (name, got, want) in vouts {
                outs.push(out(name, got.to_vec().unwrap(), &want, tol));
            }
            let n2_want: Vec<f64> = (0..n).map(|i| us[i].norm2()).collect();
            outs.push(out("u.norm2()", b_n2.to_vec().unwrap(), &n2_want, tol));
            let dot_want: Vec<Complex<f64>> = (0..n).map(|i| us[i].dot(vs[i])).collect();
            outs.push(out("u.dot(v)", b_dot.to_vec().unwrap(), &dot_want, tol));
            outs
        }
    };
}

color_ops_program!(color_operators_f32, f32, 1e-6);
color_ops_program!(color_operators_f64, f64, 1e-14);
