"""Type stubs for the PyO3 extension `eagle3_inspect._native` (rust/python). Hand-written: keep in
step with rust/python/src/*.rs. Callers should prefer the Python API in `eagle3_inspect`.

One marshalling style (rust/python/src/convert.rs): every function returns plain Python values,
records as dicts with string keys; a per-tensor table is a dict of columns."""

from collections.abc import Callable, Sequence
from typing import Any

VERSION: str

def kernel_level() -> str:
    """The widest vector kernels this CPU runs: "avx512", "avx2" or "portable" (run-time check)."""

ProgressCallback = Callable[[int, int], Any]

class InspectError(Exception): ...
class InvalidCheckpointError(InspectError): ...
class TensorUnreadableError(InspectError): ...
class CheckpointNotFoundError(InspectError, FileNotFoundError): ...
class TensorNotFoundError(InspectError, KeyError): ...
class InvalidArgumentError(InspectError, ValueError): ...

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
    def config(self) -> dict[str, str] | None:
        """{"path", "text"} of config.json beside the weights."""

    @property
    def files(self) -> list[dict[str, Any]]:
        """path, bytes, tensors, header_bytes, data_offset, metadata per file."""

    @property
    def tensors(self) -> dict[str, list[Any]]:
        """Columns name, dtype, shape (tuple[int, ...] | None), nbytes (int | None), file, offset
        (absolute), readable: row i of each is tensor i, in name order."""

    @property
    def findings(self) -> list[dict[str, Any]]:
        """ST and IX findings: code, severity, message, file, tensor, offset."""

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
) -> dict[str, list[Any] | None]:
    """Columns: `name` and every TensorStats field in its order, one row per tensor; a column
    that would be all None is None. With `names` None: every readable tensor in name order, and
    no `name` column."""

def tensor_records_json(
    infos: list[Any],
    names: list[str] | None = None,
    columns: dict[str, list[Any] | None] | None = None,
    cursor: int = 0,
    separator: str | None = None,
) -> tuple[str | list[str | None], int]:
    """TensorInfo.to_json() of each info (None: write that one the Python way), the stats of
    `columns` row `cursor` added when its name is `names[cursor]`; and the cursor after them.
    With `separator` and every record spelled: one string of them joined by it."""

def findings_json(findings: list[Any], separator: str | None = None) -> str | list[str | None]:
    """Finding.to_json() of each finding (None: write that one the Python way). With
    `separator` and every record spelled: one string of them joined by it."""

def vocab_mapping(
    checkpoint: NativeCheckpoint,
    *,
    draft_vocab: int | None = None,
    target_vocab: int | None = None,
    d2t: str = "d2t",
    t2d: str = "t2d",
) -> dict[str, Any]:
    """The d2t/t2d analysis."""

def compare_vocab(
    a: NativeCheckpoint,
    b: NativeCheckpoint,
    *,
    vocab_a: tuple[int | None, int | None] = (None, None),
    vocab_b: tuple[int | None, int | None] = (None, None),
    names_a: tuple[str, str] = ("d2t", "t2d"),
    names_b: tuple[str, str] = ("d2t", "t2d"),
) -> dict[str, Any]:
    """{"a", "b", "comparison"}."""

def diff_pairs(
    a: NativeCheckpoint,
    b: NativeCheckpoint,
    pairs: Sequence[tuple[str, str]],
    *,
    rtol: float | None = None,
    atol: float | None = None,
    threads: int | None = None,
    progress: ProgressCallback | None = None,
) -> list[dict[str, Any]]: ...
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
    """`[(code, severity)]` for every ST, IX and VM code the Rust core can emit."""

MAX_THREADS: int
MAX_JSON_DEPTH: int
MAX_SHARDS: int

def read_config_text(path: str) -> str: ...
def resolves_inside(path: str, boundary: str) -> bool: ...
def json_nesting(data: bytes) -> int: ...
def json_complete(data: bytes) -> bool: ...
def changed_tensors(checkpoint: NativeCheckpoint, names: list[str]) -> list[dict[str, Any]]: ...
def check_threads(threads: int | None = None) -> None: ...
def write_safetensors(
    dest: str,
    copied: list[tuple[str, str, str]],
    owned: list[tuple[str, str, list[int], bytes]],
    metadata: dict[str, str] | None = None,
) -> int: ...
def sync_dir(path: str) -> None: ...
