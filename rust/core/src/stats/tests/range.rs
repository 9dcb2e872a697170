//! Statistics at the edges of f64's range: sums and squares that would overflow (values near
//! f64::MAX) or underflow (subnormals), through every chunking, thread count and kernel path.
//! The exact references here are closed forms; `tests/test_stats_reference.py` checks random
//! extreme mixes of every dtype against exact rational arithmetic.

use super::*;

fn f64_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn close(a: Option<f64>, b: f64, tol: f64) -> bool {
    let a = a.unwrap();
    a == b || (a - b).abs() <= tol * b.abs()
}

#[test]
fn values_near_f64_max_keep_a_finite_mean_std_and_l2() {
    let big = f64::MAX * 0.75;
    for (chunk, threads) in [(24, 1), (48, 2), (DEFAULT_CHUNK_BYTES, 2)] {
        let o = opts(threads, chunk);
        let same = one(Dtype::F64, &f64_bytes(&[big; 40]), &o);
        assert_eq!((same.mean, same.std), (Some(big), Some(0.0)));
        assert_eq!(same.l2, Some(f64::INFINITY), "true L2 exceeds f64");
        let pm: Vec<f64> = (0..40)
            .map(|i| if i % 2 == 0 { big } else { -big })
            .collect();
        let s = one(Dtype::F64, &f64_bytes(&pm), &o);
        assert!(s.mean.unwrap().abs() <= 1e-15 * big, "{:?}", s.mean);
        assert!(close(s.std, big, 1e-15), "{:?}", s.std);
        let top = one(Dtype::F64, &f64_bytes(&[f64::MAX, f64::MAX]), &o);
        assert_eq!((top.mean, top.std), (Some(f64::MAX), Some(0.0)));
    }
}

#[test]
fn l2_of_large_and_tiny_values_is_neither_inf_nor_zero() {
    let o = opts(1, 24);
    let s = one(Dtype::F64, &f64_bytes(&[1e200, 1e200]), &o);
    assert!(
        close(s.l2, 1e200 * std::f64::consts::SQRT_2, 1e-15),
        "{:?}",
        s.l2
    );
    let t = one(Dtype::F64, &f64_bytes(&[1e-200, 2e-200]), &o);
    assert!(close(t.l2, 5f64.sqrt() * 1e-200, 1e-15), "{:?}", t.l2);
    assert!(close(t.std, 0.5e-200, 1e-15), "{:?}", t.std);
    // Subnormals: x = 2^-1064 has 10 significant bits left; squares of it are 0 in f64.
    let x = f64::from_bits(1 << 10);
    let sub = one(Dtype::F64, &f64_bytes(&[x, x, 0.0, 0.0]), &o);
    assert_eq!((sub.mean, sub.std), (Some(x / 2.0), Some(x / 2.0)));
    assert!(
        close(sub.l2, x * std::f64::consts::SQRT_2, 1e-3),
        "{:?}",
        sub.l2
    );
}

#[test]
fn a_few_huge_values_among_ordinary_ones_are_handled_across_blocks() {
    // 10,000 ones then two values at the top: a merge, not a block, overflows.
    let mut v = vec![1.0; 10_000];
    v.extend([f64::MAX, f64::MAX]);
    let n = v.len() as f64;
    let p = 2.0 / n;
    for chunk in [24 * 100, DEFAULT_CHUNK_BYTES] {
        let s = one(Dtype::F64, &f64_bytes(&v), &opts(2, chunk));
        assert!(close(s.mean, f64::MAX * p, 1e-12), "{:?}", s.mean);
        // Two-point distribution: variance p(1-p)(MAX-1)².
        assert!(
            close(s.std, f64::MAX * (p * (1.0 - p)).sqrt(), 1e-12),
            "{:?}",
            s.std
        );
        assert_eq!(s.l2, Some(f64::INFINITY));
    }
}

#[test]
fn rescaled_results_agree_across_threads_and_kernel_paths() {
    let mut next = rng(7);
    let v: Vec<f64> = (0..20_000)
        .map(|_| {
            let r = next();
            let m = (r >> 12) as f64 / (1u64 << 52) as f64;
            match r % 3 {
                0 => m * f64::MAX,
                1 => -m * f64::MAX,
                _ => m * 1e-310,
            }
        })
        .collect();
    let data = f64_bytes(&v);
    let a = one(Dtype::F64, &data, &opts(1, 24 * 50));
    let b = one(Dtype::F64, &data, &opts(3, 24 * 50));
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert!(a.mean.unwrap().is_finite() && a.std.unwrap().is_finite());
}
