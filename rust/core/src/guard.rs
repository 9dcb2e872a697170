//! Fault guard for file mappings: a file truncated while it is mapped makes reads past its new
//! end raise SIGBUS, which would kill the process (and a Python interpreter calling us). This
//! module owns a process-wide SIGBUS handler and a registry of guarded mappings. A fault inside a
//! guarded mapping is recovered by mapping anonymous zero pages over the rest of that mapping and
//! recording the lowest faulting address; the reader later turns the record into a finding. A
//! fault anywhere else is passed to the previous handler (by default: the process dies as before).
//!
//! The registry is an append-only, lock-free list of slot blocks, because the handler may not
//! take locks or allocate.

use std::sync::atomic::{AtomicPtr, AtomicU8, AtomicUsize, Ordering};

const SLOTS_PER_BLOCK: usize = 256;
const FREE: u8 = 0;
const CLAIMED: u8 = 1;
const ACTIVE: u8 = 2;
const NO_FAULT: usize = usize::MAX;

struct Slot {
    state: AtomicU8,
    start: AtomicUsize,
    len: AtomicUsize,
    first_fault: AtomicUsize,
}

struct Block {
    slots: [Slot; SLOTS_PER_BLOCK],
    next: *mut Block,
}

static HEAD: AtomicPtr<Block> = AtomicPtr::new(std::ptr::null_mut());

/// A registered mapping; unregisters on drop. Ask it whether any of its bytes faulted.
#[derive(Debug)]
pub struct Guard {
    slot: &'static Slot,
    start: usize,
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Slot")
    }
}

impl Guard {
    /// Guards the mapping `[start, start + len)`: installs the handler (again, if someone replaced
    /// it since) and records the range.
    pub fn register(start: *const u8, len: usize) -> Guard {
        #[cfg(unix)]
        handler::install();
        let slot = claim_slot();
        slot.start.store(start as usize, Ordering::Relaxed);
        slot.len.store(len, Ordering::Relaxed);
        slot.first_fault.store(NO_FAULT, Ordering::Relaxed);
        slot.state.store(ACTIVE, Ordering::Release);
        Guard {
            slot,
            start: start as usize,
        }
    }

    /// Offset (from the mapping's start) of the lowest page that faulted, if any did: from there
    /// on the mapping reads zeros instead of the file.
    pub fn first_fault(&self) -> Option<u64> {
        let addr = self.slot.first_fault.load(Ordering::Acquire);
        (addr != NO_FAULT).then(|| addr.saturating_sub(self.start) as u64)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.slot.state.store(CLAIMED, Ordering::Release);
        self.slot.len.store(0, Ordering::Relaxed);
        self.slot.state.store(FREE, Ordering::Release);
    }
}

fn claim_slot() -> &'static Slot {
    loop {
        let mut block = HEAD.load(Ordering::Acquire);
        while !block.is_null() {
            // SAFETY: blocks are leaked on creation and never freed, so every pointer reachable
            // from HEAD stays valid for the life of the process.
            let b: &'static Block = unsafe { &*block };
            for slot in &b.slots {
                if slot
                    .state
                    .compare_exchange(FREE, CLAIMED, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok()
                {
                    return slot;
                }
            }
            block = b.next;
        }
        push_block();
    }
}

fn push_block() {
    let fresh = Box::into_raw(Box::new(Block {
        slots: std::array::from_fn(|_| Slot {
            state: AtomicU8::new(FREE),
            start: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            first_fault: AtomicUsize::new(NO_FAULT),
        }),
        next: std::ptr::null_mut(),
    }));
    let mut head = HEAD.load(Ordering::Acquire);
    loop {
        // SAFETY: `fresh` is ours alone until the exchange below publishes it.
        unsafe { (*fresh).next = head };
        match HEAD.compare_exchange(head, fresh, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return,
            Err(now) => head = now,
        }
    }
}

/// The active slot whose range holds `addr` (async-signal-safe: atomics only).
fn slot_holding(addr: usize) -> Option<&'static Slot> {
    let mut block = HEAD.load(Ordering::Acquire);
    while !block.is_null() {
        // SAFETY: as in `claim_slot`, blocks live forever.
        let b: &'static Block = unsafe { &*block };
        for slot in &b.slots {
            if slot.state.load(Ordering::Acquire) != ACTIVE {
                continue;
            }
            let start = slot.start.load(Ordering::Relaxed);
            let len = slot.len.load(Ordering::Relaxed);
            if addr >= start && addr - start < len {
                return Some(slot);
            }
        }
        block = b.next;
    }
    None
}

#[cfg(unix)]
mod handler;

#[cfg(test)]
mod tests;
