//! What queued work may still use one copy of a field, so that later work waits for exactly
//! that work: a read waits for the last queued write, a write waits for it and for every
//! read queued since. Work on one queue runs in order, so nothing waits for its own queue.
//!
//! Work on the legacy default stream (every call outside a [`crate::Stream`] scope) leaves
//! a mark without an event: the default stream orders its own work, so the hot path records
//! nothing. Only when a stream or the host must wait for such work is an event recorded on
//! the default stream, then (it covers everything queued there before it).

use crate::cuda::stream::{Queue, DEFAULT_QUEUE, HOST_QUEUE};
use crate::cuda::sync_event::SyncEvent;
use crate::error::Result;
use std::sync::Arc;

/// One queued access to a copy.
#[derive(Debug, Clone)]
pub(crate) struct Mark {
    queue: u64,
    /// Complete when this event is; `None` for the default stream (see the module).
    event: Option<Arc<SyncEvent>>,
}

impl Mark {
    /// An access queued on the default stream.
    pub(crate) const DEFAULT: Mark = Mark {
        queue: DEFAULT_QUEUE,
        event: None,
    };

    /// Work that has already finished (the host did it, or waited for it).
    pub(crate) const DONE: Mark = Mark {
        queue: HOST_QUEUE,
        event: None,
    };

    /// The mark of work just queued on `q`: on a stream, an event recorded after it. If the
    /// event cannot be recorded, waits for the stream on the host instead (so no queued work
    /// goes untracked) and returns [`Mark::DONE`]; an error only if that fails too.
    pub(crate) fn now(q: Queue) -> Result<Mark> {
        match q {
            Queue::Default => Ok(Mark::DEFAULT),
            Queue::Host => Ok(Mark::DONE),
            Queue::Stream { id, raw } => match SyncEvent::record(raw) {
                Ok(event) => Ok(Mark {
                    queue: id,
                    event: Some(event),
                }),
                Err(e) => {
                    // SAFETY: a live stream of the bound context.
                    unsafe { crate::cuda::stream::wait_for(raw, String::new) }.map_err(|_| e)?;
                    Ok(Mark::DONE)
                }
            },
        }
    }
}

/// The queued accesses to one copy of a field that may not have finished.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    /// The last queued write.
    write: Option<Mark>,
    /// Reads queued since that write, at most one per queue (a later read on the same queue
    /// finishes later, so it replaces the earlier one).
    reads: Vec<Mark>,
}

impl Pending {
    /// True when nothing queued uses the copy.
    #[inline]
    pub(crate) fn is_idle(&self) -> bool {
        self.write.is_none() && self.reads.is_empty()
    }

    /// True when some mark holds an event (work on a stream).
    pub(crate) fn has_stream_work(&self) -> bool {
        self.write
            .iter()
            .chain(&self.reads)
            .any(|m| m.event.is_some())
    }

    #[inline]
    fn has_read(&self, queue: u64) -> bool {
        self.reads.iter().any(|m| m.queue == queue)
    }

    /// Orders a read on `q` after the last queued write. A queue that has read since that
    /// write has waited for it already.
    #[inline]
    pub(crate) fn before_read(&mut self, q: Queue) -> Result<()> {
        match &self.write {
            Some(w) if w.queue != q.id() && !self.has_read(q.id()) => self.wait_for_write(q),
            _ => Ok(()),
        }
    }

    #[cold]
    fn wait_for_write(&mut self, q: Queue) -> Result<()> {
        let w = self.write.clone().expect("checked by the caller");
        match &w.event {
            Some(ev) => wait_event(q, ev)?,
            None => wait_default(q)?,
        }
        if matches!(q, Queue::Host) {
            self.write = None; // finished
        }
        Ok(())
    }

    /// Orders a write on `q` after every queued access on other queues.
    #[inline]
    pub(crate) fn before_write(&mut self, q: Queue) -> Result<()> {
        let id = q.id();
        let busy = self.write.as_ref().is_some_and(|w| w.queue != id)
            || self.reads.iter().any(|r| r.queue != id);
        if busy {
            self.wait_for_all(q)
        } else {
            Ok(())
        }
    }

    #[cold]
    fn wait_for_all(&mut self, q: Queue) -> Result<()> {
        let id = q.id();
        let mut default_stream = false;
        for m in self.write.iter().chain(&self.reads) {
            if m.queue == id {
                continue;
            }
            match &m.event {
                Some(ev) => wait_event(q, ev)?,
                None => default_stream = true,
            }
        }
        if default_stream {
            wait_default(q)?;
        }
        if matches!(q, Queue::Host) {
            self.write = None;
            self.reads.clear();
        }
        Ok(())
    }

    /// Blocks the host until the stream work on the copy has finished (default-stream work
    /// is left to the caller: freeing device memory waits for it).
    pub(crate) fn wait_streams_on_host(&mut self) -> Result<()> {
        for m in self.write.iter().chain(&self.reads) {
            if let Some(ev) = &m.event {
                wait_event(Queue::Host, ev)?;
            }
        }
        self.write = None;
        self.reads.clear();
        Ok(())
    }

    /// Records a read queued with mark `m` (after [`before_read`](Pending::before_read)).
    #[inline]
    pub(crate) fn after_read(&mut self, m: &Mark) {
        if m.queue == HOST_QUEUE {
            return;
        }
        match self.reads.iter_mut().find(|r| r.queue == m.queue) {
            // The default stream's mark never changes; a stream's newer event replaces the
            // older one.
            Some(r) => {
                if m.event.is_some() {
                    *r = m.clone();
                }
            }
            None => self.reads.push(m.clone()),
        }
    }

    /// Records a write queued with mark `m` (after [`before_write`](Pending::before_write)):
    /// it is now the only access later work must wait for.
    #[inline]
    pub(crate) fn after_write(&mut self, m: &Mark) {
        self.reads.clear();
        self.write = (m.queue != HOST_QUEUE).then(|| m.clone());
    }
}

/// Makes `q` wait for `ev`: the host blocks; a stream or the default stream waits on the
/// device, without blocking the host.
fn wait_event(q: Queue, ev: &SyncEvent) -> Result<()> {
    #[cfg(test)]
    tests::note_wait(q, tests::Waited::Event);
    crate::cuda::device()?; // binds the context to this thread
    wait_event_bound(q, ev)
}

/// [`wait_event`] once the context is bound.
fn wait_event_bound(q: Queue, ev: &SyncEvent) -> Result<()> {
    match q {
        Queue::Host => crate::trace::step(
            || "waiting for queued work on the host".into(),
            || ev.synchronize(),
        ),
        Queue::Default | Queue::Stream { .. } => ev.wait_on(q.raw()),
    }
}

/// Makes `q` wait for everything queued so far on the default stream.
fn wait_default(q: Queue) -> Result<()> {
    #[cfg(test)]
    tests::note_wait(q, tests::Waited::DefaultStream);
    crate::cuda::device()?;
    let ev = SyncEvent::record(std::ptr::null_mut())?;
    wait_event_bound(q, &ev)
}

#[cfg(test)]
mod tests {
    //! The decisions, with or without a device: every wait is noted before it needs the
    //! device, so a test sees which queue waited on what. A wait then succeeds on a machine
    //! with a device and fails with [`Error::NoDevice`] on one without.
    use super::*;
    use crate::error::Error;
    use std::cell::RefCell;

    /// What a queue waited for.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub(super) enum Waited {
        /// A stream's event.
        Event,
        /// Everything queued on the default stream.
        DefaultStream,
    }

    thread_local! {
        static WAITS: RefCell<Vec<(u64, Waited)>> = const { RefCell::new(Vec::new()) };
    }

    pub(super) fn note_wait(q: Queue, what: Waited) {
        WAITS.with(|w| w.borrow_mut().push((q.id(), what)));
    }

    /// Runs `f`, checks its result, and returns the waits it asked for. With no wait the
    /// result is `Ok`; after a wait it is `Ok` with a device and `NoDevice` without one.
    fn waits(f: impl FnOnce() -> Result<()>) -> Vec<(u64, Waited)> {
        WAITS.with(|w| w.borrow_mut().clear());
        let r = f();
        let waited = WAITS.with(|w| std::mem::take(&mut *w.borrow_mut()));
        let has_device = crate::cuda::probe().is_ok();
        match &r {
            Ok(()) => assert!(
                waited.is_empty() || has_device,
                "waited {waited:?} with no device, yet Ok"
            ),
            Err(Error::NoDevice { .. }) => assert!(
                !waited.is_empty() && !has_device,
                "NoDevice after waits {waited:?}"
            ),
            Err(e) => panic!("unexpected error after waits {waited:?}: {e}"),
        }
        waited
    }

    const STREAM: Queue = Queue::Stream {
        id: 5,
        raw: std::ptr::null_mut(),
    };
    const NONE: Vec<(u64, Waited)> = Vec::new();
    const DEFAULT: u64 = DEFAULT_QUEUE;
    const HOST: u64 = HOST_QUEUE;

    #[test]
    fn an_idle_copy_needs_no_wait() {
        let mut p = Pending::default();
        assert!(p.is_idle());
        for q in [Queue::Default, Queue::Host, STREAM] {
            assert_eq!(waits(|| p.before_read(q)), NONE);
            assert_eq!(waits(|| p.before_write(q)), NONE);
        }
    }

    #[test]
    fn default_stream_work_is_waited_for_by_other_queues_only() {
        let mut p = Pending::default();
        p.after_write(&Mark::DEFAULT);
        assert!(!p.is_idle() && !p.has_stream_work());
        // Its own queue: ordered already.
        assert_eq!(waits(|| p.before_read(Queue::Default)), NONE);
        assert_eq!(waits(|| p.before_write(Queue::Default)), NONE);
        // A stream waits on the device for the default stream's work.
        assert_eq!(
            waits(|| p.before_read(STREAM)),
            [(5, Waited::DefaultStream)]
        );
        assert_eq!(
            waits(|| p.before_write(STREAM)),
            [(5, Waited::DefaultStream)]
        );
        // The host waits too.
        assert_eq!(
            waits(|| p.before_read(Queue::Host)),
            [(HOST, Waited::DefaultStream)]
        );
    }

    #[test]
    fn reads_do_not_wait_for_reads_but_writes_do() {
        let mut p = Pending::default();
        p.after_read(&Mark::DEFAULT);
        p.after_read(&Mark::DEFAULT);
        assert_eq!(p.reads.len(), 1, "one mark per queue");
        assert_eq!(waits(|| p.before_read(Queue::Host)), NONE, "no write");
        assert_eq!(waits(|| p.before_read(STREAM)), NONE);
        assert_eq!(
            waits(|| p.before_write(Queue::Default)),
            NONE,
            "its own queue"
        );
        assert_eq!(
            waits(|| p.before_write(STREAM)),
            [(5, Waited::DefaultStream)]
        );
        assert_eq!(
            waits(|| p.before_write(Queue::Host)),
            [(HOST, Waited::DefaultStream)],
            "the host waits for the read"
        );
    }

    #[test]
    fn a_queue_that_read_since_the_write_has_waited_already() {
        let mut p = Pending {
            write: Some(Mark {
                queue: 9,
                event: None,
            }),
            reads: Vec::new(),
        };
        assert_eq!(
            waits(|| p.before_read(Queue::Default)),
            [(DEFAULT, Waited::DefaultStream)],
            "waits for queue 9"
        );
        p.after_read(&Mark::DEFAULT);
        assert_eq!(
            waits(|| p.before_read(Queue::Default)),
            NONE,
            "read since the write"
        );
    }

    #[test]
    fn the_host_s_wait_clears_the_marks_only_when_it_succeeds() {
        let mut p = Pending::default();
        p.after_read(&Mark::DEFAULT);
        let waited = waits(|| p.before_write(Queue::Host));
        assert_eq!(waited, [(HOST, Waited::DefaultStream)]);
        // With a device the host has waited, so nothing is pending; without one the wait
        // failed, and the read is still pending.
        assert_eq!(p.is_idle(), crate::cuda::probe().is_ok());
    }

    #[test]
    fn finished_work_clears_the_marks() {
        let mut p = Pending::default();
        p.after_read(&Mark::DEFAULT);
        p.after_write(&Mark::DEFAULT);
        assert!(
            p.reads.is_empty(),
            "a write supersedes the reads it waited for"
        );
        p.after_write(&Mark::DONE);
        assert!(p.is_idle());
        p.after_read(&Mark::DONE);
        assert!(p.is_idle(), "work that has finished leaves no mark");
    }
}
