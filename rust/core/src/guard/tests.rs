//! A truncated guarded mapping reads zeros and records the fault instead of killing the process.

use super::Guard;
use std::io::Write;

#[test]
fn a_read_past_a_truncation_is_recorded_not_fatal() {
    let page = 4096usize;
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(&vec![7u8; 8 * page]).unwrap();
    // SAFETY: the temporary file is private to this test; truncating it while mapped is the point.
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    let guard = Guard::register(map.as_ptr(), map.len());
    assert_eq!(guard.first_fault(), None);
    assert_eq!(map[5 * page], 7);
    file.set_len(3 * page as u64).unwrap();
    let tail: u64 = map[4 * page..].iter().map(|&b| u64::from(b)).sum();
    assert_eq!(tail, 0, "pages past the new end read as zeros");
    let fault = guard.first_fault().expect("the fault was recorded");
    assert!(
        (3 * page as u64..8 * page as u64).contains(&fault),
        "{fault}"
    );
    assert_eq!(map[page], 7, "pages before the truncation are untouched");
}

#[test]
fn slots_are_reused_and_many_mappings_can_be_guarded() {
    let data = [1u8; 64];
    let guards: Vec<Guard> = (0..600)
        .map(|i| Guard::register(data.as_ptr().wrapping_add(i % 64), 1))
        .collect();
    assert!(guards.iter().all(|g| g.first_fault().is_none()));
    drop(guards);
    let again = Guard::register(data.as_ptr(), data.len());
    assert_eq!(again.first_fault(), None);
}
