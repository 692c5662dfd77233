//! Loading a gauge file onto any space one site at a time: each process reads only the
//! sites it stores (a rank's halos among them), and every site's checksum terms come back
//! gathered in the whole lattice's order, each site once, so that a checksum that is a sum
//! or an XOR over sites is checked over the whole file whatever the processes hold.

use super::LinksOf;
use crate::nersc::links::{links_are_finite, SiteLinks};
use ongpu::prelude::*;
use std::collections::HashMap;

/// The links of the sites `lat` stores, from `read(i)` for whole-lattice site `i` (which
/// also gives the site's two checksum terms), and the terms of every site of the whole
/// lattice. A failed read, or a link that is not finite (the error `not_finite(i)`), is an
/// error on every process (agreed) and nothing is returned.
pub(super) fn read_sites<S: Space>(
    lat: S,
    mut read: impl FnMut(usize) -> ongpu::Result<(SiteLinks, [u32; 2])>,
    not_finite: impl Fn(usize) -> ongpu::Error,
) -> ongpu::Result<(LinksOf<S>, Vec<[u32; 2]>)> {
    let mut terms = HashMap::new();
    let mut failure = None;
    let links: LinksOf<S> = lat.field_from_fn(|i| {
        if failure.is_some() {
            return [ColorMatrix::zero(); 4];
        }
        match read(i) {
            Ok((site, term)) if links_are_finite(&site) => {
                terms.insert(i, term);
                site
            }
            Ok(_) => {
                failure = Some(not_finite(i));
                [ColorMatrix::zero(); 4]
            }
            Err(e) => {
                failure = Some(e);
                [ColorMatrix::zero(); 4]
            }
        }
    })?;
    lat.agree(failure.map_or(Ok(()), Err))?;
    // The terms as a small field (two u32 in the parts of a complex number, exactly), read
    // back in site order: each site's from the process that owns it.
    let gathered: <S as Space>::Field<Complex<f64>, crate::SiteLayout> =
        lat.field_from_fn(|i| {
            let [a, b] = terms.get(&i).copied().unwrap_or([0, 0]);
            Complex::new(a as f64, b as f64)
        })?;
    drop(terms);
    let terms = gathered
        .values()?
        .into_iter()
        .map(|z| [z.re as u32, z.im as u32])
        .collect();
    Ok((links, terms))
}
