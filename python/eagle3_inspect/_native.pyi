"""Type stubs for the PyO3 extension `eagle3_inspect._native` (rust/python). Hand-written: keep in
step with rust/python/src/*.rs. Callers should prefer the Python API in `eagle3_inspect`.

One marshalling style (rust/python/src/convert.rs): every function returns plain Python values,
records as dicts with string keys (typed below), a per-tensor table as a dict of columns."""

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypedDict

VERSION: str
MAX_THREADS: int

def kernel_level() -> str:
    """The widest vector kernels this CPU runs: "avx512", "avx2" or "portable" (run-time check)."""

ProgressCallback = Callable[[int, int], Any]
# A shape's native form (`records.Shape.native`): per field `"key": ` text, attribute, kind,
# whether a None leaves it out.
ShapeSpec = tuple[tuple[str, str, int, bool], ...]

class InspectError(Exception): ...
class InvalidCheckpointError(InspectError): ...
class TensorUnreadableError(InspectError): ...
class CheckpointNotFoundError(InspectError, FileNotFoundError): ...
class TensorNotFoundError(InspectError, KeyError): ...
class InvalidArgumentError(InspectError, ValueError): ...

class NativeFinding(TypedDict):
    """A finding the core emitted (`convert.rs::finding_dict`)."""

    code: str
    severity: Literal["error", "warning", "info"]
    message: str
    file: str | None
    tensor: str | None
    offset: int | None

class ConfigText(TypedDict):
    """config.json beside the weights: where it is and its text."""

    path: str
    text: str

class FileRecord(TypedDict):
    """One weights file of a checkpoint (`format`: safetensors, torch-zip or torch-legacy)."""

    path: str
    format: str
    bytes: int
    tensors: int
    header_bytes: int | None
    data_offset: int | None
    metadata: dict[str, str] | None

class TensorColumns(TypedDict):
    """The tensor table: row i of each column is tensor i, in name order. `shape` and `nbytes`
    are None for an entry whose header is unreadable; `offset` is absolute in `file`."""

    name: list[str]
    dtype: list[str]
    shape: list[list[int] | None]
    nbytes: list[int | None]
    file: list[str]
    offset: list[int]
    readable: list[bool]

# The stats pass's columns: `name` (when names were given) and every TensorStats field in its
# order (`dtype`, `numel`, ... `hash`), one row per tensor; a column that would be all None is
# None. Kept a plain dict: the reader checks the order against TensorStats at run time.
StatsColumns = dict[str, list[Any] | None]

Encoding = Literal["offsets", "absolute", "ambiguous", "corrupt", "absent"]
Certainty = Literal["exact", "certain", "likely", "unknown"]

class VocabAnalysis(TypedDict):
    """The d2t/t2d analysis of one checkpoint (`core::vocab::VocabAnalysis`)."""

    vd: int | None
    vt: int | None
    encoding: Encoding
    certainty: Certainty
    reason: str
    target_ids: list[int] | None
    sorted: bool | None
    d2t_len: int | None
    t2d_len: int | None
    t2d_selected: int | None
    d2t_all_zeros: bool | None
    gap_free_log10_probability: float | None
    findings: list[NativeFinding]

class SlotDifference(TypedDict):
    draft_id: int
    a: int | None
    b: int | None

class MappingComparison(TypedDict):
    """Whether two checkpoints draft the same target token for every draft id."""

    same_token_set: bool
    same_mapping: bool
    a_encoding: Encoding
    b_encoding: Encoding
    a_len: int | None
    b_len: int | None
    differing_draft_ids: int
    first_difference: SlotDifference | None
    only_in_a: int
    only_in_b: int
    same_if_ambiguous_is_absolute: bool

class VocabComparison(TypedDict):
    a: VocabAnalysis
    b: VocabAnalysis
    comparison: MappingComparison

class PairDiff(TypedDict):
    """One compared pair (`diff.rs::diff_dict`)."""

    status: Literal["equal", "close", "differ"]
    bytes_equal: bool
    numel: int | None
    rtol: float | None
    atol: float | None
    max_abs: float | None
    max_abs_index: int | None
    max_abs_at: list[int] | None
    mean_abs: float | None
    rel_l2: float | None
    cosine: float | None
    mismatched: int | None
    nonfinite_mismatched: int | None

class TensorBuffer:
    """One tensor's bytes in the memory map, as numpy's array interface: `np.asarray(buffer)`
    is a read-only uint8 view (no copy) that keeps the map alive. No buffer protocol: the
    extension is built for the Python 3.10 limited API (abi3), which lacks it."""

    def __len__(self) -> int: ...
    @property
    def __array_interface__(self) -> dict[str, Any]: ...

class NativeCheckpoint:
    """An opened checkpoint (headers only; the GIL is released while opening)."""

    def __init__(self, path: str) -> None: ...
    @staticmethod
    def from_sources(
        path: str,
        root: str,
        files: Sequence[tuple[str, int, Callable[[int, int], Any]]],
        index: tuple[str, str] | None = None,
        config: tuple[str, str] | None = None,
    ) -> NativeCheckpoint:
        """A checkpoint whose files are `(name, size, read)`; `read(offset, length)` returns
        exactly `length` bytes (any bytes-like object) or raises (see `reader/source.py` for what
        an exception becomes). Reads headers only (two reads per file, 8 files at once); Ctrl-C
        stops further reads and raises once the reads in flight return."""

    @property
    def path(self) -> str: ...
    @property
    def root(self) -> str: ...
    @property
    def boundary(self) -> str: ...
    @property
    def index_path(self) -> str | None: ...
    @property
    def config(self) -> ConfigText | None: ...
    @property
    def files(self) -> list[FileRecord]: ...
    @property
    def tensors(self) -> TensorColumns: ...
    @property
    def findings(self) -> list[NativeFinding]:
        """ST and IX findings."""

    @property
    def metadata(self) -> dict[str, str]: ...
    def buffer(self, name: str) -> TensorBuffer: ...

def tensor_stats(
    checkpoint: NativeCheckpoint,
    names: Sequence[str] | None = None,
    *,
    hashes: bool = False,
    threads: int | None = None,
    progress: ProgressCallback | None = None,
) -> StatsColumns:
    """With `names` None: every readable tensor in name order, and no `name` column."""

def records_json(
    items: list[Any], shape: ShapeSpec, separator: str | None = None
) -> str | list[str | None]:
    """The JSON record of each item by `shape` (None: write that one the Python way). With
    `separator` and every record spelled: one string of them joined by it."""

def tensor_rows_json(
    infos: list[Any],
    shape: ShapeSpec,
    names: list[str] | None = None,
    columns: StatsColumns | None = None,
    stats_shape: ShapeSpec | None = None,
    cursor: int = 0,
    separator: str | None = None,
) -> tuple[str | list[str | None], int]:
    """scan's rows: each info's record by `shape`, with the stats of `columns` row `cursor` (by
    `stats_shape`) when its name is `names[cursor]`; and the cursor after them."""

def vocab_mapping(
    checkpoint: NativeCheckpoint,
    *,
    draft_vocab: int | None = None,
    target_vocab: int | None = None,
    d2t: str = "d2t",
    t2d: str = "t2d",
) -> VocabAnalysis: ...
def compare_vocab(
    a: NativeCheckpoint,
    b: NativeCheckpoint,
    *,
    vocab_a: tuple[int | None, int | None] = (None, None),
    vocab_b: tuple[int | None, int | None] = (None, None),
    names_a: tuple[str, str] = ("d2t", "t2d"),
    names_b: tuple[str, str] = ("d2t", "t2d"),
) -> VocabComparison: ...
def diff_pairs(
    a: NativeCheckpoint,
    b: NativeCheckpoint,
    pairs: Sequence[tuple[str, str]],
    *,
    rtol: float | None = None,
    atol: float | None = None,
    threads: int | None = None,
    progress: ProgressCallback | None = None,
) -> list[PairDiff]: ...
def content_hashes(
    checkpoint: NativeCheckpoint,
    names: Sequence[str],
    *,
    threads: int | None = None,
    progress: ProgressCallback | None = None,
) -> dict[str, str]: ...
def _set_fetch_batch_bytes(bytes: int) -> int:
    """Tests only: the most bytes of ranged tensor data a pass holds at once (0 = the default,
    256 MiB); returns the previous limit."""

def sum_words(
    checkpoint: NativeCheckpoint,
    names: Sequence[str] | None = None,
    *,
    threads: int | None = None,
    release_pages: bool = True,
) -> int:
    """The raw-read floor: wrapping sum of the tensors' u64 words in one parallel pass."""

def emitted_codes() -> list[tuple[str, str]]:
    """`[(code, severity)]` of every code the Rust core can emit (its `Code`, generated from
    the registry's codes.toml when it was built)."""

MAX_JSON_DEPTH: int
MAX_SHARDS: int

def read_config_text(path: str) -> str: ...
def resolves_inside(path: str, boundary: str) -> bool: ...
def json_nesting(data: bytes) -> int: ...
def json_complete(data: bytes) -> bool: ...
def changed_tensors(checkpoint: NativeCheckpoint, names: list[str]) -> list[NativeFinding]: ...
def check_threads(threads: int | None = None) -> None: ...
def choose_weight_files(names: list[str]) -> tuple[list[str], str | None, list[str]]: ...
def weight_files_for_index(index: str, names: list[str]) -> list[str]: ...

class WrittenTensorRecord(TypedDict):
    """One tensor `write_safetensors` wrote: `problem` is None when the bytes read back under
    `name` are the source's."""

    name: str
    source_file: str | None
    source_name: str | None
    problem: str | None

class WrittenFileRecord(TypedDict):
    """What `write_safetensors` wrote: the file's size, its tensors, and the statistics columns
    (with `name`) of the bytes read back, as `tensor_stats` gives them."""

    size: int
    tensors: list[WrittenTensorRecord]
    stats: StatsColumns

def write_safetensors(
    dest: str,
    copied: list[tuple[str, str, str]],
    owned: list[tuple[str, str, list[int], bytes]],
    metadata: dict[str, str] | None = None,
    *,
    threads: int | None = None,
) -> WrittenFileRecord: ...
def sync_dir(path: str) -> None: ...
