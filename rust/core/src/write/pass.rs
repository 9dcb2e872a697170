//! The pass of [`super::write_file`]: the header written and read back through this crate's
//! reader, then every tensor written in pieces to the range that reader gives for its name, each
//! piece read back from the file at once (still in cache) and compared with its source bytes,
//! and the statistics of the bytes read back computed on the way, in the chunks and order of
//! [`crate::stats::compute_stats`] (so they are the statistics a pass over the written file
//! would report). All chunks of all tensors run on one rayon pool. Source pieces are read by
//! offset from the shard's open file into a buffer, not through its map: the kernel's sequential
//! readahead then applies even when the pages are not cached, no page tables are built and torn
//! down, and a write never stops at an unmapped source page (it would zero-fill the page-cache
//! folio it writes into, fault the page in and retry).

use super::{Bytes, Planned, WriteOptions, WrittenTensor};
use crate::error::{Error, Result};
use crate::header::TensorEntry;
use crate::progress::Progress;
use crate::shard::Shard;
use crate::stats::chunk::{ChunkStats, PIECE_QUANTUM};
use crate::stats::partial::Partial;
use crate::stats::DEFAULT_CHUNK_BYTES;
use crate::Severity;
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

/// Bytes written, read back and compared at a time: small enough that the piece read back is
/// still in cache, a multiple of [`PIECE_QUANTUM`] so the statistics see whole blocks.
const PIECE: usize = PIECE_QUANTUM;

/// One unit of parallel work: bytes `start..end` of planned tensor `tensor` (a statistics chunk).
struct Item {
    tensor: usize,
    start: usize,
    end: usize,
}

/// What one chunk produced: its statistics partial and the first offset (within the tensor)
/// where the bytes read back differ from the source, if any.
struct ChunkOut {
    partial: Partial,
    differs_at: Option<usize>,
}

/// Writes `head` and every planned tensor into `file` (`dest`, just created, `total` bytes in
/// all), verifying as described in the module docs; returns one [`WrittenTensor`] per planned one.
pub(super) fn write_and_verify(
    dest: &Path,
    file: &File,
    head: &[u8],
    total: u64,
    planned: &[Planned<'_>],
    opts: &WriteOptions,
    progress: &dyn Progress,
) -> Result<Vec<WrittenTensor>> {
    let io = |e| Error::io(dest, e);
    file.set_len(total).map_err(io)?;
    write_at(file, head, 0).map_err(io)?;
    let written = Shard::open(dest)?;
    let located = locate(dest, &written, planned)?;
    let items = plan(planned, &located);
    let run = || -> Result<Vec<ChunkOut>> {
        items
            .par_iter()
            .map_init(
                || Buffers {
                    source: vec![0u8; PIECE],
                    back: vec![0u8; PIECE],
                    scratch: Vec::new(),
                },
                |buffers, item| {
                    let tensor = &planned[item.tensor];
                    let at = located[item.tensor].as_ref().map_or(0, |&at| at);
                    chunk(file, dest, tensor, at, item, buffers, progress)
                },
            )
            .collect()
    };
    let outs = crate::pool::run_with_threads(opts.threads, run)?;
    Ok(assemble(planned, &located, &items, &outs))
}

/// Where each planned tensor's bytes go (the absolute file offset of its range in the written
/// header, as the reader parsed it), or why it cannot be placed. A header the reader rejects,
/// or one naming tensors that were not planned, is an error.
fn locate(
    dest: &Path,
    written: &Shard,
    planned: &[Planned<'_>],
) -> Result<Vec<std::result::Result<u64, String>>> {
    let unreadable = |reason: String| Error::InvalidCheckpoint {
        path: dest.to_owned(),
        reason,
    };
    let errors: Vec<&str> = written
        .findings
        .iter()
        .filter(|f| f.severity() == Severity::Error)
        .map(|f| f.message.as_str())
        .collect();
    let header = match (&written.header, errors.is_empty()) {
        (Some(h), true) => h,
        _ => {
            return Err(unreadable(format!(
                "the written header reads back as invalid: {errors:?}"
            )))
        }
    };
    if header.tensors.len() != planned.len() {
        return Err(unreadable(format!(
            "the written header holds {} tensors, {} were planned",
            header.tensors.len(),
            planned.len()
        )));
    }
    let by_name: HashMap<&str, &TensorEntry> = header
        .tensors
        .iter()
        .map(|e| (e.name.as_str(), e))
        .collect();
    let place = |p: &Planned<'_>| -> std::result::Result<u64, String> {
        let e = by_name
            .get(p.name)
            .ok_or("it is not in the written header")?;
        if e.dtype != Some(p.dtype) || e.shape.as_deref() != Some(&p.shape[..]) {
            return Err(format!(
                "the written header gives it {:?} {:?}, the source {} {:?}",
                e.dtype.map(|d| d.name()),
                e.shape,
                p.dtype,
                p.shape
            ));
        }
        match e.range {
            Some((b, end)) if written.is_readable(e) && end - b == p.len as u64 => {
                Ok(header.data_start + b)
            }
            _ => Err(format!(
                "its range in the written header {:?} does not hold its {} bytes",
                e.range, p.len
            )),
        }
    };
    Ok(planned.iter().map(place).collect())
}

/// The statistics chunks of every placed tensor, in tensor order then byte order.
fn plan(planned: &[Planned<'_>], located: &[std::result::Result<u64, String>]) -> Vec<Item> {
    let mut items = Vec::new();
    for (tensor, (p, at)) in planned.iter().zip(located).enumerate() {
        if at.is_err() {
            continue;
        }
        let mut start = 0;
        while start < p.len {
            let end = p.len.min(start + DEFAULT_CHUNK_BYTES);
            items.push(Item { tensor, start, end });
            start = end;
        }
    }
    items
}

/// Per-worker buffers of the pass: a source piece, the same piece read back, decode scratch.
struct Buffers {
    source: Vec<u8>,
    back: Vec<u8>,
    scratch: Vec<f64>,
}

/// Writes, reads back, compares and summarises one chunk, a piece at a time.
fn chunk(
    file: &File,
    dest: &Path,
    tensor: &Planned<'_>,
    at: u64,
    item: &Item,
    buffers: &mut Buffers,
    progress: &dyn Progress,
) -> Result<ChunkOut> {
    if progress.is_cancelled() {
        return Err(Error::Cancelled);
    }
    let io = |e| Error::io(dest, e);
    let mut stats = ChunkStats::new(tensor.dtype);
    let mut differs_at = None;
    let mut start = item.start;
    while start < item.end {
        let end = item.end.min(start + PIECE);
        let len = end - start;
        let src: &[u8] = match tensor.bytes {
            Bytes::Owned(bytes) => &bytes[start..end],
            Bytes::Materialized(ref bytes) => &bytes[start..end],
            Bytes::File {
                file: source,
                offset,
            } => {
                let path = tensor.source.map_or(dest, |(p, _)| p);
                let piece = &mut buffers.source[..len];
                read_at(source, piece, offset + start as u64).map_err(|e| Error::io(path, e))?;
                piece
            }
        };
        let offset = at + start as u64;
        write_at(file, src, offset).map_err(io)?;
        let read = &mut buffers.back[..len];
        read_at(file, read, offset).map_err(io)?;
        if differs_at.is_none() && *read != *src {
            let first = read.iter().zip(src).position(|(x, y)| x != y);
            differs_at = Some(start + first.unwrap_or(0));
        }
        stats.feed(read, None, &mut buffers.scratch);
        progress.advance(len as u64);
        start = end;
    }
    Ok(ChunkOut {
        partial: stats.finish(),
        differs_at,
    })
}

/// Merges each tensor's chunk outputs in chunk order into its [`WrittenTensor`].
fn assemble(
    planned: &[Planned<'_>],
    located: &[std::result::Result<u64, String>],
    items: &[Item],
    outs: &[ChunkOut],
) -> Vec<WrittenTensor> {
    let mut next = 0;
    planned
        .iter()
        .zip(located)
        .enumerate()
        .map(|(i, (p, at))| {
            let first = next;
            while next < items.len() && items[next].tensor == i {
                next += 1;
            }
            let mine = &outs[first..next];
            let mut total = Partial::EMPTY;
            for out in mine {
                total.merge(&out.partial);
            }
            let numel = p.shape.iter().product();
            let differs = mine.iter().find_map(|o| o.differs_at);
            let problem = match (at, differs) {
                (Err(why), _) => Some(why.clone()),
                (Ok(_), Some(offset)) => Some(format!(
                    "its bytes read back from the written file differ from the source's at byte {offset}"
                )),
                (Ok(_), None) => None,
            };
            WrittenTensor {
                name: p.name.to_owned(),
                source: p.source.map(|(f, n)| (f.to_owned(), n.to_owned())),
                stats: at.is_ok().then(|| total.finish(p.dtype, numel, None)),
                problem,
            }
        })
        .collect()
}

/// All of `bytes` written at `offset` (positional: threads write their own ranges at once).
fn write_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
    }
    #[cfg(windows)]
    {
        let (mut done, mut at) = (0, offset);
        while done < bytes.len() {
            match std::os::windows::fs::FileExt::seek_write(file, &bytes[done..], at)? {
                0 => return Err(std::io::ErrorKind::WriteZero.into()),
                n => (done, at) = (done + n, at + n as u64),
            }
        }
        Ok(())
    }
}

/// `bytes.len()` bytes read at `offset`.
fn read_at(file: &File, bytes: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, bytes, offset)
    }
    #[cfg(windows)]
    {
        let (mut done, mut at) = (0, offset);
        while done < bytes.len() {
            match std::os::windows::fs::FileExt::seek_read(file, &mut bytes[done..], at)? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => (done, at) = (done + n, at + n as u64),
            }
        }
        Ok(())
    }
}
