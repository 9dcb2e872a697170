"""Writes the torch corpus with torch itself, and records what torch says each file holds.

Hand-run, never in CI (CI reads the committed files without torch). Needs torch 2.15 and
picklescan 1.0.5 in one venv: the producers venv plus an overlay with picklescan (see README.md):

    /work/venvs/pickle-x/bin/python tests/torch/generate.py [--modelaudit DIR]

- `corpus/<case>/`: drafters from `tests/corpus/` written by `torch.save` (zip and legacy,
  sharded, strided, tied, big-endian, deflated, every dtype), each a checkpoint (with the
  drafter's config.json) whose safetensors twin is named in `truth.json`;
- `twins/<case>/`: the safetensors twin written by the `safetensors` package, where the twin is
  not a `tests/corpus/` drafter;
- `hostile/own/`: pickles that carry code (own payloads: `touch eagle3-inspect-sentinel`),
  in the zip and legacy formats and as bare pickles; `hostile/modelaudit/`: the test pickles
  ModelAudit's sdist ships (MIT, see LICENSE there), copied unchanged;
- `truth.json`: per file, `torch.load(weights_only=True)`'s verdict (loads, or the error) and,
  when it loads, every tensor (name, dtype, shape, stride, storage offset, bytes and the
  sha256 of its logical bytes); picklescan's verdict (the globals it rates dangerous); and
  for own payloads, whether `torch.load(weights_only=False)` runs them (it must: the sentinel
  test would prove nothing otherwise).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file, save_file

HERE = Path(__file__).resolve().parent
PRODUCERS = HERE.parent / "corpus"
SENTINEL = "eagle3-inspect-sentinel"
PAYLOAD = f"touch {SENTINEL}"
DRAFTERS = {
    "specforge": "specforge-0.2.0-llama-sglang",
    "speculators": "speculators-0.9.0-default",
    "modelopt": "modelopt-0.47.0-draft-vocab",
}


def drafter(key: str) -> tuple[OrderedDict[str, torch.Tensor], Path]:
    folder = PRODUCERS / DRAFTERS[key]
    return OrderedDict(load_file(folder / "model.safetensors")), folder


def checkpoint(case: str, config_from: Path) -> Path:
    out = HERE / "corpus" / case
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    shutil.copy(config_from / "config.json", out / "config.json")
    return out


def twin(case: str, tensors: dict[str, torch.Tensor], config_from: Path) -> str:
    out = HERE / "twins" / case
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    save_file({k: v.contiguous().clone() for k, v in tensors.items()}, out / "model.safetensors")
    shutil.copy(config_from / "config.json", out / "config.json")
    return f"twins/{case}"


def dtype_twin(case: str, tensors: dict[str, torch.Tensor]) -> str:
    """The safetensors twin of a dtypes case (no config: not a drafter)."""
    out = HERE / "twins" / case
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    save_file({k: v.contiguous().clone() for k, v in tensors.items()}, out / "model.safetensors")
    return f"twins/{case}"


def producer_twin(key: str) -> str:
    return f"../corpus/{DRAFTERS[key]}"


def rewrite_zip(src: bytes, transform: Any, compression: int = zipfile.ZIP_STORED) -> bytes:
    """The archive with each record's bytes passed through `transform(name, data)`."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(src)) as zin, zipfile.ZipFile(out, "w", compression) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, transform(info.filename, zin.read(info.filename)))
    return out.getvalue()


def storage_elsizes(sd: dict[str, torch.Tensor]) -> dict[str, int]:
    """Storage key -> element size for a state dict whose tensors each own a storage, keyed as
    torch.save numbers them (in the order it first meets them)."""
    return {str(i): t.element_size() for i, t in enumerate(sd.values())}


def write_cases() -> dict[str, str]:
    """Every corpus checkpoint; returns case -> twin (relative to tests/torch)."""
    twins: dict[str, str] = {}
    for key, formats in (("specforge", ("zip", "legacy")), ("modelopt", ("zip",))):
        sd, folder = drafter(key)
        for fmt in formats:
            out = checkpoint(f"{fmt}-{key}", folder)
            new = fmt == "zip"
            torch.save(sd, out / "pytorch_model.bin", _use_new_zipfile_serialization=new)
            twins[f"{fmt}-{key}"] = producer_twin(key)

    # Sharded as transformers shards: two files, an index with every name and the total size.
    sd, folder = drafter("speculators")
    for fmt, new in (("zip", True),):
        out = checkpoint(f"sharded-{fmt}-speculators", folder)
        names = list(sd)
        parts = [names[: len(names) // 2], names[len(names) // 2 :]]
        weight_map = {}
        for i, part in enumerate(parts):
            file = f"pytorch_model-{i + 1:05d}-of-{len(parts):05d}.bin"
            torch.save(
                OrderedDict((n, sd[n]) for n in part),
                out / file,
                _use_new_zipfile_serialization=new,
            )
            weight_map |= dict.fromkeys(part, file)
        total = sum(t.numel() * t.element_size() for t in sd.values())
        index = {"metadata": {"total_size": total}, "weight_map": weight_map}
        (out / "pytorch_model.bin.index.json").write_text(json.dumps(index, indent=2) + "\n")
        twins[f"sharded-{fmt}-speculators"] = producer_twin("speculators")

    # Strided views with the twin's values: a column-major fc, a q_proj at a storage offset
    # inside a larger storage, an lm_head that is every other row-block of a wider storage.
    sd, folder = drafter("specforge")
    strided = OrderedDict(sd)
    fc = sd["fc.weight"]
    strided["fc.weight"] = fc.t().contiguous().t()
    q = sd["midlayer.self_attn.q_proj.weight"]
    big = torch.cat([torch.zeros(7, dtype=q.dtype), q.flatten()])
    strided["midlayer.self_attn.q_proj.weight"] = big[7:].view(q.shape)
    head = sd["lm_head.weight"]
    wide = torch.zeros(head.shape[0], 2, head.shape[1], dtype=head.dtype)
    wide[:, 0] = head
    strided["lm_head.weight"] = wide[:, 0]
    assert (
        not strided["fc.weight"].is_contiguous() and not strided["lm_head.weight"].is_contiguous()
    )
    for fmt, new in (("zip", True), ("legacy", False)):
        out = checkpoint(f"strided-{fmt}-specforge", folder)
        torch.save(strided, out / "pytorch_model.bin", _use_new_zipfile_serialization=new)
        twins[f"strided-{fmt}-specforge"] = producer_twin("specforge")

    # Tied: norm.weight is midlayer.hidden_norm.weight's storage (held to truth.json: the
    # twin would be the drafter with one norm replaced).
    tied = OrderedDict(sd)
    tied["norm.weight"] = tied["midlayer.hidden_norm.weight"]
    for fmt, new in (("zip", True), ("legacy", False)):
        out = checkpoint(f"tied-{fmt}-specforge", folder)
        torch.save(tied, out / "pytorch_model.bin", _use_new_zipfile_serialization=new)

    # Big-endian and deflated archives (what torch loads from other writers and machines).
    raw_path = HERE / "corpus" / "zip-specforge" / "pytorch_model.bin"
    raw = raw_path.read_bytes()
    sizes = storage_elsizes(sd)

    def big_endian(name: str, data: bytes) -> bytes:
        if name.endswith("/byteorder"):
            return b"big"
        key = name.rsplit("/data/", 1)[-1] if "/data/" in name else None
        if key in sizes and sizes[key] > 1:
            return np.frombuffer(data, dtype=f"<u{sizes[key]}").byteswap().tobytes()
        return data

    out = checkpoint("bigendian-zip-specforge", folder)
    (out / "pytorch_model.bin").write_bytes(rewrite_zip(raw, big_endian))
    twins["bigendian-zip-specforge"] = producer_twin("specforge")
    out = checkpoint("deflated-zip-specforge", folder)
    (out / "pytorch_model.bin").write_bytes(rewrite_zip(raw, lambda n, d: d, zipfile.ZIP_DEFLATED))
    twins["deflated-zip-specforge"] = producer_twin("specforge")

    # Every dtype, plain and strided, both formats; the twin has the plain ones.
    dtypes = [
        torch.bool,
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.uint16,
        torch.uint32,
        torch.uint64,
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.float64,
        torch.float8_e4m3fn,
        torch.float8_e5m2,
        torch.float8_e4m3fnuz,
        torch.float8_e5m2fnuz,
        torch.float8_e8m0fnu,
        torch.complex64,
    ]
    gen = torch.Generator().manual_seed(23)
    every: OrderedDict[str, torch.Tensor] = OrderedDict()
    for dt in dtypes:
        name = str(dt).removeprefix("torch.")
        base = (torch.randn(3, 4, generator=gen) * 4).to(torch.float32)
        if dt == torch.bool:
            t = base > 0
        elif dt == torch.complex64:
            t = torch.complex(base, -base)
        elif dt == torch.float8_e8m0fnu:
            t = base.abs().clamp_min(0.01).to(dt)
        elif not dt.is_floating_point:
            t = base.round().abs().to(dt) if "uint" in name else base.round().to(dt)
        else:
            t = base.to(dt)
        every[name] = t
        every[f"{name}.t"] = t.t()
    config_from = PRODUCERS / DRAFTERS["specforge"]
    # The legacy format stores the newer dtypes (uint16-64, float8) as untyped storages that
    # torch.load(weights_only=True) then refuses: one file with every dtype (refused), one with
    # those that have a legacy storage class.
    legacy_ok = OrderedDict(
        (k, v)
        for k, v in every.items()
        if not str(v.dtype).startswith(("torch.uint", "torch.float8")) or v.dtype == torch.uint8
    )
    for case, tensors, new in (
        ("dtypes-zip", every, True),
        ("dtypes-legacy", legacy_ok, False),
        ("dtypes-legacy-newer", every, False),
    ):
        out = checkpoint(case, config_from)
        (out / "config.json").unlink()
        torch.save(tensors, out / "pytorch_model.bin", _use_new_zipfile_serialization=new)
    for case, tensors in (("dtypes-zip", every), ("dtypes-legacy", legacy_ok)):
        twins[case] = dtype_twin(case, tensors)

    # What torch loads and this reader reads only in part: a nested training checkpoint and
    # tensors of dtypes with no safetensors twin.
    sd3, folder3 = drafter("modelopt")
    out = checkpoint("nested-pt", folder3)
    (out / "config.json").unlink()
    inner = OrderedDict(list(sd3.items())[-3:])
    nested = {"state_dict": inner, "epoch": 3, "optimizer": "adamw", "lr": [1e-4, 5e-5]}
    torch.save(nested, out / "drafter.pt")
    out = checkpoint("unreadable-zip", folder3)
    (out / "config.json").unlink()
    odd = {
        "complex128": torch.zeros(2, dtype=torch.complex128),
        "quantized": torch.quantize_per_tensor(torch.ones(4), 0.1, 0, torch.qint8),
        "plain": torch.arange(4, dtype=torch.float32),
    }
    torch.save(odd, out / "weights.pt")
    return twins


class Reduce:
    """An object whose pickle calls `func(*args)` when loaded (how pickles carry code)."""

    def __init__(self, func: Any, args: tuple[Any, ...]) -> None:
        self.func, self.args = func, args

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return self.func, self.args


def write_hostile(modelaudit: Path | None) -> list[str]:
    """Own hostile files (each runs PAYLOAD when loaded without weights_only=True)."""
    own = HERE / "hostile" / "own"
    shutil.rmtree(own, ignore_errors=True)
    own.mkdir(parents=True)
    sd, _ = drafter("specforge")
    small = OrderedDict((k, sd[k]) for k in ("midlayer.hidden_norm.weight", "norm.weight"))
    payloads = {
        "os-system": Reduce(os.system, (PAYLOAD,)),
        "subprocess-call": Reduce(subprocess.call, (["touch", SENTINEL],)),
        "builtins-exec": Reduce(exec, (f"import os; os.system({PAYLOAD!r})",)),
        "builtins-eval": Reduce(eval, (f"__import__('os').system({PAYLOAD!r})",)),
    }
    written = []
    for name, obj in payloads.items():
        # Inside a state dict (after real tensors), in both torch formats...
        state = OrderedDict(small)
        state["zzz_payload"] = obj
        torch.save(state, own / f"{name}-zip.bin")
        torch.save(state, own / f"{name}-legacy.bin", _use_new_zipfile_serialization=False)
        # ...and as bare pickles of every protocol (0 and 1 use INST/GLOBAL, 4+ STACK_GLOBAL).
        for proto in (0, 2, 4, 5):
            (own / f"{name}-p{proto}.pkl").write_bytes(pickle.dumps(obj, protocol=proto))
        written += [f"{name}-zip.bin", f"{name}-legacy.bin"]
        written += [f"{name}-p{p}.pkl" for p in (0, 2, 4, 5)]
    # The legacy format's header pickles are pickles too: a payload in the magic number slot.
    legacy = own / "os-system-magic-slot.pt"
    with open(legacy, "wb") as f:
        pickle.dump(Reduce(os.system, (PAYLOAD,)), f, protocol=2)
        pickle.dump(1001, f, protocol=2)
    written.append(legacy.name)
    # A whole module saved with torch.save(model): classes outside the allowlist.
    model = torch.nn.Linear(2, 2)
    torch.save(model, own / "whole-module.pt")
    if modelaudit is not None:
        dest = HERE / "hostile" / "modelaudit"
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        shutil.copy(modelaudit / "LICENSE", dest / "LICENSE")
        for path in sorted((modelaudit / "tests" / "assets").rglob("*")):
            if (
                path.suffix in {".pkl", ".pt", ".pth", ".bin", ".pickle"}
                and path.stat().st_size < 65536
            ):
                rel = path.relative_to(modelaudit / "tests" / "assets")
                shutil.copy(path, dest / str(rel).replace("/", "__"))
    return written


def write_with_own_writer() -> dict[str, str]:
    """The specforge drafter through `eagle3_inspect.synthetic.torch_writer` (the writer the
    benchmarks and tests use without torch), in both formats: truth.json then says whether
    torch loads them and what they hold."""
    sys.path.insert(0, str(HERE.parents[1] / "python"))
    from eagle3_inspect.synthetic.torch_writer import (
        TorchTensor,
        write_torch_legacy,
        write_torch_zip,
    )

    sd, folder = drafter("specforge")
    st = {torch.bfloat16: "BF16", torch.int64: "I64", torch.bool: "BOOL"}
    tensors = {
        k: TorchTensor(st[v.dtype], tuple(v.shape), [v.view(torch.uint8).numpy().tobytes()])
        for k, v in sd.items()
    }
    for fmt, write in (("zip", write_torch_zip), ("legacy", write_torch_legacy)):
        out = checkpoint(f"writer-{fmt}-specforge", folder)
        write(out / "pytorch_model.bin", tensors)
    return {f"writer-{fmt}-specforge": producer_twin("specforge") for fmt in ("zip", "legacy")}


def flatten(value: Any, prefix: str = "") -> dict[str, torch.Tensor]:
    """Tensors of a loaded object named as the reader names them (dict keys and list indices
    joined with '.')."""
    join = (lambda k: f"{prefix}.{k}") if prefix else str
    if isinstance(value, torch.Tensor):
        return {prefix or "tensor": value}
    if isinstance(value, dict):
        out: dict[str, torch.Tensor] = {}
        for k, v in value.items():
            out |= flatten(v, join(k))
        return out
    if isinstance(value, (list, tuple)):
        out = {}
        for i, v in enumerate(value):
            out |= flatten(v, join(i))
        return out
    return {}


def tensor_truth(t: torch.Tensor) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "dtype": str(t.dtype),
        "shape": list(t.shape),
        "stride": list(t.stride()),
        "storage_offset": t.storage_offset(),
        "nbytes": t.numel() * t.element_size(),
    }
    if not (t.is_quantized or t.dtype in (torch.complex128,)):
        data = t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
        entry["sha256"] = hashlib.sha256(data).hexdigest()
    return entry


def weights_only(path: Path) -> dict[str, Any]:
    try:
        loaded = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as exc:
        # torch's refusal names the global after "WeightsUnpickler error:", on some line of a
        # long message: keep that part (or the first line) on one line.
        text = " ".join(str(exc).split())
        at = text.find("WeightsUnpickler error:")
        detail = text[at:] if at >= 0 else text
        return {"loads": False, "error": f"{type(exc).__name__}: {detail[:400]}"}
    return {"loads": True, "tensors": {k: tensor_truth(v) for k, v in flatten(loaded).items()}}


def picklescan(path: Path) -> dict[str, Any]:
    from picklescan.scanner import SafetyLevel, scan_file_path

    result = scan_file_path(str(path))
    dangerous = sorted(
        f"{g.module}.{g.name}" for g in result.globals if g.safety == SafetyLevel.Dangerous
    )
    return {"dangerous": dangerous, "scan_err": bool(result.scan_err)}


def payload_runs(path: Path) -> bool:
    """Does `torch.load(weights_only=False)` run the file's payload? In a throwaway directory."""
    with tempfile.TemporaryDirectory() as tmp:
        code = "import sys, torch; torch.load(sys.argv[1], weights_only=False)"
        subprocess.run(
            [sys.executable, "-c", code, str(path)], cwd=tmp, capture_output=True, timeout=60
        )
        return (Path(tmp) / SENTINEL).exists()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modelaudit", type=Path, help="an extracted modelaudit sdist")
    parser.add_argument(
        "--truth-only", action="store_true", help="re-record truth.json for the files as they are"
    )
    args = parser.parse_args()
    if args.truth_only:
        old = json.loads((HERE / "truth.json").read_text())
        twins = old["twins"]
        own = [
            Path(p).name
            for p, e in old["files"].items()
            if "payload_runs_without_weights_only" in e
        ]
    else:
        twins = write_cases()
        own = write_hostile(args.modelaudit)
        twins |= write_with_own_writer()
    files: dict[str, Any] = {}
    for path in sorted(p for p in HERE.rglob("*") if p.is_file()):
        rel = path.relative_to(HERE).as_posix()
        if not rel.startswith(("corpus/", "hostile/")) or path.suffix in {".json", ""}:
            continue
        if path.name == "LICENSE":
            continue
        entry = {"weights_only": weights_only(path), "picklescan": picklescan(path)}
        if path.name in own and rel.startswith("hostile/own/"):
            entry["payload_runs_without_weights_only"] = payload_runs(path)
            assert entry["payload_runs_without_weights_only"], f"{rel}: its payload does not run"
        files[rel] = entry
    truth = {
        "torch": torch.__version__,
        "picklescan": importlib.metadata.version("picklescan"),
        "sentinel": SENTINEL,
        "twins": twins,
        "files": files,
    }
    (HERE / "truth.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n")
    loads = sum(f["weights_only"]["loads"] for f in files.values())
    print(f"wrote {len(files)} files ({loads} load with weights_only=True) and truth.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
