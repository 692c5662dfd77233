//! [`SyncEvent`]: an event without timing that marks a point in a stream's work, so that
//! other streams and the host can wait for exactly that work. Events are recycled through a
//! pool: a stream call records one, and creating events costs more than reusing them.

use super::error::DriverResultExt;
use crate::error::Result;
use cudarc::driver::result::{event, stream};
use cudarc::driver::sys::{CUevent, CUevent_flags, CUevent_wait_flags, CUstream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// A recorded event; back to the pool when the last holder drops it.
#[derive(Debug)]
pub(crate) struct SyncEvent {
    raw: CUevent,
}

// SAFETY: event handles may be used from any thread with the context bound; ongpu binds it
// before every driver call.
unsafe impl Send for SyncEvent {}
// SAFETY: as above; the handle itself is never mutated.
unsafe impl Sync for SyncEvent {}

/// Idle events, ready to be recorded again.
struct Pool(Vec<CUevent>);
// SAFETY: as for `SyncEvent`.
unsafe impl Send for Pool {}

static POOL: Mutex<Pool> = Mutex::new(Pool(Vec::new()));

/// Events recorded so far (the default path must record none; tests check it).
static RECORDED: AtomicU64 = AtomicU64::new(0);

/// How many synchronisation events ongpu has recorded in this process: a diagnostic.
/// `on_gpu!` calls outside a [`Stream::scope`](crate::Stream::scope) record none; work
/// queued on a stream records one per call or copy.
pub fn sync_events_recorded() -> u64 {
    RECORDED.load(Ordering::Relaxed)
}

impl SyncEvent {
    /// Records an event after the work queued so far on `stream` (null: the legacy default
    /// stream). The context must be bound.
    pub(crate) fn record(stream: CUstream) -> Result<Arc<SyncEvent>> {
        let pooled = POOL.lock().unwrap_or_else(PoisonError::into_inner).0.pop();
        let raw = match pooled {
            Some(raw) => raw,
            None => event::create(CUevent_flags::CU_EVENT_DISABLE_TIMING)
                .during("creating a synchronisation event")?,
        };
        let ev = SyncEvent { raw };
        // SAFETY: a live event and a live stream of the bound context. Re-recording an idle
        // pooled event is allowed: earlier waits captured its earlier record.
        unsafe { event::record(ev.raw, stream) }.during("recording an event")?;
        RECORDED.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::new(ev))
    }

    /// Makes later work on `stream` wait for this event (the host does not wait).
    pub(crate) fn wait_on(&self, stream: CUstream) -> Result<()> {
        // SAFETY: a live event; a live stream (or null) of the bound context.
        unsafe { stream::wait_event(stream, self.raw, CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT) }
            .during("making a stream wait for an event")
    }

    /// Blocks the host until the work before the event has finished, and reports an error it
    /// raised.
    pub(crate) fn synchronize(&self) -> Result<()> {
        // SAFETY: a live event.
        unsafe { event::synchronize(self.raw) }.during("waiting for queued work")
    }
}

impl Drop for SyncEvent {
    fn drop(&mut self) {
        // Keep the handle: its last record may still be pending, which is fine for reuse.
        POOL.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .0
            .push(self.raw);
    }
}
