//! eagle3-inspect core: a strict, parallel, memory-mapped safetensors (and torch.save) reader with per-tensor
//! statistics, d2t/t2d vocab-mapping analysis and numeric diffs, for EAGLE-3 drafter checkpoints.
//!
//! Plain Rust, no Python: the `eagle3-inspect-py` crate is a thin binding over this.
#![deny(missing_docs)]

pub mod checkpoint;
pub mod codes;
pub mod diff;
pub mod dtype;
pub mod elements;
pub mod error;
pub mod fetch;
pub mod finding;
pub mod floor;
pub mod guard;
pub mod header;
pub mod json_depth;
pub mod pages;
pub mod pool;
pub mod progress;
pub mod regular;
pub mod shard;
pub mod source;
pub mod stats;
pub mod torch;
pub mod vocab;
pub mod write;

pub use checkpoint::Checkpoint;
pub use codes::Code;
pub use dtype::Dtype;
pub use error::{Error, Result};
pub use finding::{Finding, Severity};
pub use progress::{AtomicProgress, NoProgress, Progress};
