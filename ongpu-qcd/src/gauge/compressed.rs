//! SU(3) links stored as their first two rows (12 reals instead of 18): a body rebuilds the
//! matrix in registers with [`su3_from_rows`], the third row being the complex conjugate of
//! the cross product of the first two, which unitarity and a unit determinant make exact.
//! A memory-bound operator reads two thirds of the link bytes; rows stored in 16 bits
//! (`CompressedSite<f16>`) a third of an `f32` link's.

use super::LinksOf;
use crate::SiteLayout;
use ongpu::prelude::*;
use ongpu::Element;

/// The four links of a site, each as its rows 0 and 1.
pub type CompressedSite<T = f32> = [[ColorVector<T>; 2]; 4];

/// Compressed links on any [`Space`] (f32 unless `T` says otherwise).
pub type CompressedLinksOf<S, T = f32> = <S as Space>::Field<CompressedSite<T>, SiteLayout>;

/// The SU(3) matrix with rows `a`, `b` and `conj(a × b)`.
#[ongpu::device]
pub fn su3_from_rows<T: Real>(a: ColorVector<T>, b: ColorVector<T>) -> ColorMatrix<T> {
    ColorMatrix::new([
        [a[0], a[1], a[2]],
        [b[0], b[1], b[2]],
        [
            (a[1] * b[2] - a[2] * b[1]).conj(),
            (a[2] * b[0] - a[0] * b[2]).conj(),
            (a[0] * b[1] - a[1] * b[0]).conj(),
        ],
    ])
}

/// The real types links are compressed in, `f32` and `f64` (a body captures a tolerance of
/// a concrete type only).
pub trait CompressedReal: Real
where
    ColorMatrix<Self>: Element,
    [ColorMatrix<Self>; 4]: Element,
{
    /// How many links of `sites` differ from what their first two rows rebuild by more than
    /// `tolerance` (or are not finite): `|U − su3_from_rows(U₀, U₁)|` (Frobenius),
    /// computed in this precision.
    fn links_off_su3<P: SpaceSubset>(
        sites: P,
        links: &LinksOf<P::Space, Self>,
        tolerance: Self,
    ) -> ongpu::Result<u64>;
}

macro_rules! compressed_real {
    ($($t:ty),*) => {$(
        impl CompressedReal for $t {
            fn links_off_su3<P: SpaceSubset>(
                sites: P,
                links: &LinksOf<P::Space, $t>,
                tolerance: $t,
            ) -> ongpu::Result<u64> {
                on_gpu!(sum: sites, {
                    let mut off = 0u32;
                    for mu in 0..4 {
                        if deviation(links[mu]) <= tolerance {
                            off += 0u32;
                        } else {
                            off += 1u32;
                        }
                    }
                    off
                })
            }
        }
    )*};
}
compressed_real!(f32, f64);

/// `|m − su3_from_rows(m₀, m₁)|` (Frobenius).
#[ongpu::device]
pub fn deviation<T: Real>(m: ColorMatrix<T>) -> T {
    let a = ColorVector::new([m[0][0], m[0][1], m[0][2]]);
    let b = ColorVector::new([m[1][0], m[1][1], m[1][2]]);
    (m - su3_from_rows(a, b)).norm2().sqrt()
}

/// `out` = the first two rows of every link of `links`, in the storage real `R` (`T`
/// itself, or `f16`/`bf16` for `f32` links: rounded to nearest even), after checking that
/// every link is what its rows rebuild to `tolerance` in `T`
/// ([`CompressedReal::links_off_su3`]); an [`ongpu::Error`] saying how many are not
/// otherwise, with `out` untouched.
pub fn compress<T, R: StorageReal<Compute = T>, S: Space>(
    lat: S,
    links: &LinksOf<S, T>,
    tolerance: T,
    out: &mut CompressedLinksOf<S, R>,
) -> ongpu::Result<()>
where
    T: CompressedReal + CastReal<R>,
    ColorVector<T>: Element,
    ColorMatrix<T>: Element,
    [ColorMatrix<T>; 4]: Element,
    CompressedSite<R>: Element,
{
    let off = T::links_off_su3(lat.all(), links, tolerance)?;
    if off > 0 {
        return Err(ongpu::Error::InvalidArgument(format!(
            "links that are not in SU(3) cannot be stored as two rows: {off} link(s) differ \
             from the matrix their rows rebuild by more than {tolerance:?} (or are not \
             finite); reunitarise them first"
        )));
    }
    on_gpu!(lat, {
        for mu in 0..4 {
            let m = links[mu];
            out[mu][0] = ColorVector::new([m[0][0], m[0][1], m[0][2]]).narrow();
            out[mu][1] = ColorVector::new([m[1][0], m[1][1], m[1][2]]).narrow();
        }
    })
}

/// `out` = the full links that `compressed` stores, rebuilt in the arithmetic real of the
/// storage (`f32` for 16-bit rows).
pub fn decompress<R: StorageReal, S: Space>(
    lat: S,
    compressed: &CompressedLinksOf<S, R>,
    out: &mut LinksOf<S, R::Compute>,
) -> ongpu::Result<()>
where
    ColorVector<R::Compute>: Element,
    ColorMatrix<R::Compute>: Element,
    [ColorMatrix<R::Compute>; 4]: Element,
    CompressedSite<R>: Element,
{
    on_gpu!(lat, {
        for mu in 0..4 {
            let rows = compressed[mu];
            out[mu] = su3_from_rows(rows[0].widen(), rows[1].widen());
        }
    })
}
