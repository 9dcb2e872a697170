//! A zip reader for what `torch.save` writes (miniz: stored entries, data descriptors, zip64 past
//! 4 GiB): the end-of-central-directory record (found from the end of the file, so a ranged
//! reader needs only the file's tail), the central directory, and each entry's local header,
//! which says where its data starts. Every offset and length is checked against the file; the
//! directory's size and entry count are capped.

use super::bytes::FileBytes;

/// The most central-directory entries read (a million-tensor state dict has a million records).
pub const ENTRY_CAP: u64 = 1 << 21;
/// The largest central directory read.
pub const DIRECTORY_CAP: u64 = 256 << 20;

const EOCD_SIG: u32 = 0x0605_4b50;
const ZIP64_LOCATOR_SIG: u32 = 0x0706_4b50;
const ZIP64_EOCD_SIG: u32 = 0x0606_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const LOCAL_SIG: u32 = 0x0403_4b50;
const EOCD_LEN: u64 = 22;
const LOCAL_LEN: u64 = 30;

/// A structural problem, with the absolute byte offset it is at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZipError {
    /// What is wrong.
    pub why: String,
    /// Where.
    pub at: u64,
}

fn err<T>(why: impl Into<String>, at: u64) -> Result<T, ZipError> {
    Err(ZipError {
        why: why.into(),
        at,
    })
}

/// One central-directory entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The name (as UTF-8; a name that is not is kept with replacement characters).
    pub name: String,
    /// Compression method (0 stored, 8 deflate).
    pub method: u16,
    /// General-purpose flags.
    pub flags: u16,
    /// Compressed size.
    pub compressed: u64,
    /// Uncompressed size.
    pub size: u64,
    /// Offset of the local header.
    pub local: u64,
    /// Offset of this central-directory entry (for findings).
    pub at: u64,
}

impl Entry {
    /// True when the entry is encrypted (flag bits 0 and 6: miniz refuses both).
    pub fn encrypted(&self) -> bool {
        self.flags & 0x41 != 0
    }

    /// True when the entry is a compressed patch (flag bit 5), which miniz does not read.
    pub fn patch(&self) -> bool {
        self.flags & 0x20 != 0
    }
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn read<'a>(
    bytes: &'a dyn FileBytes,
    offset: u64,
    len: u64,
    what: &str,
) -> Result<std::borrow::Cow<'a, [u8]>, ZipError> {
    bytes.read(offset, len).map_err(|why| ZipError {
        why: format!("{what}: {why}"),
        at: offset.min(bytes.len()),
    })
}

/// Where the central directory is and how many entries it has.
struct End {
    entries: u64,
    size: u64,
    offset: u64,
    /// Offset of the (first) end record: the directory must end before it.
    at: u64,
    /// This disk's number and the directory's disk number.
    disks: (u64, u64),
    /// The entries on this disk.
    on_disk: u64,
}

/// True when the file's first bytes are a zip local header (what `torch.save` files start with).
pub fn looks_like_zip(prefix: &[u8]) -> bool {
    prefix.len() >= 4 && le32(prefix, 0) == LOCAL_SIG
}

fn find_end(bytes: &dyn FileBytes) -> Result<End, ZipError> {
    let len = bytes.len();
    if len < EOCD_LEN {
        return err(
            format!("the file is {len} bytes, too short for a zip archive"),
            0,
        );
    }
    let tail_len = len.min(EOCD_LEN + 0xffff);
    let tail_at = len - tail_len;
    let tail = read(bytes, tail_at, tail_len, "the end of the archive")?;
    // As miniz: the last signature with a whole record after it (the comment length is not
    // checked: torch.load reads archives whatever it says).
    let found = (0..=tail.len() - EOCD_LEN as usize)
        .rev()
        .find(|&i| le32(&tail, i) == EOCD_SIG);
    let Some(i) = found else {
        return err(
            "no end-of-central-directory record: not a zip archive, or cut short",
            len,
        );
    };
    let at = tail_at + i as u64;
    let mut end = End {
        entries: u64::from(le16(&tail, i + 10)),
        size: u64::from(le32(&tail, i + 12)),
        offset: u64::from(le32(&tail, i + 16)),
        at,
        disks: (u64::from(le16(&tail, i + 4)), u64::from(le16(&tail, i + 6))),
        on_disk: u64::from(le16(&tail, i + 8)),
    };
    // As miniz (torch's zip reader) does: a zip64 locator right before the end record points
    // at the zip64 end record, which must lie inside the file; when its signature is there,
    // its fields are the ones that count.
    let saturated = end.entries == 0xffff || end.size == 0xffff_ffff || end.offset == 0xffff_ffff;
    let zip64 = zip64_end(bytes, &mut end)?;
    if saturated && !zip64 {
        return err("zip64 fields without a zip64 end record", at);
    }
    // Of the end record that counts (the zip64 one when there is one), as torch's miniz
    // refuses any other: disk 0, the directory on disk 0, and every entry on this disk.
    if end.disks != (0, 0) || end.on_disk != end.entries {
        return err(
            format!(
                "a multi-disk archive (disk {}, directory on disk {}, {} of {} entries on this disk): torch's zip reader refuses it",
                end.disks.0, end.disks.1, end.on_disk, end.entries
            ),
            at,
        );
    }
    Ok(end)
}

/// Reads the zip64 end record a locator before `end` points to into `end`; `Ok(false)` when
/// there is no locator, or no zip64 record where it points.
fn zip64_end(bytes: &dyn FileBytes, end: &mut End) -> Result<bool, ZipError> {
    let Some(loc_at) = end.at.checked_sub(20) else {
        return Ok(false);
    };
    let Ok(loc) = bytes.read(loc_at, 20) else {
        return Ok(false);
    };
    if le32(&loc, 0) != ZIP64_LOCATOR_SIG {
        return Ok(false);
    }
    let rec_at = le64(&loc, 8);
    if bytes.len() < 56 || rec_at > bytes.len() - 56 {
        return err(
            format!("the zip64 locator points past the end of the file (to byte {rec_at})"),
            loc_at,
        );
    }
    let rec = read(bytes, rec_at, 56, "the zip64 end record")?;
    if le32(&rec, 0) != ZIP64_EOCD_SIG {
        return Ok(false);
    }
    let total_disks = le32(&loc, 16);
    if total_disks != 1 {
        return err(
            format!("the zip64 locator says {total_disks} disks: torch's zip reader refuses a multi-disk archive"),
            loc_at,
        );
    }
    end.disks = (u64::from(le32(&rec, 16)), u64::from(le32(&rec, 20)));
    end.on_disk = le64(&rec, 24);
    end.entries = le64(&rec, 32);
    end.size = le64(&rec, 40);
    end.offset = le64(&rec, 48);
    Ok(true)
}

/// Reads the central directory.
pub fn read_directory(bytes: &dyn FileBytes) -> Result<Vec<Entry>, ZipError> {
    let end = find_end(bytes)?;
    if end.entries > ENTRY_CAP {
        return err(
            format!("{} entries, over the {ENTRY_CAP}-entry cap", end.entries),
            end.at,
        );
    }
    if end.size < end.entries.saturating_mul(46) {
        return err(
            format!(
                "a {}-byte central directory cannot hold its {} entries",
                end.size, end.entries
            ),
            end.at,
        );
    }
    if end.size > DIRECTORY_CAP {
        return err(
            format!(
                "a {}-byte central directory, over the {DIRECTORY_CAP}-byte cap",
                end.size
            ),
            end.at,
        );
    }
    if end
        .offset
        .checked_add(end.size)
        .is_none_or(|e| e > bytes.len())
    {
        return err(
            format!(
                "the central directory [{}, +{}) runs past the end of the file",
                end.offset, end.size
            ),
            end.at,
        );
    }
    let dir = read(bytes, end.offset, end.size, "the central directory")?;
    let mut entries = Vec::with_capacity(usize::try_from(end.entries).unwrap_or(0));
    let mut pos = 0usize;
    for _ in 0..end.entries {
        let at = end.offset + pos as u64;
        let fixed = dir.get(pos..pos + 46);
        let Some(fixed) = fixed.filter(|f| le32(f, 0) == CENTRAL_SIG) else {
            return err(
                format!(
                    "central directory entry {} is missing or corrupt",
                    entries.len()
                ),
                at,
            );
        };
        let (n, x, c) = (
            usize::from(le16(fixed, 28)),
            usize::from(le16(fixed, 30)),
            usize::from(le16(fixed, 32)),
        );
        let Some(rest) = dir.get(pos + 46..pos + 46 + n + x + c) else {
            return err("a central directory entry runs past the directory", at);
        };
        // torch.load lists every record name as a Python str (`get_all_records`): a name that
        // is not UTF-8 makes it refuse the archive.
        let Ok(name) = std::str::from_utf8(&rest[..n]) else {
            return err(
                format!(
                    "central directory entry {} has a name that is not UTF-8",
                    entries.len()
                ),
                at,
            );
        };
        let mut entry = Entry {
            name: name.to_owned(),
            method: le16(fixed, 10),
            flags: le16(fixed, 8),
            compressed: u64::from(le32(fixed, 20)),
            size: u64::from(le32(fixed, 24)),
            local: u64::from(le32(fixed, 42)),
            at,
        };
        zip64_sizes(&mut entry, &rest[n..n + x])?;
        check_as_miniz_opens(&entry, le32(fixed, 10), le16(fixed, 34), bytes.len())?;
        entries.push(entry);
        pos += 46 + n + x + c;
    }
    Ok(entries)
}

/// What miniz (torch's zip reader) refuses of any directory entry when it opens the archive,
/// whether or not the record is ever read: a stored record whose sizes differ (miniz reads
/// the method and the modification time as one 32-bit word, so only when both are zero, as
/// `torch.save` writes them), data declared with no compressed bytes, a disk number other
/// than 0 or 1, a local header whose data would end past the file, and a masked local header.
fn check_as_miniz_opens(
    entry: &Entry,
    method_and_time: u32,
    disk: u16,
    file_len: u64,
) -> Result<(), ZipError> {
    let why = if method_and_time == 0 && entry.compressed != entry.size {
        format!(
            "the stored record {:?} declares {} bytes compressed but {} uncompressed",
            entry.name, entry.compressed, entry.size
        )
    } else if entry.size != 0 && entry.compressed == 0 {
        format!(
            "the record {:?} declares {} bytes but no compressed bytes",
            entry.name, entry.size
        )
    } else if disk > 1 {
        format!("the record {:?} is on disk {disk}", entry.name)
    } else if entry
        .local
        .checked_add(LOCAL_LEN)
        .and_then(|e| e.checked_add(entry.compressed))
        .is_none_or(|e| e > file_len)
    {
        format!(
            "the record {:?}: its local header at byte offset {} and {} bytes run past the end of the file",
            entry.name, entry.local, entry.compressed
        )
    } else if entry.flags & 0x2000 != 0 {
        format!("the record {:?} has a masked local header", entry.name)
    } else {
        return Ok(());
    };
    err(
        format!("{why}: torch's zip reader refuses the archive"),
        entry.at,
    )
}

/// Replaces the saturated 32-bit fields by the zip64 extra field's values, in their order.
fn zip64_sizes(entry: &mut Entry, mut extra: &[u8]) -> Result<(), ZipError> {
    let saturated =
        entry.size == 0xffff_ffff || entry.compressed == 0xffff_ffff || entry.local == 0xffff_ffff;
    if !saturated {
        return Ok(());
    }
    while extra.len() >= 4 {
        let (id, len) = (le16(extra, 0), usize::from(le16(extra, 2)));
        let Some(body) = extra.get(4..4 + len) else {
            break;
        };
        if id == 1 {
            let mut fields = body.chunks_exact(8).map(|c| le64(c, 0));
            for field in [&mut entry.size, &mut entry.compressed, &mut entry.local] {
                if *field == 0xffff_ffff {
                    match fields.next() {
                        Some(v) => *field = v,
                        None => return err("a zip64 extra field is too short", entry.at),
                    }
                }
            }
            return Ok(());
        }
        extra = &extra[4 + len..];
    }
    err(
        format!(
            "{:?} has saturated sizes and no zip64 extra field",
            entry.name
        ),
        entry.at,
    )
}

/// Where `entry`'s data starts, from its local header; the data must lie inside the file.
pub fn data_start(bytes: &dyn FileBytes, entry: &Entry) -> Result<u64, ZipError> {
    let head = read(bytes, entry.local, LOCAL_LEN, "a local header").map_err(|e| ZipError {
        why: format!("{:?}: {}", entry.name, e.why),
        at: entry.at,
    })?;
    if le32(&head, 0) != LOCAL_SIG {
        return err(
            format!(
                "{:?}: no local header at byte offset {}, where the directory says",
                entry.name, entry.local
            ),
            entry.at,
        );
    }
    let skip = LOCAL_LEN + u64::from(le16(&head, 26)) + u64::from(le16(&head, 28));
    let start = entry.local + skip;
    if start
        .checked_add(entry.compressed)
        .is_none_or(|e| e > bytes.len())
    {
        return err(
            format!(
                "{:?}: its {} bytes at byte offset {start} run past the end of the file",
                entry.name, entry.compressed
            ),
            entry.local,
        );
    }
    Ok(start)
}

#[cfg(test)]
pub(crate) mod tests;
