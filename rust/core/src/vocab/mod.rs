//! The `d2t`/`t2d` vocabulary-mapping analysis of EAGLE-3 drafters.
//!
//! A drafter with a reduced vocabulary (Vd < Vt) maps draft id `i` to target id
//! `d2t[i] + i` in every engine; `t2d` is the boolean mask of the selected target ids.
//! [`analyze_vocab`] decodes both tensors, decides whether `d2t` holds offsets or (wrongly)
//! absolute ids, and reports every VM finding (`crate::Code`'s VM codes); [`compare_mappings`] tells
//! whether two checkpoints draft the same target token for every draft id.

mod analyze;
mod compare;
mod d2t;
mod encoding;
mod ids;
mod mapping;
mod messages;
mod raw;
mod report;
mod t2d;

#[cfg(test)]
mod tests;

pub use analyze::{analyze_vocab, VocabAnalysis, VocabInputs};
pub use compare::{compare_mappings, MappingComparison, SlotDifference};
pub use encoding::{Certainty, Encoding, RULE_C_THRESHOLD};
pub use raw::{RawTensor, MAX_VOCAB_ELEMENTS};
