//! The SIGBUS handler itself: installed (and re-installed if replaced) on every registration,
//! chaining to whatever handler it displaced for faults outside guarded mappings.

use super::{slot_holding, NO_FAULT};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The action we displaced, for faults that are not ours. Written under `INSTALL` before our
/// handler goes live, read (never written) by the handler.
static mut PREVIOUS: std::mem::MaybeUninit<libc::sigaction> = std::mem::MaybeUninit::uninit();
static HAVE_PREVIOUS: AtomicBool = AtomicBool::new(false);
static PAGE: AtomicUsize = AtomicUsize::new(4096);
static INSTALL: Mutex<()> = Mutex::new(());

/// Makes `on_sigbus` the SIGBUS handler unless it already is.
pub(super) fn install() {
    let _lock = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: an all-zero sigaction is a valid value (no handler, no flags, empty mask).
    let mut current: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: sigaction with a null new action only reads the current one into `current`.
    let queried = unsafe { libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut current) };
    if queried != 0 {
        return;
    }
    if current.sa_sigaction == on_sigbus as *const () as usize {
        return;
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if let Ok(page) = usize::try_from(page) {
        if page.is_power_of_two() {
            PAGE.store(page, Ordering::Relaxed);
        }
    }
    // SAFETY: we hold INSTALL, and our handler is not (or no longer) installed, so nothing reads
    // PREVIOUS while we write it; HAVE_PREVIOUS publishes it before the handler goes live.
    unsafe {
        (*std::ptr::addr_of_mut!(PREVIOUS)).write(current);
    }
    HAVE_PREVIOUS.store(true, Ordering::Release);
    // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value; we then fill in the
    // handler address with the SA_SIGINFO signature it has, and SA_ONSTACK so a thread with an
    // alternate signal stack uses it.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

/// Async-signal-safe: atomics, `mmap` and `sigaction` only (both are single system calls).
extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let addr = if info.is_null() {
        None
    } else {
        // SAFETY: the kernel passes a valid siginfo for an SA_SIGINFO handler.
        Some(unsafe { (*info).si_addr() } as usize)
    };
    if let Some(slot) = addr.and_then(slot_holding) {
        let addr = addr.unwrap_or_default();
        let page = PAGE.load(Ordering::Relaxed);
        let start = slot.start.load(Ordering::Relaxed);
        let end = start.saturating_add(slot.len.load(Ordering::Relaxed));
        let from = addr & !(page - 1);
        let len = (end - from).div_ceil(page) * page;
        // SAFETY: [from, from + len) is the tail of a live read-only mapping registered by a
        // `Guard` (from the faulting page to the mapping's last page). MAP_FIXED replaces those
        // pages with private zero pages in place, so every pointer into the mapping stays valid
        // and readable; nothing else lives at those addresses.
        let mapped = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                len,
                libc::PROT_READ,
                libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if mapped != libc::MAP_FAILED {
            slot.first_fault
                .fetch_min(addr.min(NO_FAULT - 1), Ordering::AcqRel);
            return;
        }
    }
    chain(sig, info, ctx);
}

/// Hands a fault that is not ours to the handler we displaced; with none (or SIG_DFL/SIG_IGN),
/// restores the default action so the re-executed access kills the process as it always did.
fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    if HAVE_PREVIOUS.load(Ordering::Acquire) {
        // SAFETY: PREVIOUS was written before HAVE_PREVIOUS was set and is never written while
        // our handler is installed.
        let previous = unsafe { (*std::ptr::addr_of!(PREVIOUS)).assume_init_ref() };
        let target = previous.sa_sigaction;
        if target != libc::SIG_DFL && target != libc::SIG_IGN {
            if previous.sa_flags & libc::SA_SIGINFO != 0 {
                // SAFETY: the displaced handler declared the three-argument signature.
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    unsafe { std::mem::transmute(target) };
                f(sig, info, ctx);
            } else {
                // SAFETY: without SA_SIGINFO the displaced handler has the one-argument signature.
                let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(target) };
                f(sig);
            }
            return;
        }
    }
    // SAFETY: resetting SIGBUS to its default action is always valid.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(sig, &action, std::ptr::null_mut());
    }
}
