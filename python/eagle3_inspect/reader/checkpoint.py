"""`Checkpoint`: an opened checkpoint (file, sharded directory or HF cache snapshot) of safetensors
or torch.save files."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from eagle3_inspect._native import NativeCheckpoint, TensorUnreadableError, changed_tensors
from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.reader.bulk import paused_gc
from eagle3_inspect.reader.stats import ProgressCallback, TensorStats, compute_stats
from eagle3_inspect.reader.stats_map import stats_columns
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.reader.untrusted import UntrustedInputError, parse_object
from eagle3_inspect.reader.vocab import VocabMapping, analyze, default_vocab_sizes
from eagle3_inspect.records import fast_builder
from eagle3_inspect.registry import finding, from_native

if TYPE_CHECKING:
    import numpy as np

    from eagle3_inspect.reader.source import SourceListing

# The native reader's cap on config.json (a listing's text is held to it too).
CONFIG_CAP = 16 << 20
# TensorInfo(...), built about 5x faster (one per tensor of a header, a million for a large one).
_build_info = fast_builder(TensorInfo)


@dataclass(frozen=True)
class FileInfo:
    """One weights file of the checkpoint: `format` is "safetensors", "torch-zip" or
    "torch-legacy" (for a torch file `header_bytes` is its pickle's length, `data_offset` None)."""

    path: str
    format: str
    bytes: int
    tensors: int
    header_bytes: int | None
    data_offset: int | None
    metadata: dict[str, str] | None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Checkpoint:
    """Header-level view of a checkpoint plus zero-copy tensor access. Never writes anything."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._load(NativeCheckpoint(os.fspath(path)))

    @classmethod
    def from_source(cls, listing: SourceListing) -> Checkpoint:
        """Opens a checkpoint whose files are ranged readers (see `reader/source.py`): reads each
        file's header with two reads; tensor data is read when a method needs it."""
        native = NativeCheckpoint.from_sources(
            listing.path,
            listing.root,
            [(f.name, f.size, f.read) for f in listing.files],
            listing.index,
            listing.config,
        )
        self = cls.__new__(cls)
        self._load(native)
        return self

    def _load(self, native: NativeCheckpoint) -> None:
        with paused_gc():
            self._open(native)
            self.findings: list[Finding] = [from_native(f) for f in self._native.findings]
        self.config_path: str | None = None
        self.config: dict[str, Any] | None = None
        self._read_config()

    def _open(self, native: NativeCheckpoint) -> None:
        """Takes the native checkpoint and builds one TensorInfo per tensor (a million for a
        large header)."""
        self._native = native
        self.path: str = self._native.path
        self.root: str = self._native.root
        # Where every file of a local checkpoint resolves (the containment rule; `fix` copies
        # side files under it): the root, or a Hugging Face snapshot's repository.
        self.boundary: str = self._native.boundary
        self.index_path: str | None = self._native.index_path
        self.files: list[FileInfo] = [FileInfo(**f) for f in self._native.files]
        self.metadata: dict[str, str] = self._native.metadata
        self.tensors: dict[str, TensorInfo] = {}
        self.unreadable: set[str] = set()
        table = self._native.tensors  # a dict of columns, one row per tensor
        names, shapes, sizes = table["name"], table["shape"], table["nbytes"]
        if None not in shapes and None not in sizes and all(table["readable"]):
            # Every tensor readable (the usual header): built straight from the columns.
            whole = cast("list[list[int]]", shapes)
            infos = map(
                _build_info,
                names,
                table["dtype"],
                map(tuple, whole),
                sizes,
                table["file"],
                table["offset"],
            )
            self.tensors = dict(zip(names, infos, strict=True))
            return
        rows = zip(
            table["name"],
            table["dtype"],
            table["shape"],
            table["nbytes"],
            table["file"],
            table["offset"],
            table["readable"],
            strict=True,
        )
        del table
        build = _build_info
        for name, dtype, shape, nbytes, file, offset, readable in rows:
            if shape is None or nbytes is None:
                self.unreadable.add(name)
                continue
            self.tensors[name] = build(name, dtype, tuple(shape), nbytes, file, offset)
            if not readable:
                self.unreadable.add(name)

    def _read_config(self) -> None:
        found = self._native.config
        if found is None:
            return
        self.config_path, text = found["path"], found["text"]
        try:
            self.config = parse_object(text, "config.json", CONFIG_CAP)
        except UntrustedInputError as exc:
            self._config_finding(str(exc))

    def add_finding(self, finding: Finding) -> None:
        """Records a finding met after opening (IX011 from a data pass), once."""
        if finding not in self.findings:
            self.findings.append(finding)

    def changed(self, names: Iterable[str]) -> list[Finding]:
        """IX011 for each of `names` whose file shrank during a data pass (its bytes read as
        zeros, so results over it are untrustworthy); each is also recorded on `findings`."""
        found = [from_native(f) for f in changed_tensors(self._native, list(names))]
        for item in found:
            self.add_finding(item)
        return found

    def _config_finding(self, message: str) -> None:
        self.findings.append(finding("IX009", message, file=self.config_path))

    def __repr__(self) -> str:
        return f"Checkpoint({self.path!r}, files={len(self.files)}, tensors={len(self.tensors)})"

    def _repr_html_(self) -> str:
        """The notebook view: summary, findings and the first tensors."""
        from eagle3_inspect.html.views.checkpoint import checkpoint_view

        tensors = list(self.tensors.values())
        return checkpoint_view(self.path, len(self.files), tensors, self.metadata, self.findings)

    def cluster_summary(self) -> dict[str, Any] | None:
        """The report's `"cluster"` section: what a Ray cluster's nodes did for this checkpoint
        (None: read on this machine; see `cluster/checkpoint.py`)."""
        return None

    def __contains__(self, name: object) -> bool:
        return name in self.tensors

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.ERROR]

    def raw_bytes(self, name: str) -> memoryview:
        """The tensor's bytes as a read-only memoryview of the map (no copy); for a checkpoint
        opened with `from_source`, of the bytes read once for this call."""
        import numpy as np

        # The native buffer speaks numpy's array interface (the 3.10 limited API has no buffer
        # protocol); the uint8 array is the memoryview's exporter and keeps the map alive.
        view: memoryview = np.asarray(self._native.buffer(name)).data
        return view

    def tensor(self, name: str) -> np.ndarray:
        """The tensor as a numpy array: a zero-copy read-only view of the map where numpy has the
        dtype (bf16 / fp8 through ml_dtypes); an unpacked copy for the packed F4 / F6 types. For a
        checkpoint opened with `from_source` the view is over the bytes read once for this call.

        If another process truncates the file while a view is alive, the view's bytes past the new
        end read as zeros (never SIGBUS), and `stats()` over the tensor reports IX011."""
        # numpy is imported here, not at module level: header-only commands start faster.
        import numpy as np

        from eagle3_inspect.reader.numpy_dtypes import PACKED, numpy_dtype, unpack_codes

        info = self.tensors.get(name)
        buffer = self._native.buffer(name)  # raises TensorNotFoundError / TensorUnreadableError
        assert info is not None
        dtype = numpy_dtype(info.dtype)
        try:
            # A read-only uint8 view of the bytes (numpy's array interface, no copy), its base
            # the native buffer, which keeps the map alive.
            raw = np.asarray(buffer)
            if info.dtype in PACKED:
                return unpack_codes(info.dtype, raw, info.numel).view(dtype).reshape(info.shape)
            return raw.view(dtype).reshape(info.shape)
        except ValueError as exc:
            # Legal in the format, beyond numpy: a dimension over 2**63-1 or more than 64 of them.
            raise TensorUnreadableError(
                f"tensor {name!r} in {info.file}: shape {list(info.shape)} cannot be a numpy "
                f"array ({exc})"
            ) from exc

    def stats(
        self,
        names: Iterable[str] | None = None,
        *,
        hashes: bool = False,
        threads: int | None = None,
        progress: ProgressCallback | None = None,
    ) -> Mapping[str, TensorStats]:
        """Per-tensor statistics (and content hashes when `hashes`), a read-only mapping built
        when first read (`dict(...)` of it is a plain dict); see `reader/stats.py`."""
        asked = None if names is None else list(names)
        every = list(self.tensors)
        readable: list[str] = []
        if not self.unreadable and (asked is None or asked == every):
            # Every tensor, all readable (the usual header and pass): the native side walks its
            # own table, no million names cross, and the results are keyed by these strings.
            asked, readable = None, every
        elif asked is None:
            asked = [n for n in every if n not in self.unreadable]
        found = compute_stats(
            self._native,
            asked,
            hashes=hashes,
            threads=threads,
            progress=progress,
            readable=readable,
        )
        # A file that shrank under the pass read zeros, not its data: drop those results (the
        # IX011 finding is recorded on the checkpoint instead).
        # Named from the columns: reading the mapping would build every TensorStats.
        columns = stats_columns(found)
        changed = self.changed(list(found) if columns is None else columns[0])
        return found.without(item.tensor or "" for item in changed)

    def vocab_mapping(
        self, *, draft_vocab: int | None = None, target_vocab: int | None = None
    ) -> VocabMapping:
        """The d2t/t2d analysis: target ids, encoding verdict and VM findings. Vd defaults to the
        lm_head rows (or config draft_vocab_size), Vt to config vocab_size (or t2d's length)."""
        vd, vt = default_vocab_sizes(self.tensors, self.config)
        mapping = analyze(
            self._native,
            draft_vocab if draft_vocab is not None else vd,
            target_vocab if target_vocab is not None else vt,
        )
        # A d2t/t2d file that shrank under the read gave zeros: say so (IX011) beside the verdict.
        # endswith first: a C test per name of a large header, the rare match then checked.
        read = [
            n
            for n in self.tensors
            if n.endswith(("d2t", "t2d")) and n.rsplit(".", 1)[-1] in ("d2t", "t2d")
        ]
        mapping.findings.extend(self.changed(read))
        return mapping
