//! Unit tests of the `t2d` and vocabulary-size codes (VM014 to VM022).

use super::fixtures::*;
use crate::vocab::Certainty;
use crate::Code;
use crate::{Dtype, Severity};

#[test]
fn vm014_to_vm016_t2d_dtype_bytes_shape() {
    let sel = sorted_selection();
    let mut u8_mask = t2d(VT, &sel);
    u8_mask.dtype = Dtype::U8;
    let a = run(
        Some(&d2t(&offsets(&sel))),
        Some(&u8_mask),
        Some(VD),
        Some(VT),
    );
    assert_eq!(codes(&a), vec![Code::VM014]);
    assert_eq!(a.findings[0].severity(), Severity::Warning);
    let mut short = t2d(VT, &sel);
    short.bytes.truncate(10);
    let a = run(Some(&d2t(&offsets(&sel))), Some(&short), Some(VD), Some(VT));
    assert_eq!(codes(&a), vec![Code::VM015]);
    let a = run(
        Some(&d2t(&offsets(&sel))),
        Some(&t2d(VT, &sel)),
        Some(VD),
        Some(VT + 24),
    );
    assert_eq!(codes(&a), vec![Code::VM016]);
}

#[test]
fn vm017_t2d_count_and_vm018_set_mismatch() {
    let sel = sorted_selection();
    let all: Vec<i64> = (0..VT as i64).collect();
    let a = run(
        Some(&d2t(&offsets(&sel))),
        Some(&t2d(VT, &all)),
        Some(VD),
        Some(VT),
    );
    assert_eq!(codes(&a), vec![Code::VM017, Code::VM018]);
    assert!(a.findings[0].message.contains("all True"));
    let mut other = sel.clone();
    other[0] = 500; // one selected id replaced (500 is not in the selection)
    other.sort_unstable();
    let a = run(
        Some(&d2t(&offsets(&sel))),
        Some(&t2d(VT, &other)),
        Some(VD),
        Some(VT),
    );
    assert_eq!(codes(&a), vec![Code::VM018]);
    assert!(a.findings[0]
        .message
        .contains("1 of the d2t ids are not in t2d (e.g. 0)"));
    assert_eq!(a.certainty, Certainty::Certain, "fell back to rules a-d");
}

#[test]
fn vm019_to_vm022_vocabulary_sizes() {
    let a = run(None, None, Some(VT + 1), Some(VT));
    assert_eq!(codes(&a), vec![Code::VM019]);
    let zeros = vec![0; 50];
    let full: Vec<i64> = (0..50).collect();
    let a = run(
        Some(&d2t(&zeros)),
        Some(&t2d(50, &full)),
        Some(50),
        Some(50),
    );
    assert_eq!(codes(&a), vec![Code::VM020]);
    let mut perm = full.clone();
    perm.swap(3, 4);
    let a = run(Some(&d2t(&offsets(&perm))), None, Some(50), Some(50));
    assert_eq!(codes(&a), vec![Code::VM011, Code::VM021]);
    let sel = sorted_selection();
    let a = run(Some(&d2t(&offsets(&sel))), None, Some(VD), None);
    assert_eq!(codes(&a), vec![Code::VM022]);
}
