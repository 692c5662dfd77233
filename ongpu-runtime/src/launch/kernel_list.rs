//! The kernels of one call site: an append-only list keyed by a `TypeId` (of the capture
//! types, and for reductions of the operation too) and the device (a module belongs to one
//! device's context), read without locks; the mutex only
//! orders compilations. Entries are never freed, like the modules they point into, so a
//! call after the first finds its kernel with a few loads and one comparison.

use crate::error::Result;
use std::any::TypeId;
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, PoisonError};

#[derive(Debug)]
struct Slot<K> {
    key: (TypeId, usize),
    kernel: K,
    next: *const Slot<K>,
}

/// An append-only, lock-free-to-read list of compiled kernels.
#[derive(Debug)]
pub(crate) struct KernelList<K> {
    head: AtomicPtr<Slot<K>>,
    compiling: Mutex<()>,
}

// SAFETY: slots are immutable once published (Release store, Acquire loads) and never freed;
// the kernels themselves are shared between threads.
unsafe impl<K: Sync> Sync for KernelList<K> {}
// SAFETY: as above.
unsafe impl<K: Send> Send for KernelList<K> {}

impl<K> KernelList<K> {
    /// An empty list (usable in a `static`).
    pub(crate) const fn new() -> Self {
        KernelList {
            head: AtomicPtr::new(ptr::null_mut()),
            compiling: Mutex::new(()),
        }
    }

    #[inline]
    fn find(&self, key: (TypeId, usize)) -> Option<&K> {
        let mut p = self.head.load(Ordering::Acquire) as *const Slot<K>;
        while !p.is_null() {
            // SAFETY: published slots are valid forever (leaked, never mutated).
            let slot = unsafe { &*p };
            if slot.key == key {
                return Some(&slot.kernel);
            }
            p = slot.next;
        }
        None
    }

    /// The kernel of `key` on the device of ordinal `device`, made by `compile` on first use
    /// (once, even when threads race).
    #[inline]
    pub(crate) fn get_or_compile(
        &self,
        key: TypeId,
        device: usize,
        compile: impl FnOnce() -> Result<K>,
    ) -> Result<&K> {
        let key = (key, device);
        match self.find(key) {
            Some(k) => Ok(k),
            None => self.compile_slow(key, compile),
        }
    }

    #[cold]
    fn compile_slow(
        &self,
        key: (TypeId, usize),
        compile: impl FnOnce() -> Result<K>,
    ) -> Result<&K> {
        let _guard = self
            .compiling
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(k) = self.find(key) {
            return Ok(k);
        }
        let slot = Box::leak(Box::new(Slot {
            key,
            kernel: compile()?,
            next: self.head.load(Ordering::Acquire),
        }));
        self.head.store(slot, Ordering::Release);
        Ok(&slot.kernel)
    }
}
