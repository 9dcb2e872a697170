"""ST rules: the safetensors file format itself, checked by the strict Rust header reader.

Acceptance matches the reference implementation (the `safetensors` crate, read_metadata +
Metadata::validate, over a typed serde parse: see ST022 and ST023); ST007 is the one deliberate
extra (duplicate names, which the format forbids but serde cannot see). Every ST finding names
the file and the byte offset.
"""

from __future__ import annotations

from eagle3_inspect.catalog import RuleDoc
from eagle3_inspect.findings import Severity

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
REF = "The reference implementation rejects the file"

RULES: tuple[RuleDoc, ...] = (
    RuleDoc(
        "ST001",
        E,
        "File shorter than the 8-byte header length prefix",
        f"A safetensors file starts with a little-endian u64 header length. {REF} "
        "(HeaderTooSmall).",
        "file is 3 bytes",
        "Re-download or re-export the file; it is empty or cut short.",
    ),
    RuleDoc(
        "ST002",
        E,
        "Header length prefix over the 100,000,000-byte cap",
        f"The format caps the JSON header at 100 MB as a DoS guard. {REF} (HeaderTooLarge). "
        "Usually the file is not safetensors at all (a pickle, a git-lfs pointer).",
        "prefix says 7306086743 bytes",
        "Check what the file really is (`file`, `head -c 64`).",
    ),
    RuleDoc(
        "ST003",
        E,
        "Header length prefix larger than the file",
        f"The declared header runs past the end of the file. {REF} (InvalidHeaderLength).",
        "header is 4096 bytes but only 100 follow",
        "The file is truncated: re-download it.",
    ),
    RuleDoc(
        "ST004",
        E,
        "Header is not valid UTF-8",
        f"{REF} (InvalidHeader). The offset names the first invalid byte.",
        "invalid byte at offset 12",
        "Re-export the file with a conforming writer.",
    ),
    RuleDoc(
        "ST005",
        E,
        "Header is not valid JSON",
        f"{REF} (InvalidHeaderDeserialization). The offset is where parsing failed.",
        "EOF while parsing an object",
        "Re-export the file; the header was cut or corrupted.",
    ),
    RuleDoc(
        "ST006",
        E,
        "Header JSON is not an object",
        f"The header must be a JSON object of tensor entries. {REF}.",
        "header is a JSON array",
        "Re-export the file with a conforming writer.",
    ),
    RuleDoc(
        "ST007",
        E,
        "A name appears twice in the header",
        "The format forbids duplicate keys, but JSON readers (serde, Python's json) keep only "
        "the last, so different loaders can see different tensors (a parser differential; "
        "Trail of Bits TOB-SFTN-7). The first entry's bytes become an orphaned range.",
        '"lm_head.weight" twice',
        "Rewrite the file with one entry per tensor.",
    ),
    RuleDoc(
        "ST008",
        E,
        "__metadata__ is not a map of strings",
        f"__metadata__ must map strings to strings. {REF}.",
        '{"__metadata__": {"step": 100}}',
        'Store metadata values as strings ("100").',
    ),
    RuleDoc(
        "ST009",
        E,
        "Invalid tensor entry",
        "Each entry needs dtype (string), shape (list of non-negative integers) and "
        f"data_offsets ([begin, end] integers). {REF}.",
        "shape [-1]",
        "Re-export the tensor with a conforming writer.",
    ),
    RuleDoc(
        "ST010",
        E,
        "Unknown dtype",
        "The dtype is not one of the format's 22 (BOOL, U8..U64, I8..I64, F16, BF16, F32, F64, "
        f"F8_*, F4, F6_*, C64). {REF}.",
        '"dtype": "Q4_K"',
        "Convert the tensor to a safetensors dtype, or upgrade the reader if the format grew.",
    ),
    RuleDoc(
        "ST011",
        E,
        "Element count or byte size overflows",
        f"The product of the shape (times the element size) overflows 64 bits. {REF} "
        "(ValidationOverflow).",
        "shape [2**40, 2**40]",
        "The header is corrupt: re-export.",
    ),
    RuleDoc(
        "ST012",
        E,
        "Sub-byte tensor is not a whole number of bytes",
        "F4 (4 bits) and F6 (6 bits) tensors must fill whole bytes: numel*bits % 8 == 0. "
        f"{REF} (MisalignedSlice).",
        "3 elements of F4",
        "Pad the tensor to an even count.",
    ),
    RuleDoc(
        "ST013",
        E,
        "Byte length does not match shape and dtype",
        "end - begin must equal numel x element size. A mismatch means the header lies about "
        f"the data. {REF} (TensorInvalidInfo).",
        "span 8 bytes, [3] F32 needs 12",
        "Re-export the tensor.",
    ),
    RuleDoc(
        "ST014",
        E,
        "data_offsets end before they begin",
        f"{REF} (InvalidOffset).",
        "[4, 0]",
        "The header is corrupt: re-export.",
    ),
    RuleDoc(
        "ST015",
        E,
        "Tensor data past the end of the file",
        "The tensor's range ends beyond the file: the file is truncated (interrupted download "
        "or copy). Loaders fail or read garbage.",
        "ends 2 bytes past the end",
        "Re-download the file and compare its size with the source.",
    ),
    RuleDoc(
        "ST016",
        E,
        "Overlapping tensor ranges",
        f"Two tensors claim the same bytes. {REF} (InvalidOffset).",
        "[2, 6) overlaps [0, 4)",
        "Re-export the file.",
    ),
    RuleDoc(
        "ST017",
        E,
        "Hole between tensor ranges",
        "The data section must be fully indexed with no holes, so a file cannot hide a second "
        f"payload (polyglot files). {REF} (InvalidOffset).",
        "2 unindexed bytes [4, 6)",
        "Re-export the file.",
    ),
    RuleDoc(
        "ST018",
        E,
        "Trailing bytes after the last tensor",
        f"The data section must end exactly at the last tensor. {REF} (MetadataIncompleteBuffer).",
        "5 trailing bytes",
        "Re-export the file.",
    ),
    RuleDoc(
        "ST019",
        INFO,
        "Data section not 8-byte aligned",
        "The reference writer pads the header to a multiple of 8 so the data starts aligned; "
        "third-party writers often do not. Zero-copy loaders may have to copy "
        "(safetensors #607; ComfyUI 'storage_offset() must be divisible by 4').",
        "data starts at byte 133",
        "Re-save with the reference writer to pad the header.",
    ),
    RuleDoc(
        "ST020",
        INFO,
        "Tensor offset not a multiple of its element size",
        "A typed zero-copy view needs the absolute offset aligned to the element size "
        "(safetensors #695: an odd-length U8 tensor misaligns every tensor after it).",
        "F32 data at byte 161",
        "Order tensors by decreasing alignment, or pad.",
    ),
    RuleDoc(
        "ST021",
        W,
        "Header larger than 25 MB",
        "huggingface_hub and huggingface.js refuse headers over 25,000,000 bytes although the "
        "format allows 100 MB: the file loads locally but not through Hub tooling.",
        "header is 31000000 bytes",
        "Shard the checkpoint into more files.",
    ),
    RuleDoc(
        "ST022",
        E,
        "Header JSON that the reference cannot decode",
        "The header is grammatical JSON, but a typed parse (serde_json, under both the "
        "`safetensors` crate and the Python package) cannot decode it: a lone surrogate escape "
        "such as \\ud800 in a name or string, a number out of range such as 1e999, or nesting "
        f"deeper than 128 levels. {REF} (InvalidHeaderDeserialization). The offset points at "
        "the value that fails.",
        '{"__metadata__": {"note": "\\ud800"}}',
        "Re-export the file; write names and metadata as valid Unicode and numbers in range.",
    ),
    RuleDoc(
        "ST023",
        E,
        "A field repeated inside one tensor entry",
        "A tensor entry names dtype, shape or data_offsets twice. The reference's typed parse "
        f"rejects the repeat ({REF}: duplicate field); a map-based reader keeps only the "
        "last, so two loaders can disagree about the tensor's type, shape or bytes. The offset "
        "points at the repeated value.",
        '{"dtype": "F32", "dtype": "I8", ...}',
        "Rewrite the entry with each field once.",
    ),
)
