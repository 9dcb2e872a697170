//! Empty and scalar tensors, invalid arguments, progress and cancellation, task order.

use super::*;
use crate::{AtomicProgress, Error};

#[test]
fn empty_scalar_and_all_nan_tensors() {
    let empty = compute_stats(
        &[StatsTask {
            dtype: Dtype::F32,
            numel: 0,
            data: &[],
        }],
        &opts(2, 24),
        &NoProgress,
    )
    .unwrap()
    .remove(0);
    assert_eq!((empty.numel, empty.finite, empty.mean), (0, 0, None));
    assert_eq!(empty.hash, Some(hash_bytes(&[], 24)));
    let scalar = one(Dtype::F64, &2.5f64.to_le_bytes(), &opts(1, 24));
    assert_eq!(
        (scalar.mean, scalar.std, scalar.l2),
        (Some(2.5), Some(0.0), Some(2.5))
    );
    let nans = one(Dtype::F8E4M3, &[0x7F, 0xFF], &opts(1, 24));
    assert_eq!((nans.nan, nans.min, nans.std), (2, None, None));
}

#[test]
fn invalid_arguments_are_errors() {
    let bad_len = StatsTask {
        dtype: Dtype::F32,
        numel: 3,
        data: &[0; 8],
    };
    let r = compute_stats(&[bad_len], &StatsOptions::default(), &NoProgress);
    assert!(matches!(r, Err(Error::InvalidArgument(_))));
    let odd_f4 = StatsTask {
        dtype: Dtype::F4,
        numel: 3,
        data: &[0; 2],
    };
    let r = compute_stats(&[odd_f4], &StatsOptions::default(), &NoProgress);
    assert!(matches!(r, Err(Error::InvalidArgument(_))));
    for o in [opts(1, 0), opts(1, 100), opts(0, 24)] {
        assert!(matches!(
            compute_stats(&[], &o, &NoProgress),
            Err(Error::InvalidArgument(_))
        ));
    }
}

#[test]
fn progress_counts_bytes_and_cancellation_stops() {
    let data = vec![0u8; 24 * 1000];
    let task = StatsTask {
        dtype: Dtype::Bf16,
        numel: 12_000,
        data: &data,
    };
    let p = AtomicProgress::default();
    compute_stats(&[task, task], &opts(2, 240), &p).unwrap();
    assert_eq!(p.done(), 2 * data.len() as u64);
    let p = AtomicProgress::default();
    p.cancel();
    assert!(matches!(
        compute_stats(&[task], &opts(2, 240), &p),
        Err(Error::Cancelled)
    ));
    assert_eq!(p.done(), 0);
}

#[test]
fn many_tasks_keep_their_order() {
    let datas: Vec<Vec<u8>> = (0..50u8).map(|i| vec![i; 24 * (i as usize % 5)]).collect();
    let tasks: Vec<StatsTask<'_>> = datas
        .iter()
        .map(|d| StatsTask {
            dtype: Dtype::U8,
            numel: d.len() as u64,
            data: d,
        })
        .collect();
    let out = compute_stats(&tasks, &opts(3, 24), &NoProgress).unwrap();
    for (i, st) in out.iter().enumerate() {
        let n = tasks[i].numel;
        assert_eq!(st.numel, n);
        assert_eq!(st.int_sum, Some(i128::from(n) * i as i128));
        assert_eq!(st.hash, Some(hash_bytes(tasks[i].data, 24)));
    }
}

#[test]
fn releasing_pages_of_a_file_mapping_changes_nothing() {
    use std::io::Write;
    let mut next = rng(17);
    let data: Vec<u8> = (0..24 * 40_000).map(|_| next() as u8 & 0x3F).collect();
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(&data).unwrap();
    // SAFETY: the temporary file is private to this test and not modified while mapped.
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    let mut o = opts(2, 24 * 512);
    let plain = one(Dtype::Bf16, &map, &o);
    o.release_pages = true;
    let released = one(Dtype::Bf16, &map, &o);
    assert_eq!(format!("{plain:?}"), format!("{released:?}"));
    // And the mapping still reads the file's bytes afterwards.
    assert_eq!(&map[..], &data[..]);
}
