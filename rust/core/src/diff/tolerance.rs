//! Default tolerances per dtype, following `torch.testing.assert_close`, and the rule for pairs of
//! different dtypes (the looser of the two).
//!
//! torch.testing: BF16 1.6e-2/1e-5, F16 1e-3/1e-5, F32 and C64 1.3e-6/1e-5, F64 1e-7/1e-7,
//! integers and BOOL exact. torch has no defaults for the narrow floats; here `rtol` is the
//! format's machine epsilon 2^-m (one unit in the last place relative to the value: E4M3 2^-3,
//! E5M2 2^-2, F6 E2M3 2^-3, F6 E3M2 2^-2, F4 E2M1 2^-1) and `atol` is 1e-5 as for the 16-bit
//! floats. F8 E8M0 is a power-of-two scale with no mantissa: any change is a factor of two, so
//! it compares exactly.

use crate::Dtype;

/// `(rtol, atol)` for comparing two tensors of `dtype`.
pub fn default_tolerance(dtype: Dtype) -> (f64, f64) {
    match dtype {
        Dtype::Bf16 => (1.6e-2, 1e-5),
        Dtype::F16 => (1e-3, 1e-5),
        Dtype::F32 | Dtype::C64 => (1.3e-6, 1e-5),
        Dtype::F64 => (1e-7, 1e-7),
        Dtype::F8E4M3 | Dtype::F8E4M3Fnuz | Dtype::F6E2M3 => (0.125, 1e-5),
        Dtype::F8E5M2 | Dtype::F8E5M2Fnuz | Dtype::F6E3M2 => (0.25, 1e-5),
        Dtype::F4 => (0.5, 1e-5),
        Dtype::F8E8M0
        | Dtype::Bool
        | Dtype::U8
        | Dtype::I8
        | Dtype::I16
        | Dtype::U16
        | Dtype::I32
        | Dtype::U32
        | Dtype::I64
        | Dtype::U64 => (0.0, 0.0),
    }
}

/// `(rtol, atol)` for a pair: the looser (larger) of each of the two dtypes' defaults, so a
/// BF16-vs-F32 pair uses BF16's and an integer-vs-integer pair stays exact.
pub fn pair_tolerance(a: Dtype, b: Dtype) -> (f64, f64) {
    let (ra, aa) = default_tolerance(a);
    let (rb, ab) = default_tolerance(b);
    (ra.max(rb), aa.max(ab))
}
