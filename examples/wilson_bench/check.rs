//! The benchmark's problem: links near the identity, a random spinor field and the inverse
//! clover blocks of those links, the host operator's answers on the even sites, and the
//! fields in f32 or f64 for the kernels; the CPU side of the timing.

use crate::{common, BenchResult, Row};
use ongpu::prelude::*;
use ongpu::qcd::gauge::{GaugeField, HostLinks};
use ongpu::qcd::wilson::{
    hop, hop_clover, random_spinors, Clover, CloverSite, HostSpinor, Spinor, CLOVER_FLOPS,
    HOP_FLOPS,
};
use ongpu::{Backend, Element};
use ongpu_reference::wilson::{spin_color_times, unpack_clover, HostWilson};

/// The hopping parameter and clover coefficient of the benchmark (a usual pair for
/// quenched β = 6).
pub const KAPPA: f64 = 0.1350;
/// See [`KAPPA`].
pub const C_SW: f64 = 1.769;

pub use crate::common::prec::Prec;

fn round<T: Prec>(v: ColorVector<f64>) -> ColorVector<T> {
    ColorVector::new(std::array::from_fn(|k| {
        Complex::new(T::of(v[k].re), T::of(v[k].im))
    }))
}

fn round_matrix<T: Prec>(m: ColorMatrix<f64>) -> ColorMatrix<T> {
    ColorMatrix::new(std::array::from_fn(|r| {
        std::array::from_fn(|k| Complex::new(T::of(m[r][k].re), T::of(m[r][k].im)))
    }))
}

/// Fields of precision `T` on a lattice.
pub type FieldOf<E> = Field<E, ongpu::qcd::SiteLayout>;

/// The host data and answers of one L^4 lattice.
pub struct Problem {
    /// `L`.
    pub l: usize,
    /// The lattice.
    pub lat: Lattice,
    links: HostLinks,
    psi: Vec<HostSpinor>,
    inverses: Vec<CloverSite>,
    want_hop: Vec<HostSpinor>,
    want_clover: Vec<HostSpinor>,
}

impl Problem {
    /// Links the SU(3) projection of 1 + 0.5 X, a random spinor field, the inverse clover
    /// blocks (built by the library on the default backend, in f64), and the host's `H ψ`
    /// and `A⁻¹ H ψ`.
    pub fn new(l: usize, seed: u64) -> BenchResult<Problem> {
        let lat = Lattice::new([l; 4])?;
        let u = GaugeField::smooth(lat, 0.5, seed)?;
        let psi = random_spinors(&lat, seed + 1);
        let inverses = Clover::new(&u, KAPPA, C_SW)?.inverses().to_vec()?;
        let want_hop = HostWilson::from_gauge(&u, KAPPA)?.hopping(&psi);
        let want_clover = (0..lat.volume())
            .map(|x| spin_color_times(&unpack_clover(&inverses[x]), &want_hop[x]))
            .collect();
        Ok(Problem {
            l,
            lat,
            links: u.to_host()?,
            psi,
            inverses,
            want_hop,
            want_clover,
        })
    }

    /// The links in precision `T`.
    pub fn links<T: Prec>(&self) -> FieldOf<[ColorMatrix<T>; 4]>
    where
        [ColorMatrix<T>; 4]: Element,
    {
        FieldOf::from_vec(self.links.iter().map(|l| l.map(round_matrix)).collect())
    }

    /// The spinor field in precision `T`.
    pub fn psi<T: Prec>(&self) -> FieldOf<Spinor<T>>
    where
        Spinor<T>: Element,
    {
        FieldOf::from_vec(self.psi.iter().map(|s| s.map(round)).collect())
    }

    /// The inverse clover blocks in precision `T`.
    pub fn inverses<T: Prec>(&self) -> FieldOf<CloverSite<T>>
    where
        CloverSite<T>: Element,
    {
        FieldOf::from_vec(self.inverses.iter().map(|s| s.map(round)).collect())
    }

    /// A spinor field of NaN: what a kernel must overwrite on the even sites.
    pub fn poisoned<T: Prec>(&self) -> FieldOf<Spinor<T>>
    where
        Spinor<T>: Element,
    {
        let nan = T::of(f64::NAN);
        let v = ColorVector::new([Complex::new(nan, nan); 3]);
        FieldOf::from_vec(vec![[v; 4]; self.lat.volume()])
    }

    /// The largest error of `out` on the even sites against the host's answer (`clover`:
    /// `A⁻¹ H ψ`, else `H ψ`), relative to the answer's largest part; an error if it is
    /// past what the precision allows (or NaN).
    pub fn check<T: Prec>(
        &self,
        what: &str,
        clover: bool,
        out: &FieldOf<Spinor<T>>,
    ) -> BenchResult<f64>
    where
        Spinor<T>: Element,
    {
        let want = if clover {
            &self.want_clover
        } else {
            &self.want_hop
        };
        let got = out.to_vec()?;
        let (mut diff, mut scale): (f64, f64) = (0.0, 0.0);
        for x in (0..self.lat.volume()).filter(|&x| self.lat.parity(x) == 0) {
            for s in 0..4 {
                for k in 0..3 {
                    let (g, w) = (got[x][s][k], want[x][s][k]);
                    let d = (g.re.to() - w.re).abs().max((g.im.to() - w.im).abs());
                    diff = if d.is_nan() {
                        f64::INFINITY
                    } else {
                        diff.max(d)
                    };
                    scale = scale.max(w.re.abs()).max(w.im.abs());
                }
            }
        }
        let err = diff / scale;
        let allowed = if T::NAME == "f32" { 1e-5 } else { 1e-12 };
        if err > allowed {
            return Err(format!(
                "{what} ({}, L = {}): off the host operator by {err:e} (allowed {allowed:e})",
                T::NAME,
                self.l
            )
            .into());
        }
        Ok(err)
    }

    /// Flops and model bytes of one call on the even sites.
    pub fn cost<T: Prec>(&self, clover: bool) -> (f64, f64) {
        let sites = (self.lat.volume() / 2) as f64;
        let size = std::mem::size_of::<T>() as f64;
        let (flops, reals) = if clover {
            (HOP_FLOPS + CLOVER_FLOPS, 360.0 + 72.0)
        } else {
            (HOP_FLOPS, 360.0)
        };
        (flops * sites, reals * size * sites)
    }

    /// A row of the table.
    pub fn row<T: Prec>(
        &self,
        clover: bool,
        kernel: &'static str,
        seconds: f64,
        error: Option<f64>,
    ) -> Row {
        let (flops, bytes) = self.cost::<T>(clover);
        Row {
            l: self.l,
            real: T::NAME,
            operator: if clover { "clover" } else { "wilson" },
            kernel,
            seconds,
            flops,
            bytes,
            error,
        }
    }
}

/// The fields of one precision that the kernels read.
pub struct Fields<T: Prec>
where
    [ColorMatrix<T>; 4]: Element,
    CloverSite<T>: Element,
    Spinor<T>: Element,
{
    /// The links.
    pub u: FieldOf<[ColorMatrix<T>; 4]>,
    /// The inverse clover blocks.
    pub a: FieldOf<CloverSite<T>>,
    /// The spinor field.
    pub psi: FieldOf<Spinor<T>>,
}

impl<T: Prec> Fields<T>
where
    [ColorMatrix<T>; 4]: Element,
    CloverSite<T>: Element,
    Spinor<T>: Element,
{
    /// The problem's fields in precision `T`.
    pub fn of(p: &Problem) -> Self {
        Fields {
            u: p.links(),
            a: p.inverses(),
            psi: p.psi(),
        }
    }

    /// The library's pass on the even sites: `A⁻¹ H ψ` (`hop_clover`) with `clover`, else
    /// `H ψ` (`hop`).
    pub fn ours(
        &self,
        lat: Lattice,
        clover: bool,
        out: &mut FieldOf<Spinor<T>>,
    ) -> ongpu::Result<()>
    where
        ColorVector<T>: Element,
        ColorMatrix<T>: Element,
    {
        if clover {
            hop_clover(lat.even(), &self.u, &self.a, &self.psi, out)
        } else {
            hop(lat.even(), &self.u, &self.psi, out)
        }
    }
}

/// The library's kernels on the CPU backend, checked, then timed beside the host's copy of
/// their model bytes (in the `vs copy` column) and, for the hop, the hand-vectorised Rust
/// kernel of `cpu_hand.rs`.
pub fn cpu_run<T: Prec>(p: &Problem, reps: usize) -> BenchResult<Vec<Row>>
where
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    Spinor<T>: Element,
    CloverSite<T>: Element,
{
    ongpu::with_backend(Backend::Cpu, || {
        let f = Fields::<T>::of(p);
        let mut rows = Vec::new();
        for clover in [false, true] {
            let mut out = p.poisoned::<T>();
            f.ours(p.lat, clover, &mut out)?;
            let err = p.check("on_cpu", clover, &out)?;
            let t = common::time(Backend::Cpu, reps, || f.ours(p.lat, clover, &mut out))?;
            rows.push(p.row::<T>(clover, "on_cpu", t, Some(err)));
            let (_, bytes) = p.cost::<T>(clover);
            let t_copy = common::host_copy_seconds(bytes as usize, reps);
            rows.push(p.row::<T>(clover, "host_copy", t_copy, None));
        }
        // The hand-vectorised hop, in its own AoSoA<32> storage (whole blocks of even sites).
        if (p.lat.volume() / 2) % 32 == 0 {
            let hand = crate::cpu_hand::Hand::new(&p.lat, &f.u.to_vec()?, &f.psi.to_vec()?);
            let mut out = hand.output();
            hand.run(&mut out);
            let even = hand.even_sites(&out);
            let nan = Complex::new(T::of(f64::NAN), T::of(f64::NAN));
            let got: FieldOf<Spinor<T>> = FieldOf::from_fn(p.lat.volume(), |s| {
                even.get(s)
                    .copied()
                    .unwrap_or([ColorVector::new([nan; 3]); 4])
            });
            let err = p.check("hand-vectorised (CPU)", false, &got)?;
            let t = common::time(Backend::Cpu, reps, || {
                hand.run(&mut out);
                Ok(())
            })?;
            rows.push(p.row::<T>(false, "hand_written", t, Some(err)));
        }
        Ok(rows)
    })
}
