//! [`compare_pairs`]: plans the pairs (see `plan`), runs a memcmp-first pass over all chunks in
//! parallel (an identical chunk of a pair already seen to differ gets its norms at once, while
//! its bytes are in cache), revisits the identical chunks seen before their pair was known to
//! differ (to add their norms), then merges each pair's chunks in order.

use super::accum::Acc;
use super::kernel::{byte_at, compare_chunk, equal_chunk, Scratch};
use super::plan::{plan_items, validate, Item, Plan};
use super::types::{DiffOptions, PairDiff, PairStatus, PairTask};
use crate::{pages, Dtype, Error, Progress, Result};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a chunk produces: identical bytes (not decoded), or a comparison.
#[derive(Clone, Copy)]
enum Out {
    Same,
    Compared(Acc),
}

/// Compares every pair, returning one [`PairDiff`] per pair in order. See [`crate::diff`] for the
/// method; results are bit-for-bit identical for any thread count.
///
/// Errors: [`Error::InvalidArgument`] for a side whose bytes are not `dtype × numel`, a zero
/// `chunk_bytes`, a negative or non-finite tolerance, or `threads: Some(0)`; [`Error::Cancelled`]
/// when `progress` asks to stop (checked before every chunk).
pub fn compare_pairs(
    pairs: &[PairTask<'_>],
    opts: &DiffOptions,
    progress: &dyn Progress,
) -> Result<Vec<PairDiff>> {
    let plans = validate(pairs, opts)?;
    let items = plan_items(pairs, &plans, opts.chunk_bytes);
    // Set once some chunk of the pair differs. Which identical chunks see it set depends on
    // timing, but not the result: both ways give the same accumulator (`equal_chunk`).
    let differs: Vec<AtomicBool> = pairs.iter().map(|_| AtomicBool::new(false)).collect();
    let run = || -> Result<Vec<Out>> {
        let mut outs: Vec<Out> = items
            .par_iter()
            .map_init(Scratch::default, |s, item| {
                let pass = Pass::First(&differs[item.pair]);
                run_item(pairs, &plans, item, opts, progress, s, pass)
            })
            .collect::<Result<_>>()?;
        let revisit = revisit_list(pairs, &items, &outs);
        let redone: Vec<(usize, Out)> = revisit
            .par_iter()
            .map_init(Scratch::default, |s, &i| {
                let quiet = &NoAdvance(progress);
                run_item(pairs, &plans, &items[i], opts, quiet, s, Pass::Revisit).map(|o| (i, o))
            })
            .collect::<Result<_>>()?;
        for (i, out) in redone {
            outs[i] = out;
        }
        Ok(outs)
    };
    let outs = crate::pool::run_with_threads(opts.threads, run)?;
    Ok(assemble(pairs, &plans, &items, &outs))
}

/// Forwards cancellation but not progress (the revisit pass re-reads bytes already counted).
struct NoAdvance<'a>(&'a dyn Progress);

impl Progress for NoAdvance<'_> {
    fn advance(&self, _bytes: u64) {}
    fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

/// Which pass a chunk runs in.
#[derive(Clone, Copy)]
enum Pass<'a> {
    /// The first pass, with the pair's "some chunk differs" flag.
    First(&'a AtomicBool),
    /// The revisit of a chunk found identical.
    Revisit,
}

fn run_item(
    pairs: &[PairTask<'_>],
    plans: &[Plan],
    item: &Item,
    opts: &DiffOptions,
    progress: &dyn Progress,
    scratch: &mut Scratch,
    pass: Pass<'_>,
) -> Result<Out> {
    if progress.is_cancelled() {
        return Err(Error::Cancelled);
    }
    let p = &pairs[item.pair];
    let (da, db) = (p.a.dtype, p.b.dtype);
    let a = &p.a.data[byte_at(da, item.start)..byte_at(da, item.end)];
    let b = &p.b.data[byte_at(db, item.start)..byte_at(db, item.end)];
    let identical = || da == db && a == b;
    let out = match pass {
        Pass::First(differs) if identical() => {
            if differs.load(Ordering::Relaxed) {
                Out::Compared(equal_chunk(da, p.a.data, item.start, item.end, scratch))
            } else {
                Out::Same
            }
        }
        Pass::First(differs) => {
            differs.store(true, Ordering::Relaxed);
            Out::Compared(compare(p, plans[item.pair].tol, item, scratch))
        }
        // Only chunks found identical are revisited.
        Pass::Revisit => Out::Compared(equal_chunk(da, p.a.data, item.start, item.end, scratch)),
    };
    if opts.release_pages {
        pages::release(a);
        pages::release(b);
    }
    progress.advance((a.len() + b.len()) as u64);
    Ok(out)
}

fn compare(p: &PairTask<'_>, tol: (f64, f64), item: &Item, scratch: &mut Scratch) -> Acc {
    let (a, b) = (&p.a, &p.b);
    compare_chunk(
        a.dtype, a.data, b.dtype, b.data, item.start, item.end, tol, scratch,
    )
}

/// Identical chunks of pairs that are not identical as a whole: their norms are still needed.
fn revisit_list(pairs: &[PairTask<'_>], items: &[Item], outs: &[Out]) -> Vec<usize> {
    let mut differs = vec![false; pairs.len()];
    for (item, out) in items.iter().zip(outs) {
        if matches!(out, Out::Compared(_)) {
            differs[item.pair] = true;
        }
    }
    (0..items.len())
        .filter(|&i| differs[items[i].pair] && matches!(outs[i], Out::Same))
        .collect()
}

/// Merges each pair's chunk outputs in chunk order.
fn assemble(pairs: &[PairTask<'_>], plans: &[Plan], items: &[Item], outs: &[Out]) -> Vec<PairDiff> {
    let mut next = 0;
    pairs
        .iter()
        .zip(plans)
        .enumerate()
        .map(|(i, (p, plan))| {
            let first = next;
            while next < items.len() && items[next].pair == i {
                next += 1;
            }
            let mine = &outs[first..next];
            let all_same = mine.iter().all(|o| matches!(o, Out::Same));
            let mut acc = Acc::EMPTY;
            for out in mine {
                if let Out::Compared(chunk) = out {
                    acc.merge(chunk);
                }
            }
            finish(p, plan, all_same, &acc)
        })
        .collect()
}

fn finish(p: &PairTask<'_>, plan: &Plan, all_same: bool, acc: &Acc) -> PairDiff {
    let same_shape = p.a.shape == p.b.shape;
    let parts = if p.a.dtype == Dtype::C64 { 2 } else { 1 };
    let bytes_equal = plan.comparable && p.a.dtype == p.b.dtype && all_same;
    let status = if bytes_equal && same_shape {
        PairStatus::Equal
    } else if plan.comparable && same_shape && acc.mismatched == 0 {
        PairStatus::Close
    } else {
        PairStatus::Differ
    };
    let compared = plan.comparable.then_some(());
    let located = (acc.max_abs > 0.0).then_some(acc.max_index);
    let (rtol, atol) = plan.tol;
    PairDiff {
        status,
        bytes_equal,
        numel: plan.numel.saturating_mul(parts),
        rtol,
        atol,
        max_abs: compared.map(|()| acc.max_abs),
        max_abs_index: located,
        max_abs_at: located.map(|i| unravel(i / parts, p.a.shape)),
        mean_abs: compared.map(|()| acc.mean_abs()),
        rel_l2: compared.and_then(|()| acc.rel_l2()),
        cosine: compared.and_then(|()| acc.cosine()),
        mismatched: compared.map(|()| acc.mismatched),
        nonfinite_mismatched: compared.map(|()| acc.nonfinite_mismatched),
    }
}

/// The row-major multi-index of flat index `flat` in `shape`.
fn unravel(mut flat: u64, shape: &[u64]) -> Vec<u64> {
    let mut at = vec![0; shape.len()];
    for (slot, &dim) in at.iter_mut().zip(shape).rev() {
        if dim > 0 {
            *slot = flat % dim;
            flat /= dim;
        }
    }
    at
}
