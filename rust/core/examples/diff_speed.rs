//! Speed sanity check (not a test): times `compare_pairs` on an in-memory BF16 pair (side B is
//! side A with every element nudged, so no chunk is bytewise equal) against the raw-read floor,
//! one pass summing u64 words over both sides with the same threads.
//!
//! Run: `cargo run --release -p eagle3-inspect-core --example diff_speed [GiB total] [threads]`
//! (`DIFF_DTYPE=F16` or `F32` reads the same bytes as another dtype; `DIFF_PATTERN=lowbit` or
//! `step` changes how side B differs, see `Pattern`).

use eagle3_inspect_core::diff::{compare_pairs, DiffOptions, PairSide, PairTask};
use eagle3_inspect_core::{Dtype, NoProgress};
use rayon::prelude::*;
use std::time::Instant;

/// How side B differs from side A (`DIFF_PATTERN`): `mixed` (default; below), `lowbit`, `step`.
#[derive(Clone, Copy)]
enum Pattern {
    LowBit,
    Step,
    Mixed,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let gib: f64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let threads: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(2);
    let side_len = ((gib / 2.0 * (1u64 << 30) as f64) as usize) / 8 * 8;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();

    let pattern = match std::env::var("DIFF_PATTERN").as_deref() {
        Ok("lowbit") => Pattern::LowBit,
        Ok("step") => Pattern::Step,
        _ => Pattern::Mixed,
    };
    // Normal-ish BF16 weights around 0; B flips the low mantissa bit of each element and, for
    // about one in 64, a higher one (some places then fall outside the BF16 tolerance).
    let mut a = vec![0u8; side_len];
    let mut b = vec![0u8; side_len];
    pool.install(|| {
        a.par_chunks_mut(1 << 20)
            .zip(b.par_chunks_mut(1 << 20))
            .enumerate()
            .for_each(|(i, (ca, cb))| {
                let mut s = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                for (pa, pb) in ca.chunks_exact_mut(2).zip(cb.chunks_exact_mut(2)) {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    let x = ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.07;
                    let bits = (x.to_bits() >> 16) as u16;
                    let other = match pattern {
                        // Every element one unit off: the benchmark's everywhere-changed copy.
                        Pattern::LowBit => bits ^ 1,
                        // A training step: most elements unchanged or a unit or two off, a few
                        // up to eight.
                        Pattern::Step => {
                            let r = (s >> 8) & 1023;
                            let units = match r {
                                0..=511 => 0,
                                512..=895 => 1,
                                896..=991 => 2,
                                _ => 3 + (r & 7) as u16 % 6,
                            };
                            if s & 1 == 0 {
                                bits.wrapping_add(units)
                            } else {
                                bits.wrapping_sub(units)
                            }
                        }
                        Pattern::Mixed => bits ^ if s & 63 == 0 { 0x0011 } else { 0x0001 },
                    };
                    pa.copy_from_slice(&bits.to_le_bytes());
                    pb.copy_from_slice(&other.to_le_bytes());
                }
            })
    });
    let dtype = std::env::var("DIFF_DTYPE")
        .ok()
        .and_then(|d| Dtype::parse(&d))
        .unwrap_or(Dtype::Bf16);

    let floor = |data: &[u8]| -> u64 {
        pool.install(|| {
            data.par_chunks(6 << 20)
                .map(|c| {
                    c.chunks_exact(8)
                        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
                        .fold(0u64, u64::wrapping_add)
                })
                .reduce(|| 0, u64::wrapping_add)
        })
    };
    // Best of 3 wall-clock times, and the process CPU time of that run (the machine may be
    // shared, so CPU seconds per byte is the steadier comparison).
    let best = |f: &mut dyn FnMut()| {
        (0..3)
            .map(|_| {
                let (t, c) = (Instant::now(), cpu_secs());
                f();
                (t.elapsed().as_secs_f64(), cpu_secs() - c)
            })
            .fold((f64::INFINITY, 0.0), |a, b| if b.0 < a.0 { b } else { a })
    };
    let mut sink = 0u64;
    let (t_floor, c_floor) =
        best(&mut || sink = sink.wrapping_add(floor(&a)).wrapping_add(floor(&b)));
    let shape = [side_len as u64 * 8 / dtype.bits()];
    let task = PairTask {
        a: PairSide {
            dtype,
            shape: &shape,
            data: &a,
        },
        b: PairSide {
            dtype,
            shape: &shape,
            data: &b,
        },
    };
    let opts = DiffOptions {
        threads: Some(threads),
        ..DiffOptions::default()
    };
    let mut last = None;
    let (t_diff, c_diff) =
        best(&mut || last = Some(compare_pairs(&[task], &opts, &NoProgress).unwrap()));
    let total = 2.0 * side_len as f64;
    println!("bytes: {total}, threads: {threads}, {dtype} (sink {sink:x})");
    println!(
        "floor (sum u64)  {:6.2} GB/s wall, {:6.2} GB per CPU-second",
        total / t_floor / 1e9,
        total / c_floor / 1e9
    );
    println!(
        "compare_pairs    {:6.2} GB/s wall, ratio {:.2}; {:6.2} GB per CPU-second, ratio {:.2}",
        total / t_diff / 1e9,
        t_floor / t_diff,
        total / c_diff / 1e9,
        c_floor / c_diff
    );
    if let Some(d) = last.and_then(|mut v| v.pop()) {
        println!(
            "status {:?} max_abs {:?} at {:?} mean {:?} rel_l2 {:?} cos {:?} bad {:?}",
            d.status, d.max_abs, d.max_abs_index, d.mean_abs, d.rel_l2, d.cosine, d.mismatched
        );
    }
}

/// User + system CPU seconds of this process so far.
fn cpu_secs() -> f64 {
    // SAFETY: getrusage only writes the rusage struct we pass.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(usage.ru_utime) + tv(usage.ru_stime)
}
