//! Property tests: no panic on arbitrary input, counts add up, chunking and threads agree.

use super::*;
use crate::Error;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn arbitrary_inputs_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        dtype_index in 0..Dtype::ALL.len(),
        numel in prop_oneof![0u64..700, any::<u64>()],
    ) {
        let dtype = Dtype::ALL[dtype_index];
        let task = StatsTask { dtype, numel, data: &bytes };
        match compute_stats(&[task], &opts(2, 48), &NoProgress) {
            Ok(st) => {
                let st = &st[0];
                prop_assert_eq!(dtype.byte_len(numel), Some(bytes.len() as u64));
                prop_assert_eq!(st.nan + st.posinf + st.neginf + st.finite, numel);
                prop_assert!(st.zeros <= st.finite);
            }
            Err(e) => {
                prop_assert!(matches!(e, Error::InvalidArgument(_)));
                prop_assert_ne!(dtype.byte_len(numel), Some(bytes.len() as u64));
            }
        }
    }

    #[test]
    fn chunking_and_threads_agree(
        bytes in proptest::collection::vec(any::<u8>(), 0..4000),
        dtype_index in 0..Dtype::ALL.len(),
        quanta in 1usize..20,
        threads in 1usize..5,
    ) {
        let dtype = Dtype::ALL[dtype_index];
        let unit = crate::elements::unit_bytes(dtype);
        let data = &bytes[..bytes.len() / unit * unit];
        let a = one(dtype, data, &opts(1, 24 * quanta));
        let b = one(dtype, data, &opts(threads, 24 * quanta));
        prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
        // Another chunking changes at most rounding: counts exact, moments within 1e-9.
        let c = one(dtype, data, &opts(threads, DEFAULT_CHUNK_BYTES));
        prop_assert_eq!((a.nan, a.posinf, a.neginf, a.zeros, a.finite), (c.nan, c.posinf, c.neginf, c.zeros, c.finite));
        prop_assert_eq!((a.min, a.max, a.int_sum), (c.min, c.max, c.int_sum));
        // Random F64 bits reach 1e308, where squares overflow f64: means and stds stay finite.
        if let (Some(x), Some(y)) = (a.std, c.std) {
            prop_assert!(x.is_finite() && y.is_finite() && a.mean.is_some_and(f64::is_finite));
            let scale = a.abs_max.unwrap_or(0.0);
            prop_assert!((x - y).abs() <= 1e-9 * scale.max(f64::MIN_POSITIVE));
        }
    }
}
