//! Speed sanity check (not a test): times `compute_stats` on a large in-memory BF16 buffer against
//! the raw-read floor, one pass summing u64 words over the same bytes with the same threads, and
//! the content hash alone (xxh3-128 of each leaf) on the same threads.
//!
//! Run: `cargo run --release -p eagle3-inspect-core --example stats_speed [GiB] [threads]`
//! (`STATS_DTYPE=F8_E4M3` etc. for another dtype).

use eagle3_inspect_core::stats::{compute_stats, StatsOptions, StatsTask};
use eagle3_inspect_core::{Dtype, NoProgress};
use rayon::prelude::*;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let gib: f64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2.0);
    // 0 = the global rayon pool (size from RAYON_NUM_THREADS), so no pool is built per call.
    let threads: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(2);
    // Optional third argument: repeat only "floor" or "stats" 10 times, or stop after "gen"
    // (to compare task-clock under `perf stat`).
    let only = args.get(3).cloned();
    let len = ((gib * (1u64 << 30) as f64) as usize) / 24 * 24;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(if threads > 0 {
            threads
        } else {
            rayon::current_num_threads()
        })
        .build()
        .unwrap();

    // Normal-ish BF16 weights around 0 with std ~0.02 (the bytes are written, so resident).
    let mut data = vec![0u8; len];
    pool.install(|| {
        data.par_chunks_mut(1 << 20).enumerate().for_each(|(i, c)| {
            let mut s = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            for pair in c.chunks_exact_mut(2) {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let x = ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.07;
                pair.copy_from_slice(&((x.to_bits() >> 16) as u16).to_le_bytes());
            }
        })
    });

    // STATS_DTYPE picks another dtype for the same bytes (F32 and F16 read them as finite
    // values; for 8-bit floats bit 6 is cleared so no byte is a NaN pattern).
    let dtype = std::env::var("STATS_DTYPE")
        .ok()
        .and_then(|d| Dtype::parse(&d))
        .unwrap_or(Dtype::Bf16);
    if dtype.bits() == 8 {
        data.iter_mut().for_each(|b| *b &= 0xBF);
    }

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
    let gbs = |secs: f64| len as f64 / secs / 1e9;
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
    if only.as_deref() == Some("gen") {
        return;
    }
    if only.as_deref() == Some("floor") {
        for _ in 0..10 {
            sink = sink.wrapping_add(floor(&data));
        }
        println!("sink {sink:x}");
        return;
    }
    let (t_floor, c_floor) = best(&mut || sink = sink.wrapping_add(floor(&data)));
    let task = StatsTask {
        dtype,
        numel: len as u64 * 8 / dtype.bits(),
        data: &data,
    };
    let run = |hash: bool| {
        let opts = StatsOptions {
            threads: (threads > 0).then_some(threads),
            hash,
            ..StatsOptions::default()
        };
        let st = compute_stats(&[task], &opts, &NoProgress).unwrap();
        std::hint::black_box(st);
    };
    if only.as_deref() == Some("stats") {
        for _ in 0..10 {
            run(false);
        }
        return;
    }
    let (t_stats, c_stats) = best(&mut || run(false));
    let (t_hash, c_hash) = best(&mut || run(true));
    // The content hash alone, over the same leaves, on the same threads.
    let (t_leaves, c_leaves) = best(&mut || {
        let chunk = eagle3_inspect_core::stats::DEFAULT_CHUNK_BYTES;
        let leaves: Vec<u128> = pool.install(|| {
            data.par_chunks(chunk)
                .map(eagle3_inspect_core::stats::xxh3_128)
                .collect()
        });
        std::hint::black_box(leaves);
    });
    println!("bytes: {len}, threads: {threads} (sink {sink:x})");
    let line = |name: &str, t: f64, c: f64| {
        println!(
            "{name:<18} {:6.2} GB/s wall, ratio {:.2}; {:6.2} GB per CPU-second, ratio {:.2}",
            gbs(t),
            t_floor / t,
            gbs(c),
            c_floor / c
        )
    };
    line("floor (sum u64)", t_floor, c_floor);
    line(&format!("stats {dtype}"), t_stats, c_stats);
    line(&format!("stats {dtype} + hash"), t_hash, c_hash);
    line("hash alone", t_leaves, c_leaves);
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
