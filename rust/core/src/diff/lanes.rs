//! The lane accumulators of one block of a pair comparison: the one definition of which sum each
//! element goes to and how it updates it, shared by the generic kernel (decoded `f64` values), the
//! portable fused loop and the AVX2 and AVX-512 loops, which must match it bit for bit.
//!
//! Element `j` of a block (counted from the block start) goes to lane `j % 16` of each sum, in
//! order, so sixteen independent additions are in flight instead of one chain per sum. At the end
//! of a block the lanes reduce in one fixed tree ([`tree`]) and the block's first place of its
//! largest difference is found by a rescan ([`first_at`]), only when that difference beats
//! everything before it.
//!
//! Roundings. The tolerance bound `atol + rtol*|y|` is always rounded product, then sum. For the
//! pairs the fused kernel takes (same-dtype BF16, F16, F32: `FUSED`), `d*d` is added with one
//! rounding (a fused multiply-add: one instruction fewer in the vector loops, whose bottleneck
//! is the adder), and so are `x*x`, `y*y`, `x*y`, which for these dtypes are exact in `f64`
//! (at most 48 significant bits, no overflow or underflow), so fused or not they round alike.
//! Every other pair (decoded through `f64` buffers, any values) rounds each product, then adds.

use super::accum::Acc;

/// Sum lanes per block.
pub(crate) const LANES: usize = 16;

/// Per-lane sums and maxima over the places where both values are finite, and the block's
/// order-free counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Lanes {
    pub sum_abs: [f64; LANES],
    pub sum_sq_diff: [f64; LANES],
    pub sum_sq_a: [f64; LANES],
    pub sum_sq_b: [f64; LANES],
    pub dot: [f64; LANES],
    pub max_abs: [f64; LANES],
    pub finite: u64,
    pub mismatched: u64,
    pub nonfinite_mismatched: u64,
}

impl Lanes {
    pub const NEW: Lanes = Lanes {
        sum_abs: [0.0; LANES],
        sum_sq_diff: [0.0; LANES],
        sum_sq_a: [0.0; LANES],
        sum_sq_b: [0.0; LANES],
        dot: [0.0; LANES],
        max_abs: [0.0; LANES],
        finite: 0,
        mismatched: 0,
        nonfinite_mismatched: 0,
    };

    /// Adds place `j` of the block with values `x` (side A) and `y` (side B); `FUSED` for the
    /// fused kernel's dtypes (see the module docs).
    #[inline(always)]
    pub fn step<const FUSED: bool>(&mut self, j: usize, x: f64, y: f64, (rtol, atol): (f64, f64)) {
        let l = j % LANES;
        if x.is_finite() && y.is_finite() {
            let d = (x - y).abs();
            self.max_abs[l] = if d > self.max_abs[l] {
                d
            } else {
                self.max_abs[l]
            };
            self.finite += 1;
            self.sum_abs[l] += d;
            self.sum_sq_diff[l] = if FUSED {
                d.mul_add(d, self.sum_sq_diff[l])
            } else {
                self.sum_sq_diff[l] + d * d
            };
            self.sum_sq_a[l] += x * x;
            self.sum_sq_b[l] += y * y;
            self.dot[l] += x * y;
            // d and y are finite and the tolerances finite and >= 0 (validated), so the bound is
            // never NaN and `>` is exactly "not within tolerance".
            self.mismatched += u64::from(d > atol + rtol * y.abs());
        } else {
            // NaN only equals NaN; an infinity only the same infinity.
            let same = (x.is_nan() && y.is_nan()) || x == y;
            self.mismatched += u64::from(!same);
            self.nonfinite_mismatched += u64::from(!same);
        }
    }

    /// True when every lane of both sums of squares is finite. For the dtypes the vector loops
    /// take (whose squares are far below `f64`'s range), false exactly when some value of the
    /// block was NaN or infinite: such blocks are redone with [`Lanes::step`].
    pub fn squares_finite(&self) -> bool {
        self.sum_sq_a
            .iter()
            .chain(&self.sum_sq_b)
            .all(|s| s.is_finite())
    }

    /// The block's accumulator, `max_index` not yet located (0).
    pub fn reduce(&self) -> Acc {
        Acc {
            finite: self.finite,
            max_abs: self
                .max_abs
                .iter()
                .fold(0.0, |m, &x| if x > m { x } else { m }),
            max_index: 0,
            sum_abs: tree(&self.sum_abs),
            sum_sq_diff: tree(&self.sum_sq_diff),
            sum_sq_a: tree(&self.sum_sq_a),
            sum_sq_b: tree(&self.sum_sq_b),
            dot: tree(&self.dot),
            mismatched: self.mismatched,
            nonfinite_mismatched: self.nonfinite_mismatched,
        }
    }
}

/// The sum of 16 lanes in one fixed order: pairs, then quads, then halves.
#[inline]
pub(crate) fn tree(l: &[f64; LANES]) -> f64 {
    let q = |i: usize| (l[i] + l[i + 1]) + (l[i + 2] + l[i + 3]);
    (q(0) + q(4)) + (q(8) + q(12))
}

/// The first place `j` of a block whose finite difference `|x_j - y_j|` equals `max` (> 0),
/// where `value(j)` gives the pair of decoded values. The block's lanes said some place attains
/// it, so this always finds one; `None` would mean a kernel disagreed with its definition.
#[inline]
pub(crate) fn first_at(n: usize, max: f64, value: impl Fn(usize) -> (f64, f64)) -> Option<usize> {
    (0..n).find(|&j| {
        let (x, y) = value(j);
        x.is_finite() && y.is_finite() && (x - y).abs() == max
    })
}
