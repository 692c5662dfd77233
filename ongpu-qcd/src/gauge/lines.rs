//! Straight lines of links, grown one link per pass: the sides of Wilson loops and the
//! Polyakov loop.

use super::LinksOf;
use crate::SiteLayout;
use ongpu::prelude::*;

/// A colour matrix at every site.
type MatrixFieldOf<S> = <S as Space>::Field<ColorMatrix<f64>, SiteLayout>;

/// At every site `x`, the product `U_dir(x) U_dir(x + dîr) … U_dir(x + (n−1) dîr)` of the
/// `n` links along `dir` that start there: `n = 1` when made, one more per
/// [`extend`](Self::extend). Two colour-matrix fields, whatever `n` reaches.
pub(crate) struct StraightLine<S: Space> {
    lat: S,
    dir: usize,
    len: usize,
    line: MatrixFieldOf<S>,
    scratch: MatrixFieldOf<S>,
}

impl<S: Space> StraightLine<S> {
    /// The lines of one link of `links` along `dir`.
    pub(crate) fn new(lat: S, links: &LinksOf<S>, dir: usize) -> ongpu::Result<Self> {
        let mut line: MatrixFieldOf<S> = lat.zeros()?;
        on_gpu!(lat, {
            line = links[dir];
        })?;
        Ok(StraightLine {
            lat,
            dir,
            len: 1,
            line,
            scratch: lat.zeros()?,
        })
    }

    /// One link more: `line(x) ← line(x) U_dir(x + n dîr)` (`links` the same as made with).
    pub(crate) fn extend(&mut self, links: &LinksOf<S>) -> ongpu::Result<()> {
        let (dir, at) = (self.dir, self.len as i64);
        let (line, longer) = (&self.line, &mut self.scratch);
        on_gpu!(self.lat, {
            longer = line * links.shift(dir, at)[dir];
        })?;
        std::mem::swap(&mut self.line, &mut self.scratch);
        self.len += 1;
        Ok(())
    }

    /// The lines.
    pub(crate) fn line(&self) -> &MatrixFieldOf<S> {
        &self.line
    }
}
