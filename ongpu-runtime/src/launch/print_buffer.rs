//! The host's half of printing on the GPU: a kernel whose body prints has a record buffer
//! in its module (`ongpu_print_buffer`, see `print.cuh`), emptied on the launch's queue
//! before the launch and read after it; its records are decoded, formatted with the call
//! site's formats and written in order (`crate::print`). Kernels that do not print have no
//! buffer, and their launches skip both steps.

use crate::cuda::stream::{read_on, zero_on, StreamHandle as CUstream};
use crate::cuda::Function;
use crate::error::{Error, Result};
use crate::print::records::{self, BUFFER_WORDS};
use crate::print::{PrintFormat, Printed};

/// Empties `f`'s buffer on `stream`, before a launch of `f` there.
pub(crate) fn clear(f: &Function, stream: CUstream) -> Result<()> {
    if f.print_buffer == 0 {
        return Ok(());
    }
    if crate::graph_pass::mode().is_some() {
        return Err(Error::Graph(
            "a kernel that prints reads its lines back after each launch, which a graph cannot \
             do: record graphs of bodies without println!"
                .to_string(),
        ));
    }
    // SAFETY: the module's own variable, whose first 8 bytes are its counts; modules are
    // never unloaded.
    unsafe {
        zero_on(
            f.print_buffer,
            8,
            stream,
            "emptying a kernel's print buffer",
        )
    }
}

/// Waits for the launch of `f` on `stream` and writes the lines it printed, formatted by
/// `format`.
pub(crate) fn flush(f: &Function, stream: CUstream, format: Option<PrintFormat>) -> Result<()> {
    let (true, Some(format)) = (f.print_buffer != 0, format) else {
        return Ok(());
    };
    let mut counts = [0u32; 2];
    // SAFETY: as in `clear`; the host buffers are as long as the copies and waited for.
    unsafe {
        read_on(
            &mut counts[..],
            f.print_buffer,
            stream,
            "reading a kernel's print buffer",
        )?
    };
    let [used, dropped] = counts;
    if used == 0 {
        return Ok(());
    }
    let mut words = vec![0u32; (used as usize).min(BUFFER_WORDS)];
    // SAFETY: as above; the area follows the two counts and holds `BUFFER_WORDS` words.
    unsafe {
        read_on(
            &mut words[..],
            f.print_buffer + 8,
            stream,
            "reading a kernel's print buffer",
        )?
    };
    let mut lines = records::lines(&words, format).unwrap_or_else(|bad| {
        vec![(
            0,
            Printed {
                to_stderr: true,
                text: format!("ongpu: the print buffer holds {bad}\n"),
            },
        )]
    });
    if dropped > 0 {
        lines.push((
            u64::MAX,
            Printed {
                to_stderr: true,
                text: format!(
                    "ongpu: {dropped} prints of this launch did not fit its print buffer ({} MiB) \
                 and were dropped\n",
                    (BUFFER_WORDS * 4) >> 20
                ),
            },
        ));
    }
    crate::print::write_in_order(lines);
    Ok(())
}
