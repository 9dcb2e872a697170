//! Planning a diff pass: validating the pairs, fixing each pair's tolerance and comparability,
//! and cutting every comparable pair into fixed element chunks (independent of thread count).

use super::tolerance::pair_tolerance;
use super::types::{DiffOptions, PairTask};
use crate::{Dtype, Error, Result};

/// One chunk: which pair, which elements.
pub(crate) struct Item {
    pub pair: usize,
    pub start: u64,
    pub end: u64,
}

/// Per-pair facts fixed before the pass.
pub(crate) struct Plan {
    /// Values can be compared element by element (equal counts, not C64 against a real dtype).
    pub comparable: bool,
    /// Element count of A.
    pub numel: u64,
    /// `(rtol, atol)`: the caller's overrides, else the looser of the two dtypes' defaults.
    pub tol: (f64, f64),
}

/// Checks the options and every side's byte length, and fixes each pair's [`Plan`].
pub(crate) fn validate(pairs: &[PairTask<'_>], opts: &DiffOptions) -> Result<Vec<Plan>> {
    if opts.chunk_bytes == 0 {
        return Err(Error::InvalidArgument(
            "chunk_bytes must be positive".into(),
        ));
    }
    if opts.threads == Some(0) {
        return Err(Error::InvalidArgument("threads must be at least 1".into()));
    }
    for (what, t) in [("rtol", opts.rtol), ("atol", opts.atol)] {
        if let Some(t) = t.filter(|t| !(t.is_finite() && *t >= 0.0)) {
            return Err(Error::InvalidArgument(format!(
                "{what} must be a finite number >= 0, got {t}"
            )));
        }
    }
    let mut plans = Vec::with_capacity(pairs.len());
    for (i, p) in pairs.iter().enumerate() {
        let mut numel = [0u64; 2];
        for (k, (side, name)) in [(&p.a, "a"), (&p.b, "b")].into_iter().enumerate() {
            let n = side.numel();
            let want = n.and_then(|n| side.dtype.byte_len(n));
            if want != Some(side.data.len() as u64) {
                return Err(Error::InvalidArgument(format!(
                    "pair {i} side {name}: shape {:?} of {} does not fit {} bytes",
                    side.shape,
                    side.dtype,
                    side.data.len()
                )));
            }
            numel[k] = n.unwrap_or(0);
        }
        let (rtol, atol) = pair_tolerance(p.a.dtype, p.b.dtype);
        plans.push(Plan {
            comparable: numel[0] == numel[1]
                && (p.a.dtype == Dtype::C64) == (p.b.dtype == Dtype::C64),
            numel: numel[0],
            tol: (opts.rtol.unwrap_or(rtol), opts.atol.unwrap_or(atol)),
        });
    }
    Ok(plans)
}

/// Elements per chunk: about `chunk_bytes` of the wider side, a positive multiple of 4 (so every
/// chunk boundary is a byte boundary on both sides, F4 and F6 included).
fn chunk_elems(a: Dtype, b: Dtype, chunk_bytes: usize) -> u64 {
    let bits = a.bits().max(b.bits());
    let elems = (chunk_bytes as u64).saturating_mul(8) / bits / 4 * 4;
    elems.max(4)
}

/// Fixed chunks of every comparable pair, in pair order then element order.
pub(crate) fn plan_items(pairs: &[PairTask<'_>], plans: &[Plan], chunk_bytes: usize) -> Vec<Item> {
    let mut items = Vec::new();
    for (pair, (p, plan)) in pairs.iter().zip(plans).enumerate() {
        if !plan.comparable {
            continue;
        }
        let step = chunk_elems(p.a.dtype, p.b.dtype, chunk_bytes);
        let mut start = 0;
        while start < plan.numel {
            let end = plan.numel.min(start.saturating_add(step));
            items.push(Item { pair, start, end });
            start = end;
        }
    }
    items
}
