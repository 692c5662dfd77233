//! Printing from bodies and kernels (`println!`, `print!`, `eprintln!`, `eprint!` inside
//! `on_gpu!` and `#[ongpu::kernel]`).
//!
//! The macro turns each print into a numbered format of its arguments. On the CPU backend
//! the body formats the line with Rust's `format!` and hands it to the call's [`Printer`];
//! on the GPU it appends a record (the print's number, the site or thread, and each argument
//! as a type tag and its bits) to a buffer in the kernel's module, which the host reads
//! after the launch, decodes into [`PrintValue`]s (the Rust types of the arguments) and
//! formats with the same format through the call's [`PrintFormat`]. Either way the text is
//! Rust's formatting of the same values, and a call writes its lines when it ends, ordered
//! by site (bodies) or global thread index (kernels), in program order within one.

pub(crate) mod records;
mod value;

pub use value::PrintValue;

use std::cell::RefCell;
use std::io::Write;
use std::sync::Mutex;

/// The text of one print, and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Printed {
    /// True for `eprintln!`/`eprint!`.
    pub to_stderr: bool,
    /// The formatted text (with its newline for `println!`).
    pub text: String,
}

impl Printed {
    /// The line for a record whose arguments do not match its print (a GPU record the host
    /// could not pair with the body's formats): said, on stderr, rather than dropped.
    pub fn malformed(id: u32, args: usize) -> Self {
        Printed {
            to_stderr: true,
            text: format!("ongpu: a GPU record of print {id} arrived with {args} arguments\n"),
        }
    }
}

/// Runs a print of the CPU backend out of line, as a cold call, so that the sites that do
/// not print keep a short path.
#[cold]
#[inline(never)]
pub fn print_cold(print: impl FnOnce()) {
    print()
}

/// A call site's formats: print `id` of the body with its decoded arguments.
pub type PrintFormat = fn(id: u32, args: &[PrintValue]) -> Printed;

/// The lines one call prints on the CPU backend, collected from its threads and written,
/// in order, when the call ends.
#[derive(Debug, Default)]
pub struct Printer {
    lines: Mutex<Vec<(u64, Printed)>>,
}

impl Printer {
    /// An empty collector.
    pub const fn new() -> Self {
        Printer {
            lines: Mutex::new(Vec::new()),
        }
    }

    /// Notes a print of the site or thread `key`.
    pub fn line(&self, key: u64, to_stderr: bool, text: String) {
        let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        lines.push((key, Printed { to_stderr, text }));
    }

    /// Writes the lines noted so far (see [`write_in_order`]) and forgets them.
    pub fn flush(&self) {
        let lines = std::mem::take(&mut *self.lines.lock().unwrap_or_else(|e| e.into_inner()));
        write_in_order(lines);
    }
}

thread_local! {
    static CAPTURE: RefCell<Option<Vec<Printed>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns, with its value, the text that the bodies and kernels of the calls
/// it makes on this thread printed (instead of writing it to stdout and stderr): for tests,
/// and for programs that want a kernel's lines as data.
///
/// ```
/// let (value, text) = ongpu_runtime::print::capture(|| 42);
/// assert_eq!((value, text.as_str()), (42, ""));
/// ```
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, String) {
    struct Restore(Option<Vec<Printed>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CAPTURE.with(|c| *c.borrow_mut() = self.0.take());
        }
    }
    let restore = Restore(CAPTURE.with(|c| c.borrow_mut().replace(Vec::new())));
    let value = f();
    let lines = CAPTURE.with(|c| c.borrow_mut().take()).unwrap_or_default();
    drop(restore);
    (value, lines.into_iter().map(|p| p.text).collect())
}

/// Writes `lines` ordered by key, keeping the order of the lines of one key (a stable sort:
/// those of one site or thread arrive in program order), to a [`capture`] of this thread if
/// there is one, else to stdout and stderr.
pub fn write_in_order(mut lines: Vec<(u64, Printed)>) {
    if lines.is_empty() {
        return;
    }
    lines.sort_by_key(|(key, _)| *key);
    let captured = CAPTURE.with(|c| match &mut *c.borrow_mut() {
        Some(sink) => {
            sink.extend(lines.iter().map(|(_, p)| p.clone()));
            true
        }
        None => false,
    });
    if captured {
        return;
    }
    // Through `print!`, so that a test harness's capture of output sees the lines too.
    for (_, p) in &lines {
        if p.to_stderr {
            eprint!("{}", p.text);
        } else {
            print!("{}", p.text);
        }
    }
    let _ = std::io::stdout().flush();
}
