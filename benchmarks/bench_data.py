"""Benchmark inputs: a drafter-sized checkpoint written in bounded-memory chunks, a perturbed copy
of it, and a sparse checkpoint whose header declares hundreds of GB over a hole.

Every tensor is generated from its own seed (derived from its name), chunk by chunk, so the
perturbed copy can regenerate the same bytes and change a few tensors without holding either
checkpoint in memory. A `bench-manifest.json` beside the files records what was written; a
directory is reused when the manifest matches and every file has the recorded size.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from eagle3_inspect.synthetic.writer import header_bytes as synthetic_header

GENERATOR_VERSION = 1
CHUNK_BYTES = 64 << 20
MANIFEST = "bench-manifest.json"
_ITEMSIZE = {"BF16": 2, "I64": 8, "BOOL": 1}


@dataclass(frozen=True)
class TensorSpec:
    """One tensor to generate: name, header dtype, shape, and which file it goes to."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    shard: int = 0

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * _ITEMSIZE[self.dtype]


@dataclass(frozen=True)
class Dims:
    """Drafter dimensions: hidden size, target vocab, draft vocab, MLP width, attention widths."""

    hidden: int
    vocab: int
    draft_vocab: int
    intermediate: int
    q_width: int
    kv_width: int


# The seed story's Kimi-K2.5 drafter (~4.3 GB of bf16), and a ~300 MB version for quick checks.
SIZES = {
    "full": Dims(7168, 163840, 32000, 18432, 8192, 1024),
    "small": Dims(1024, 98304, 32000, 8192, 2048, 256),
}


def drafter_specs(d: Dims) -> list[TensorSpec]:
    """A one-layer EAGLE-3 drafter (EAGLE/SpecForge `midlayer.` dialect) in two shards: the
    embedding and vocab maps in the first, the rest in the second."""
    h, attn_in = d.hidden, 2 * d.hidden
    layer = "midlayer."
    return [
        TensorSpec("embed_tokens.weight", "BF16", (d.vocab, h), 0),
        TensorSpec("d2t", "I64", (d.draft_vocab,), 0),
        TensorSpec("t2d", "BOOL", (d.vocab,), 0),
        TensorSpec("fc.weight", "BF16", (h, 3 * h), 1),
        TensorSpec("lm_head.weight", "BF16", (d.draft_vocab, h), 1),
        TensorSpec("norm.weight", "BF16", (h,), 1),
        TensorSpec(layer + "input_layernorm.weight", "BF16", (h,), 1),
        TensorSpec(layer + "hidden_norm.weight", "BF16", (h,), 1),
        TensorSpec(layer + "post_attention_layernorm.weight", "BF16", (h,), 1),
        TensorSpec(layer + "self_attn.q_proj.weight", "BF16", (d.q_width, attn_in), 1),
        TensorSpec(layer + "self_attn.k_proj.weight", "BF16", (d.kv_width, attn_in), 1),
        TensorSpec(layer + "self_attn.v_proj.weight", "BF16", (d.kv_width, attn_in), 1),
        TensorSpec(layer + "self_attn.o_proj.weight", "BF16", (h, d.q_width), 1),
        TensorSpec(layer + "mlp.gate_proj.weight", "BF16", (d.intermediate, h), 1),
        TensorSpec(layer + "mlp.up_proj.weight", "BF16", (d.intermediate, h), 1),
        TensorSpec(layer + "mlp.down_proj.weight", "BF16", (h, d.intermediate), 1),
    ]


def _seed(name: str, salt: int = 0) -> int:
    return zlib.crc32(name.encode()) ^ (salt * 0x9E3779B1)


def _bf16_chunks(spec: TensorSpec) -> Iterator[np.ndarray]:
    """Random-looking finite bf16 bit patterns: random sign and mantissa, exponent 2^-10..2^-3
    (norm weights: [1, 2)), generated CHUNK_BYTES at a time."""
    rng = np.random.default_rng(_seed(spec.name))
    numel = spec.nbytes // 2
    is_norm = len(spec.shape) == 1
    per = CHUNK_BYTES // 2
    for start in range(0, numel, per):
        bits = rng.integers(0, 1 << 16, size=min(per, numel - start), dtype=np.uint16)
        if is_norm:
            bits = (bits & 0x007F) | 0x3F80
        else:
            exponent = 117 + ((bits >> 7) & 7)
            bits = (bits & 0x807F) | (exponent << 7).astype(np.uint16)
        yield bits


def _vocab_maps(d2t_len: int, t2d_len: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(_seed("vocab"))
    chosen = np.sort(rng.choice(t2d_len, size=d2t_len, replace=False))
    t2d = np.zeros(t2d_len, dtype=np.bool_)
    t2d[chosen] = True
    return (chosen - np.arange(d2t_len)).astype("<i8"), t2d


def tensor_chunks(spec: TensorSpec, specs: list[TensorSpec]) -> Iterator[np.ndarray]:
    """The tensor's bytes as a sequence of numpy arrays (bounded size each)."""
    if spec.dtype == "BF16":
        yield from _bf16_chunks(spec)
        return
    d2t_len = next(s.shape[0] for s in specs if s.name == "d2t")
    t2d_len = next(s.shape[0] for s in specs if s.name == "t2d")
    d2t, t2d = _vocab_maps(d2t_len, t2d_len)
    yield d2t if spec.name == "d2t" else t2d


def header_bytes(specs: list[TensorSpec], metadata: dict[str, str] | None = None) -> bytes:
    """The 8-byte length prefix plus the JSON header (padded to 8) for `specs`, in name order."""
    ordered = sorted(specs, key=lambda s: s.name)
    entries = [(s.name, s.dtype, s.shape, s.nbytes) for s in ordered]
    return synthetic_header(entries, metadata or {"format": "pt"})


def write_file(path: Path, specs: list[TensorSpec], all_specs: list[TensorSpec], perturb=None):
    """Streams one safetensors file; `perturb(spec, index, chunk)` may return a changed chunk."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as out:
        out.write(header_bytes(specs))
        for spec in sorted(specs, key=lambda s: s.name):
            for index, chunk in enumerate(tensor_chunks(spec, all_specs)):
                if perturb is not None:
                    chunk = perturb(spec, index, chunk)
                out.write(memoryview(np.ascontiguousarray(chunk)).cast("B"))
    os.replace(tmp, path)


def _manifest_matches(directory: Path, manifest: dict) -> bool:
    try:
        found = json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    if found.get("spec") != manifest["spec"]:
        return False
    return all(
        (directory / name).is_file() and (directory / name).stat().st_size == size
        for name, size in found.get("files", {}).items()
    )


def _write_manifest(directory: Path, spec: dict, files: list[Path]) -> None:
    manifest = {"spec": spec, "files": {p.name: p.stat().st_size for p in files}}
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")


def ensure_drafter(directory: Path, size: str) -> tuple[Path, bool]:
    """The two-shard drafter in `directory` (generated unless a matching one is there), and
    whether it was reused."""
    return _ensure_two_shards(
        directory, size, "drafter", "model-{:05d}-of-00002.safetensors", write_file
    )


def ensure_torch_drafter(directory: Path, size: str) -> tuple[Path, bool]:
    """The same drafter as `ensure_drafter`, byte for byte the same tensors, as torch.save zip
    shards (`pytorch_model-0000K-of-00002.bin` + `pytorch_model.bin.index.json`) written by
    `eagle3_inspect.synthetic.torch_writer` (no torch); reused like the safetensors one."""
    return _ensure_two_shards(
        directory, size, "torch-drafter", "pytorch_model-{:05d}-of-00002.bin", _write_torch_shard
    )


def _write_torch_shard(path: Path, members: list[TensorSpec], specs: list[TensorSpec]) -> None:
    from eagle3_inspect.synthetic.torch_writer import TorchTensor, write_torch_zip

    tensors = {
        s.name: TorchTensor(
            s.dtype,
            s.shape,
            (memoryview(np.ascontiguousarray(c)).cast("B") for c in tensor_chunks(s, specs)),
        )
        for s in sorted(members, key=lambda s: s.name)
    }
    write_torch_zip(path, tensors)


def _ensure_two_shards(
    directory: Path,
    size: str,
    kind: str,
    shard_name: str,
    write_shard: Callable[[Path, list[TensorSpec], list[TensorSpec]], None],
) -> tuple[Path, bool]:
    """The drafter's tensors in two shards named by `shard_name` (formatted with the shard's
    number) and their index (the torch one for `.bin` shards), reused when the manifest in
    `directory` matches."""
    specs = drafter_specs(SIZES[size])
    spec = {
        "kind": kind,
        "version": GENERATOR_VERSION,
        "size": size,
        "tensors": [asdict(s) for s in specs],
    }
    spec = json.loads(json.dumps(spec))
    if _manifest_matches(directory, {"spec": spec}):
        return directory, True
    directory.mkdir(parents=True, exist_ok=True)
    files, weight_map = [], {}
    for shard in (0, 1):
        name = shard_name.format(shard + 1)
        members = [s for s in specs if s.shard == shard]
        write_shard(directory / name, members, specs)
        files.append(directory / name)
        weight_map.update({s.name: name for s in members})
    index = {"metadata": {"total_size": sum(s.nbytes for s in specs)}, "weight_map": weight_map}
    index_name = "model.safetensors.index.json"
    if shard_name.endswith(".bin"):
        index_name = "pytorch_model.bin.index.json"
    (directory / index_name).write_text(json.dumps(index, indent=2) + "\n")
    _write_manifest(directory, spec, files)
    return directory, False


# Perturbed copy: which tensors change, and how.
PERTURBED = {
    "lm_head.weight": "strong",  # every 97th element's sign flipped
    "midlayer.mlp.down_proj.weight": "slight",  # every 1009th element one bf16 ulp up
    "norm.weight": "strong",
}


def _perturb(spec: TensorSpec, index: int, chunk: np.ndarray) -> np.ndarray:
    kind = PERTURBED.get(spec.name)
    if kind is None:
        return chunk
    chunk = chunk.copy()
    if kind == "strong":
        chunk[::97] ^= np.uint16(0x8000)
    else:
        chunk[::1009] += np.uint16(1)
    return chunk


def _perturb_everywhere(spec: TensorSpec, index: int, chunk: np.ndarray) -> np.ndarray:
    """Every 16-bit element's lowest bit flipped (one bf16 ulp); the integer maps unchanged."""
    if spec.dtype != "BF16":
        return chunk
    return chunk ^ np.uint16(1)


# A training step, in units of the last place of each BF16 element's magnitude: the upper
# bounds of r in [0, 1024) for 0, 1 and 2 units; r above the last moves 3 to 8 units.
STEP_UNITS = ((512, 0), (896, 1), (992, 2))
STEP_DESCRIPTION = (
    "every BF16 element's magnitude moved by a random number of units (half 0, 37.5% 1, "
    "9.4% 2, 3.1% 3 to 8), up or down"
)


def _perturb_step(spec: TensorSpec, index: int, chunk: np.ndarray) -> np.ndarray:
    """A training step: each BF16 magnitude moves STEP_UNITS units up or down (clipped inside
    the finite range, sign kept), from a generator seeded by the tensor's name and the chunk."""
    if spec.dtype != "BF16":
        return chunk
    rng = np.random.default_rng([zlib.crc32(spec.name.encode()), index, 26])
    r = rng.integers(0, 1024, size=chunk.shape, dtype=np.int32)
    units = np.full(chunk.shape, 3, dtype=np.int32) + (r & 7) % 6
    for bound, value in reversed(STEP_UNITS):
        units[r < bound] = value
    down = rng.integers(0, 2, size=chunk.shape, dtype=np.int32).astype(bool)
    magnitude = (chunk & np.uint16(0x7FFF)).astype(np.int32)
    moved = np.clip(np.where(down, magnitude - units, magnitude + units), 0, 0x7F7F)
    return (chunk & np.uint16(0x8000)) | moved.astype(np.uint16)


# Copies of the drafter the diff rows compare it with: which elements change.
COPIES = {
    "perturbed": (PERTURBED, _perturb),
    "everywhere": ("every BF16 element's lowest bit flipped", _perturb_everywhere),
    "step": (STEP_DESCRIPTION, _perturb_step),
}


def ensure_perturbed(directory: Path, size: str, kind: str = "perturbed") -> tuple[Path, bool]:
    """A single-file copy of the drafter changed as COPIES[kind] says: `perturbed` (a few
    tensors, the PERTURBED ones), `everywhere` (every bf16 element's lowest bit flipped) or
    `step` (every bf16 element a random few units off, as between two training steps)."""
    what, perturb = COPIES[kind]
    specs = drafter_specs(SIZES[size])
    spec = {
        "kind": kind,
        "version": GENERATOR_VERSION,
        "size": size,
        "perturbed": what,
        "tensors": [asdict(s) for s in specs],
    }
    spec = json.loads(json.dumps(spec))
    path = directory / "model.safetensors"
    if _manifest_matches(directory, {"spec": spec}):
        return path, True
    directory.mkdir(parents=True, exist_ok=True)
    write_file(path, specs, specs, perturb)
    _write_manifest(directory, spec, [path])
    return path, False


def sparse_specs(total_gb: float) -> list[TensorSpec]:
    """bf16 matrices of 2^30 elements (2 GiB) each, at least `total_gb` GB in all."""
    per = 2 << 30
    count = max(1, int(-(-total_gb * 1e9 // per)))
    return [TensorSpec(f"layers.{i:03d}.weight", "BF16", (131072, 8192)) for i in range(count)]


def write_sparse(path: Path, specs: list[TensorSpec]) -> int:
    """Header only, then `truncate` to the full size: the data section is one hole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    header = header_bytes(specs)
    with open(path, "wb") as out:
        out.write(header)
    size = len(header) + sum(s.nbytes for s in specs)
    os.truncate(path, size)
    return size


def write_tiny_twin(path: Path, specs: list[TensorSpec]) -> int:
    """The same tensor names with shape [1, 4]: a header like the sparse file's, almost no data."""
    tiny = [TensorSpec(s.name, s.dtype, (1, 4)) for s in specs]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, tiny, tiny)
    return path.stat().st_size
