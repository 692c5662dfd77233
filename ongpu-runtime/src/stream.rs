//! [`Stream`]: a queue of device work that runs in order and overlaps other streams, and
//! [`Event`]: a point in a stream's work to wait for or to time.
//!
//! `on_gpu!` keeps its syntax: inside [`Stream::scope`], calls (and launches of
//! `#[ongpu::kernel]` functions) on the same thread are queued on that stream and return without waiting (as the backend choice of
//! [`with_backend`](crate::with_backend) is scoped). Fields know what queued work uses them,
//! so a host read waits for exactly the work that writes the field, and work on one stream
//! waits for the work of other streams (or of the default stream) on the same fields.
//! On the CPU backend every call finishes before it returns: streams are ordered trivially.

#[cfg(feature = "cuda")]
use crate::error::Error;
use crate::error::Result;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Ids of streams; 0 is the default stream's.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The stream of the innermost [`Stream::scope`] on this thread (null: none).
    static CURRENT: Cell<*const Stream> = const { Cell::new(std::ptr::null()) };
}

/// A stream of device work: calls queued on it run in order, and may overlap the work of
/// other streams (copies in both directions and kernels run at the same time when the
/// device has the engines for it).
///
/// The CUDA stream is created on first use on the GPU (so a `Stream` can be made on any
/// machine) and does not synchronise with the legacy default stream; ongpu orders work
/// through the fields it touches instead. Dropping a stream lets its queued work finish.
///
/// ```
/// use ongpu_runtime::{Field, Stream};
/// let s = Stream::new();
/// let y: Field<f32> = Field::filled(1000, 2.0).pinned()?;
/// let start = s.record()?;
/// y.upload_async(&s)?; // queued; the host goes on
/// // s.scope(|| on_gpu!({ x = y * 3.0; }))?;  queues kernels on `s` (see the `ongpu` crate)
/// let end = s.record()?;
/// end.synchronize()?;
/// assert!(start.elapsed_ms(&end)? >= 0.0);
/// # Ok::<(), ongpu_runtime::Error>(())
/// ```
#[derive(Debug)]
pub struct Stream {
    id: u64,
    #[cfg(feature = "cuda")]
    raw: std::sync::OnceLock<crate::cuda::stream::RawStream>,
}

impl Default for Stream {
    fn default() -> Self {
        Self::new()
    }
}

impl Stream {
    /// A new stream (its CUDA stream is created on first use on the GPU).
    pub fn new() -> Self {
        Stream {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            #[cfg(feature = "cuda")]
            raw: std::sync::OnceLock::new(),
        }
    }

    /// A number that tells this stream from the others of the process (never 0, the default
    /// stream's).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Runs `f` with every `on_gpu!` and every `#[ongpu::kernel]` launch on this thread
    /// queued on this stream (then restores the previous choice, also when `f` panics).
    /// Calls return once their kernel is queued (a kernel launched with bounds checks on
    /// waits for its report); results are read with host reads of the fields, which wait
    /// for them.
    ///
    /// The scope is per thread: threads spawned inside `f` queue on the default stream.
    pub fn scope<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Restore(*const Stream);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| c.set(self.0));
            }
        }
        let _restore = Restore(CURRENT.with(|c| c.replace(self)));
        f()
    }

    /// Blocks until all work queued on this stream has finished, and reports an error it
    /// raised.
    pub fn synchronize(&self) -> Result<()> {
        #[cfg(feature = "cuda")]
        if let Some(raw) = self.raw.get() {
            return raw.synchronize();
        }
        Ok(())
    }

    /// An event after all work queued on this stream so far. On the CPU backend (and
    /// before any GPU work on this stream, when CUDA is not the backend) it records the host
    /// time, which is when that work finished.
    pub fn record(&self) -> Result<Event> {
        #[cfg(feature = "cuda")]
        if self.raw.get().is_some() || crate::backend::current()? == crate::Backend::Cuda {
            let dev = crate::cuda::device()?;
            let q = self.queue(dev)?;
            let ev = crate::cuda::Event::new()?;
            ev.record_on(q.raw())?;
            return Ok(Event {
                inner: Inner::Device(ev),
            });
        }
        Ok(Event {
            inner: Inner::Host(Instant::now()),
        })
    }

    /// Makes work queued on this stream from now on wait for `event` (the host does not
    /// wait), e.g. to join two streams before timing their work as one.
    pub fn wait_for(&self, event: &Event) -> Result<()> {
        match &event.inner {
            Inner::Host(_) => Ok(()),
            #[cfg(feature = "cuda")]
            Inner::Device(ev) => {
                let dev = crate::cuda::device()?;
                ev.wait_on(self.queue(dev)?.raw())
            }
        }
    }

    /// The queue of this stream on `dev`, creating the CUDA stream on first use.
    #[cfg(feature = "cuda")]
    pub(crate) fn queue(
        &self,
        dev: &'static crate::cuda::Device,
    ) -> Result<crate::cuda::stream::Queue> {
        let raw = match self.raw.get() {
            Some(raw) => raw,
            None => {
                let created = crate::cuda::stream::RawStream::create(dev)?;
                // Another thread may have won the race; its stream is as good (ours, with
                // nothing queued, is destroyed).
                let _ = self.raw.set(created);
                self.raw.get().expect("set above")
            }
        };
        crate::cuda::check_same_device(raw.device(), dev, || "a stream".to_string())?;
        Ok(crate::cuda::stream::Queue::Stream {
            id: self.id,
            raw: raw.raw(),
        })
    }
}

/// The queue `on_gpu!` and kernel launches on this thread go to: the stream of the innermost
/// [`Stream::scope`], or `None` for the default stream.
#[cfg(feature = "cuda")]
#[inline(always)]
pub(crate) fn current_queue(
    dev: &'static crate::cuda::Device,
) -> Result<Option<crate::cuda::stream::Queue>> {
    let p = CURRENT.with(Cell::get);
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: set by `Stream::scope`, which borrows the stream for as long as it is current
    // on this thread (and restores the previous value when it ends, even by a panic).
    let stream = unsafe { &*p };
    stream.queue(dev).map(Some)
}

/// True inside a [`Stream::scope`] on this thread.
pub fn in_stream_scope() -> bool {
    !CURRENT.with(Cell::get).is_null()
}

/// A point in a stream's work, from [`Stream::record`]: wait for it, ask whether it has
/// passed, or time the work between two events.
#[derive(Debug)]
pub struct Event {
    inner: Inner,
}

#[derive(Debug)]
enum Inner {
    /// Recorded on the host (CPU backend): the work before it had finished then.
    Host(Instant),
    /// A CUDA event recorded on the stream.
    #[cfg(feature = "cuda")]
    Device(crate::cuda::Event),
}

impl Event {
    /// Blocks until the work before the event has finished.
    pub fn synchronize(&self) -> Result<()> {
        match &self.inner {
            Inner::Host(_) => Ok(()),
            #[cfg(feature = "cuda")]
            Inner::Device(ev) => ev.synchronize(),
        }
    }

    /// True once the work before the event has finished.
    pub fn is_complete(&self) -> Result<bool> {
        match &self.inner {
            Inner::Host(_) => Ok(true),
            #[cfg(feature = "cuda")]
            Inner::Device(ev) => ev.is_complete(),
        }
    }

    /// Milliseconds from this event to a later `end` (both complete), measured by the
    /// device for GPU events, by the host clock for CPU ones. Events of both kinds cannot be
    /// compared.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        match (&self.inner, &end.inner) {
            (Inner::Host(a), Inner::Host(b)) => {
                Ok(b.saturating_duration_since(*a).as_secs_f32() * 1e3)
            }
            #[cfg(feature = "cuda")]
            (Inner::Device(a), Inner::Device(b)) => a.elapsed_ms(b),
            #[cfg(feature = "cuda")]
            _ => Err(Error::InvalidArgument(
                "elapsed_ms between an event recorded on the host (CPU backend) and one \
                 recorded on the GPU: record both while the same backend is in use"
                    .to_string(),
            )),
        }
    }
}
