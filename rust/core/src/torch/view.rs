//! A tensor that is not one contiguous, native-order run of file bytes: a strided view of its
//! storage (a transposed or sliced tensor, a storage offset that skips elements), a storage of a
//! big-endian file, or a storage in a deflated zip record. Its logical bytes (row-major,
//! little-endian, what safetensors would hold) are materialized on read; statistics, hashes,
//! diffs and `fix` all see those, so a strided tensor reads as the values it has, not as the
//! bytes its storage happens to hold.

use std::fmt;

/// Where a storage's bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// In the file as they are: offsets are absolute file offsets.
    File,
    /// In a deflated zip record whose compressed bytes start at `at`: offsets are into the
    /// inflated record of `size` bytes.
    Deflated {
        /// Absolute offset of the compressed bytes.
        at: u64,
        /// Compressed length.
        compressed: u64,
        /// Inflated length.
        size: u64,
    },
}

/// How to read a tensor's logical bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Layout {
    /// Where the storage's bytes are.
    pub base: Base,
    /// Offset of element 0 in the base.
    pub start: u64,
    /// Sizes.
    pub shape: Vec<u64>,
    /// Strides, in elements.
    pub strides: Vec<u64>,
    /// Bytes per element.
    pub elsize: u64,
    /// True when each element's bytes must be reversed (a big-endian file).
    pub swap: bool,
    /// True for bools read through a copy (a strided view): torch's copy writes each as 0 or
    /// 1, so a stored byte other than those reads as 1, as `tensor.contiguous()` gives it.
    pub bools: bool,
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Layout({:?} @{} shape {:?} strides {:?} x{}{})",
            self.base,
            self.start,
            self.shape,
            self.strides,
            self.elsize,
            if self.swap { " swapped" } else { "" }
        )
    }
}

/// The most bytes a deflated record inflates to (the same cap as a pickle record's data).
pub const INFLATE_CAP: u64 = 16 << 30;

/// True when `strides` are the row-major contiguous strides of `shape` (dimensions of size 1
/// may have any stride, as for torch's `is_contiguous`).
pub fn is_contiguous(shape: &[u64], strides: &[u64]) -> bool {
    let mut expected = 1u64;
    for (&d, &s) in shape.iter().zip(strides).rev() {
        if d == 0 {
            return true;
        }
        if d != 1 && s != expected {
            return false;
        }
        expected = match expected.checked_mul(d) {
            Some(e) => e,
            None => return false,
        };
    }
    true
}

/// The number of elements from the first to the last one a view touches, plus one (0 for an
/// empty view); `None` on overflow.
pub fn span_elements(shape: &[u64], strides: &[u64]) -> Option<u64> {
    if shape.contains(&0) {
        return Some(0);
    }
    shape
        .iter()
        .zip(strides)
        .try_fold(1u64, |acc, (&d, &s)| acc.checked_add(s.checked_mul(d - 1)?))
}

/// Inflates a raw-deflate record of exactly `size` bytes.
pub fn inflate(compressed: &[u8], size: u64) -> Result<Vec<u8>, String> {
    if size > INFLATE_CAP {
        return Err(format!(
            "a deflated record of {size} bytes is over the {INFLATE_CAP}-byte cap"
        ));
    }
    let limit = usize::try_from(size).map_err(|_| "record too large".to_owned())?;
    // As torch's miniz extracts into a buffer of the declared size: what would inflate past it
    // is not read.
    let out = match miniz_oxide::inflate::decompress_to_vec_with_limit(compressed, limit) {
        Ok(out) => out,
        Err(e) if e.status == miniz_oxide::inflate::TINFLStatus::HasMoreOutput => e.output,
        Err(e) => {
            return Err(format!(
                "the deflated record does not inflate ({:?})",
                e.status
            ))
        }
    };
    if out.len() as u64 != size {
        return Err(format!(
            "the deflated record inflates to {} bytes, not the {size} its directory entry says",
            out.len()
        ));
    }
    Ok(out)
}

/// The largest deflated record checked by inflating it whole.
const WHOLE_CHECK_CAP: u64 = 256 << 20;

/// Checks that a raw-deflate record inflates to exactly `size` bytes: whole up to
/// `WHOLE_CHECK_CAP`, past it through a 32 KiB window (no allocation of the record); done once
/// when the archive is opened, so a record that would fail to inflate is a finding then, never
/// a failed read in the middle of a data pass.
pub fn check_inflates(compressed: &[u8], size: u64) -> Result<(), String> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
    // A wrapping window cannot tell a back-reference to before the record's start (which
    // `inflate`, reading into the whole record, refuses): records up to this size are checked
    // by inflating them as a read does (fuzz case 12115 of seed 3).
    if size <= WHOLE_CHECK_CAP {
        return inflate(compressed, size).map(|_| ());
    }
    use miniz_oxide::inflate::TINFLStatus;
    const WINDOW: usize = 32 << 10;
    let mut state = DecompressorOxide::new();
    let mut window = vec![0u8; WINDOW];
    let (mut input, mut out_pos, mut total) = (compressed, 0usize, 0u64);
    loop {
        let flags = if input.is_empty() {
            0
        } else {
            inflate_flags::TINFL_FLAG_HAS_MORE_INPUT
        };
        let (status, read, written) = decompress(&mut state, input, &mut window, out_pos, flags);
        input = &input[read..];
        total += written as u64;
        out_pos = (out_pos + written) % WINDOW;
        if total >= size {
            // torch's miniz extracts into a buffer of the declared size: what would inflate
            // past it is never read.
            return Ok(());
        }
        match status {
            TINFLStatus::Done => break,
            TINFLStatus::HasMoreOutput => continue,
            TINFLStatus::NeedsMoreInput if !input.is_empty() => continue,
            other => return Err(format!("the deflated record does not inflate ({other:?})")),
        }
    }
    if total != size {
        return Err(format!(
            "the deflated record inflates to {total} bytes, not the {size} its directory entry says"
        ));
    }
    Ok(())
}

impl Layout {
    /// The tensor's logical bytes from `bytes`, the file bytes from absolute offset `origin`
    /// on (for a file base: at least the view's span; for a deflated base: the whole record).
    pub fn materialize(&self, bytes: &[u8], origin: u64) -> Result<Vec<u8>, String> {
        let inflated;
        let (src, origin) = match &self.base {
            Base::File => (bytes, origin),
            Base::Deflated { size, .. } => {
                inflated = inflate(bytes, *size)?;
                (&inflated[..], 0)
            }
        };
        let numel = self
            .shape
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .ok_or("the tensor's size overflows")?;
        let total = numel
            .checked_mul(self.elsize)
            .and_then(|t| usize::try_from(t).ok())
            .ok_or("the tensor's size overflows")?;
        let mut out = Vec::with_capacity(total);
        if numel == 0 {
            return Ok(out);
        }
        let start = self
            .start
            .checked_sub(origin)
            .ok_or("the view starts before the bytes read")?;
        let span = span_elements(&self.shape, &self.strides)
            .and_then(|s| s.checked_mul(self.elsize))
            .and_then(|s| s.checked_add(start))
            .ok_or("the view's span overflows")?;
        if span > src.len() as u64 {
            return Err("the view runs past the bytes read".into());
        }
        self.gather(src, start, &mut out);
        if self.bools {
            for b in &mut out {
                *b = u8::from(*b != 0);
            }
        }
        if self.swap && self.elsize > 1 {
            for element in out.chunks_exact_mut(self.elsize as usize) {
                element.reverse();
            }
        }
        Ok(out)
    }

    /// Appends the elements in row-major order; the innermost dimension is copied as one run
    /// when its stride is 1. Offsets were checked against `src` by the caller.
    fn gather(&self, src: &[u8], start: u64, out: &mut Vec<u8>) {
        let e = self.elsize as usize;
        let dims = self.shape.len();
        if dims == 0 {
            let at = start as usize;
            out.extend_from_slice(&src[at..at + e]);
            return;
        }
        let (inner, inner_stride) = (self.shape[dims - 1], self.strides[dims - 1]);
        let mut index = vec![0u64; dims - 1];
        loop {
            let base = start
                + index
                    .iter()
                    .zip(&self.strides)
                    .map(|(&i, &s)| i * s * self.elsize)
                    .sum::<u64>();
            if inner_stride == 1 {
                let at = base as usize;
                out.extend_from_slice(&src[at..at + inner as usize * e]);
            } else {
                for j in 0..inner {
                    let at = (base + j * inner_stride * self.elsize) as usize;
                    out.extend_from_slice(&src[at..at + e]);
                }
            }
            // Odometer over the outer dimensions.
            let mut d = dims - 1;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                index[d] += 1;
                if index[d] < self.shape[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn layout(start: u64, shape: &[u64], strides: &[u64], elsize: u64) -> Layout {
        Layout {
            base: Base::File,
            start,
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            elsize,
            swap: false,
            bools: false,
        }
    }

    #[test]
    fn bools_read_through_a_copy_are_0_or_1_as_torchs_copy_writes_them() {
        // Fuzz case c569d545 of seed 3: a bool storage byte of 197 under a transpose.
        let mut l = layout(0, &[2, 2], &[1, 2], 1);
        l.bools = true;
        assert_eq!(l.materialize(&[0, 197, 1, 0], 0).unwrap(), vec![0, 1, 1, 0]);
    }

    #[test]
    fn a_transpose_reads_as_its_logical_values() {
        // storage 0..6 as u8; the 3x2 transpose of the 2x3 row-major matrix.
        let storage: Vec<u8> = (0..6).collect();
        let t = layout(0, &[3, 2], &[1, 3], 1);
        assert_eq!(t.materialize(&storage, 0).unwrap(), vec![0, 3, 1, 4, 2, 5]);
        assert!(!is_contiguous(&[3, 2], &[1, 3]));
        assert!(is_contiguous(&[2, 3], &[3, 1]));
        assert!(is_contiguous(&[1, 3], &[99, 1]));
        assert!(is_contiguous(&[2, 0], &[7, 7]));
    }

    #[test]
    fn an_offset_slice_with_a_step_and_a_swap() {
        let storage: Vec<u8> = (0..16).collect();
        let mut t = layout(100 + 2, &[3], &[2], 2);
        t.swap = true;
        // elements at byte 2, 6, 10 of the storage placed at file offset 100.
        assert_eq!(
            t.materialize(&storage, 100).unwrap(),
            vec![3, 2, 7, 6, 11, 10]
        );
        let short = layout(100, &[9], &[1], 2);
        assert!(short.materialize(&storage, 100).is_err());
        assert!(layout(99, &[1], &[1], 1)
            .materialize(&storage, 100)
            .is_err());
    }

    #[test]
    fn scalars_and_empty_views() {
        let storage = [9u8, 8, 7, 6];
        assert_eq!(
            layout(2, &[], &[], 2).materialize(&storage, 0).unwrap(),
            vec![7, 6]
        );
        assert!(layout(2, &[0, 5], &[5, 1], 2)
            .materialize(&storage, 0)
            .unwrap()
            .is_empty());
        assert_eq!(span_elements(&[0, 5], &[5, 1]), Some(0));
        assert_eq!(span_elements(&[2, 3], &[3, 1]), Some(6));
        assert_eq!(span_elements(&[u64::MAX, 3], &[u64::MAX, 1]), None);
    }

    #[test]
    fn a_back_reference_to_before_the_record_fails_the_check_as_it_fails_a_read() {
        // Fixed Huffman: a 3-byte match at distance 1 before any byte was written.
        let stream = [3u8, 2, 0];
        assert!(inflate(&stream, 3).is_err());
        assert!(check_inflates(&stream, 3).is_err());
    }

    #[test]
    fn deflated_records_inflate_to_their_declared_size_only() {
        let plain: Vec<u8> = (0..64u8).collect();
        let packed = miniz_oxide::deflate::compress_to_vec(&plain, 6);
        let mut t = layout(4, &[2, 2], &[1, 2], 1);
        t.base = Base::Deflated {
            at: 0,
            compressed: packed.len() as u64,
            size: 64,
        };
        assert_eq!(t.materialize(&packed, 0).unwrap(), vec![4, 6, 5, 7]);
        assert!(check_inflates(&packed, 64).is_ok());
        assert!(check_inflates(&packed, 63).is_ok(), "the rest is not read");
        assert!(check_inflates(&packed, 65).is_err());
        assert!(check_inflates(b"not deflate", 10).is_err());
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let packed_big = miniz_oxide::deflate::compress_to_vec(&big, 6);
        assert!(check_inflates(&packed_big, big.len() as u64).is_ok());
        assert_eq!(inflate(&packed, 63).unwrap(), plain[..63]);
        assert!(inflate(&packed, 65).is_err());
        assert!(inflate(&packed, 65).is_err());
        assert!(inflate(b"not deflate", 10).is_err());
    }

    proptest! {
        /// Gathering through any strides equals indexing element by element.
        #[test]
        fn gather_equals_indexing(
            shape in proptest::collection::vec(1u64..4, 0..4),
            seed in proptest::collection::vec(1u64..5, 4),
            offset in 0u64..5,
            elsize in prop_oneof![Just(1u64), Just(2), Just(4)],
        ) {
            let strides: Vec<u64> = shape.iter().zip(&seed).map(|(_, &s)| s).collect();
            let span = span_elements(&shape, &strides).unwrap();
            let bytes: Vec<u8> = (0..((offset + span) * elsize) as usize).map(|i| i as u8).collect();
            let t = layout(offset * elsize, &shape, &strides, elsize);
            let got = t.materialize(&bytes, 0).unwrap();
            let numel: u64 = shape.iter().product();
            let mut want = Vec::new();
            for flat in 0..numel {
                let mut rem = flat;
                let mut at = offset;
                for (d, &n) in shape.iter().enumerate().rev() {
                    at += (rem % n) * strides[d];
                    rem /= n;
                }
                let b = (at * elsize) as usize;
                want.extend_from_slice(&bytes[b..b + elsize as usize]);
            }
            prop_assert_eq!(got, want);
        }
    }
}
