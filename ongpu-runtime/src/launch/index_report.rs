//! The record of the first out-of-range index (of a colour type or element array) in a
//! launch of a kernel over sites compiled with bounds checks (`ongpu_index_report` in the
//! prelude): cleared on the launch's queue before it, read back after it. Unchecked kernels
//! have no record, and their launches skip both steps.

use crate::cuda::stream::{read_on, zero_on, StreamHandle as CUstream};
use crate::cuda::Function;
use crate::error::{Error, Location, Result};

/// Bytes of `ongpu::IndexReport`.
const BYTES: usize = 32;

/// Clears `f`'s record on `stream`, before a launch of `f` there.
pub(crate) fn clear(f: &Function, stream: CUstream) -> Result<()> {
    if f.index_report == 0 {
        return Ok(());
    }
    if crate::graph_pass::mode().is_some() {
        return Err(Error::Graph(
            "a kernel compiled with bounds checks reads its report back after each launch, \
             which a graph cannot do: record graphs with bounds checks off"
                .to_string(),
        ));
    }
    // SAFETY: the module's own variable of `BYTES` bytes; modules are never unloaded.
    unsafe {
        zero_on(
            f.index_report,
            BYTES,
            stream,
            "clearing a kernel's index report",
        )
    }
}

/// Waits for the launch of `f` on `stream` and returns its first out-of-range index as an
/// error of the call at `site`.
pub(crate) fn check(f: &Function, stream: CUstream, site: Location) -> Result<()> {
    if f.index_report == 0 {
        return Ok(());
    }
    let mut words = [0u64; BYTES / 8];
    // SAFETY: as in `clear`; the host buffer is `BYTES` long and waited for below.
    unsafe {
        read_on(
            &mut words[..],
            f.index_report,
            stream,
            "reading a kernel's index report",
        )?
    };
    let (hit, len) = (words[0] & 0xffff_ffff, words[0] >> 32);
    if hit == 0 {
        return Ok(());
    }
    let index_site = (words[3] != u64::MAX).then_some(words[3]);
    if len == 0 {
        // The mark of `Lattice::wrapped` in `lattice.cuh`: the index is the direction.
        return Err(Error::ShiftBeyondHalo {
            site,
            index_site,
            direction: words[1],
        });
    }
    Err(Error::BodyIndexOutOfRange {
        site,
        index_site,
        index: words[1] as i64,
        len,
    })
}
