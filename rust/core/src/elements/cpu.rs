//! Runtime CPU feature checks for the vector kernels. Every vector path computes the same bits as
//! its portable twin, so tests can force the portable paths globally and compare.

#[cfg(test)]
use std::sync::atomic::{AtomicBool, Ordering};

/// When set (tests only), every kernel takes its portable path.
#[cfg(test)]
pub(crate) static FORCE_PORTABLE: AtomicBool = AtomicBool::new(false);

#[cfg(test)]
fn forced_portable() -> bool {
    FORCE_PORTABLE.load(Ordering::Relaxed)
}

#[cfg(not(test))]
fn forced_portable() -> bool {
    false
}

/// True when the AVX2 kernels may run.
#[inline]
pub(crate) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        !forced_portable() && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = forced_portable;
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
