//! Runtime CPU feature checks for the vector kernels. Every vector path computes the same bits as
//! its portable twin, so tests can cap the vector level globally ([`with_level`]) and compare.

#[cfg(test)]
use std::sync::atomic::{AtomicU8, Ordering};

/// The widest kernels a test lets run: each level also allows the ones below it.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// Portable Rust only.
    Portable = 0,
    /// AVX2 (and F16C) kernels, no AVX-512.
    Avx2 = 1,
    /// Everything the CPU has.
    Avx512 = 2,
}

#[cfg(test)]
impl Level {
    /// Every level, narrowest first.
    pub(crate) const ALL: [Level; 3] = [Level::Portable, Level::Avx2, Level::Avx512];
}

/// The level cap (tests only); the default allows everything.
#[cfg(test)]
static MAX_LEVEL: AtomicU8 = AtomicU8::new(Level::Avx512 as u8);

/// Serialises the tests that change the cap, so each runs at the level it asked for.
#[cfg(test)]
static LEVEL_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `f` with the kernels capped at `level` (tests only). Tests that do not take the lock may
/// run meanwhile at a lower level; they are unaffected, since every level gives the same bits.
#[cfg(test)]
pub(crate) fn with_level<T>(level: Level, f: impl FnOnce() -> T) -> T {
    let _guard = LEVEL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    MAX_LEVEL.store(level as u8, Ordering::Relaxed);
    let out = f();
    MAX_LEVEL.store(Level::Avx512 as u8, Ordering::Relaxed);
    out
}

#[cfg(test)]
fn allowed(level: u8) -> bool {
    MAX_LEVEL.load(Ordering::Relaxed) >= level
}

#[cfg(not(test))]
fn allowed(_level: u8) -> bool {
    true
}

/// True when the AVX2 kernels may run.
#[inline]
pub(crate) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        allowed(1) && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = allowed;
        false
    }
}

/// True when the AVX2 + F16C kernels may run.
#[inline]
pub(crate) fn has_avx2_f16c() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        has_avx2() && std::arch::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// True when the AVX2 + FMA kernels may run.
#[inline]
pub(crate) fn has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        has_avx2() && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// True when the AVX-512 kernels may run: F, BW and VL (512-bit float and 16-bit integer
/// lanes, masked 256-bit ops), on top of AVX2, FMA and F16C.
#[inline]
pub(crate) fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        allowed(2)
            && has_avx2_f16c()
            && has_avx2_fma()
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The widest vector kernels this CPU runs: `"avx512"` (AVX-512 F/BW/VL with AVX2, FMA and
/// F16C), `"avx2"` (the AVX2 kernels; those for F16 also need F16C, the shifted statistics FMA)
/// or `"portable"` (plain Rust, auto-vectorised for the target's baseline: every CPU that is not
/// x86_64, and x86_64 without AVX2). Chosen at run time: builds target the baseline CPU.
pub fn kernel_level() -> &'static str {
    if has_avx512() {
        "avx512"
    } else if has_avx2() {
        "avx2"
    } else {
        "portable"
    }
}
