"""Fuzzes the torch readers with mutations of the torch corpus's files: byte edits, truncations,
insertions, and pickle-aware edits (a GLOBAL renamed to a name torch allows or refuses, an
integer argument changed, an opcode swapped for another, a `touch` payload spliced in). Run in a
watched worker by `tests/fuzz/campaign.py` (`target="tests.torch.fuzz"`).

The judge holds every case to invariants: the reader never raises or panics (the watchdog
counts crashes and hangs), never runs a payload (the worker's directory must stay free of the
sentinel file), locates every finding (a file, and for PT a byte offset inside the file), and
reads every tensor of a file it finds no error in. With `E3_FUZZ_TORCH=1` and torch importable
(hand-run, `scripts/fuzz_torch.py`), `torch.load(weights_only=True)` judges too: it refuses
exactly the cases that get an error here, and where both load, the tensors are the same.
Cases whose verdict is worth keeping are minimized into `fuzz_corpus/` with torch's verdict in
`fuzz_corpus/verdicts.json`, which CI replays without torch.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any

import numpy as np

from eagle3_inspect import _native
from tests.fuzz import campaign
from tests.fuzz.oracle import OK

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "fuzz_corpus"
VERDICTS = CORPUS / "verdicts.json"
CORPUS_CAP = 200
SENTINEL = "eagle3-inspect-sentinel"
RAISED = "exception instead of a finding"
UNLOCATED = "finding without file or offset"
UNREADABLE = "no error, but a tensor does not read"
RAN = "a payload ran"
MISSED = "torch refuses, no error here"
STRICTER = "torch loads it, an error here"
DIFFERENT = "both load, different tensors"
CATEGORIES = (OK, RAISED, UNLOCATED, UNREADABLE, RAN, MISSED, STRICTER, DIFFERENT)
# Where this reader is stricter than torch on purpose (docs/torch-pickle.md); each code is an
# error on files torch loads.
EXTRA_STRICTNESS = {
    "PT010": "a legacy storage the pickle loads with no data in the file (torch leaves it "
    "uninitialized)",
    "PT003": "a deflated record that does not inflate (torch's miniz hands over what it "
    "inflated; every other PT003 record torch refuses too)",
}
NAMES = [
    ("posix", "system"),
    ("builtins", "exec"),
    ("builtins", "eval"),
    ("subprocess", "call"),
    ("os", "popen"),
    ("runpy", "_run_code"),
    ("torch", "load"),
    ("collections", "defaultdict"),
    ("__builtin__", "getattr"),
    ("torch._utils", "_rebuild_tensor_v2"),
    ("torch._utils", "_rebuild_tensor_v3"),
    ("torch._utils", "_rebuild_parameter"),
    ("torch", "FloatStorage"),
    ("torch", "BFloat16Storage"),
    ("torch", "LongStorage"),
    ("torch.storage", "UntypedStorage"),
    ("collections", "OrderedDict"),
    ("torch", "Size"),
    ("torch", "float32"),
    ("torch", "device"),
    ("torch._utils", "_rebuild_qtensor"),
    ("__builtin__", "set"),
    ("_codecs", "encode"),
    ("torch._tensor", "_rebuild_from_type_v2"),
]
PAYLOAD = b"cposix\nsystem\nX" + len(f"touch {SENTINEL}").to_bytes(4, "little")
PAYLOAD += f"touch {SENTINEL}".encode() + b"\x85R"


@functools.cache
def seeds() -> list[tuple[str, bytes]]:
    """(kind, bytes) of every torch file of the corpus up to 200 KiB."""
    out = []
    for path in sorted(HERE.glob("corpus/*/*")) + sorted(HERE.glob("hostile/*/*")):
        if (
            path.suffix in {".bin", ".pt", ".pkl", ".pth", ".pickle"}
            and path.stat().st_size < 200_000
        ):
            data = path.read_bytes()
            out.append(("zip" if data[:4] == b"PK\x03\x04" else "legacy", data))
    return out


def _pickle_edit(rng: random.Random, data: bytearray) -> None:
    """One pickle-aware edit at a GLOBAL, an integer opcode, or any opcode."""
    globals_at = [i for i in range(len(data)) if data[i] == ord("c") and b"\n" in data[i : i + 64]]
    choice = rng.random()
    if globals_at and choice < 0.4:
        at = rng.choice(globals_at)
        end = (
            data.index(b"\n", data.index(b"\n", at) + 1) + 1
            if data.count(b"\n", at) >= 2
            else at + 1
        )
        module, name = rng.choice(NAMES)
        data[at:end] = b"c" + f"{module}\n{name}\n".encode()
    elif choice < 0.7:
        ints = [i for i in range(len(data) - 2) if data[i] in (ord("K"), ord("M"), ord("J"))]
        if ints:
            at = rng.choice(ints)
            data[at + 1] = rng.choice([0, 1, 2, 3, 7, 64, 127, 128, 255])
    elif choice < 0.85:
        at = rng.randrange(len(data))
        data[at : at + 1] = PAYLOAD
    else:
        at = rng.randrange(len(data))
        data[at] = rng.choice(b"()}]qhrKJMXcRbQsutaeN.\x80\x85\x86\x87\x88\x89\x8a\x93io")


def case_for(seed: int, index: int) -> tuple[str, bytes]:
    rng = random.Random(f"torch:{seed}:{index}")
    kind, base = rng.choice(seeds())
    data = bytearray(base)
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if not data:
            break
        if roll < 0.45:
            _pickle_edit(rng, data)
        elif roll < 0.75:
            at = rng.randrange(len(data))
            data[at] = rng.randrange(256)
        elif roll < 0.85:
            del data[rng.randrange(len(data)) :]
        elif roll < 0.95:
            at = rng.randrange(len(data))
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            at = rng.randrange(len(data))
            del data[at : at + rng.randint(1, 64)]
    return kind, bytes(data)


def _torch_verdict(path: Path) -> dict[str, Any] | None:
    """torch.load(weights_only=True)'s verdict, when E3_FUZZ_TORCH is set and torch imports."""
    if os.environ.get("E3_FUZZ_TORCH") != "1":
        return None
    import torch

    sys_path = str(HERE)
    import sys

    if sys_path not in sys.path:
        sys.path.insert(0, sys_path)
    from generate import flatten

    try:
        loaded = torch.load(path, weights_only=True, map_location="cpu")
    except Exception:
        return {"loads": False}
    hashes = {}
    for name, t in flatten(loaded).items():
        if t.is_quantized or t.dtype == torch.complex128 or t.is_sparse:
            continue
        data = t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
        hashes[name] = hashlib.sha256(data).hexdigest()
    return {"loads": True, "tensors": hashes}


def judge_file(path: Path, verdict: dict[str, Any] | None) -> tuple[str, bool, tuple[str, ...]]:
    """(category, whether it reads without errors, the error codes) for the file at `path`."""
    sentinel = path.parent / SENTINEL
    size = path.stat().st_size
    try:
        native = _native.NativeCheckpoint(str(path))
        findings = native.findings
    except _native.InspectError:
        return RAISED, False, ()
    if sentinel.exists():
        sentinel.unlink()
        return RAN, False, ()
    for f in findings:
        located = f["file"] and (not f["code"].startswith("PT") or f["offset"] is not None)
        if not located or (f["offset"] is not None and not 0 <= f["offset"] <= size):
            return UNLOCATED, False, ()
    errors = tuple(sorted({f["code"] for f in findings if f["severity"] == "error"}))
    ours: dict[str, str] = {}
    if not errors:
        table = native.tensors
        for name, nbytes, readable in zip(
            table["name"], table["nbytes"], table["readable"], strict=True
        ):
            if not readable:
                continue
            try:
                data = np.asarray(native.buffer(name)).tobytes()
            except _native.InspectError:
                return UNREADABLE, True, ()
            if len(data) != nbytes:
                return UNREADABLE, True, ()
            ours[name] = hashlib.sha256(data).hexdigest()
    if verdict is None:
        return OK, not errors, errors
    if not verdict["loads"]:
        return (MISSED if not errors else OK), not errors, errors
    if errors:
        documented = set(errors) <= EXTRA_STRICTNESS.keys()
        return (OK if documented else STRICTER), False, errors
    theirs = verdict.get("tensors")
    if theirs is not None and any(theirs.get(n, h) != h for n, h in ours.items()):
        return DIFFERENT, True, ()
    return OK, True, ()


def judge(kind: str, blob: bytes, workdir: Path) -> tuple[str, bool, tuple[str, ...]]:
    path = workdir / ("case.bin" if kind == "zip" else "case.pt")
    path.write_bytes(blob)
    return judge_file(path, _torch_verdict(path))


# Cases kept in the corpus stay small; larger ones are counted, not kept (minimizing a drafter
# with torch judging each step would stall the watchdog).
KEEP_BYTES = 32 << 10


def minimize(kind: str, blob: bytes, workdir: Path, budget: int = 200) -> bytes:
    """Greedy chunk deletion keeping the same judgment."""
    if len(blob) > 2 * KEEP_BYTES:
        return blob
    return campaign.shrink(blob, lambda candidate: judge(kind, candidate, workdir), budget)


def save(kind: str, blob: bytes, corpus: Path) -> str | None:
    """Keeps a case with torch's verdict on it (hand-run campaigns only record verdicts)."""
    if len(list(corpus.glob("case-*"))) >= CORPUS_CAP or len(blob) > KEEP_BYTES:
        return None
    name = f"case-{kind}-{hashlib.sha1(blob).hexdigest()[:16]}.{'bin' if kind == 'zip' else 'pt'}"
    path = corpus / name
    path.write_bytes(blob)
    verdict = _torch_verdict(path)
    if verdict is not None:
        verdicts = json.loads(VERDICTS.read_text()) if VERDICTS.exists() else {}
        verdicts[name] = verdict
        VERDICTS.write_text(json.dumps(verdicts, indent=1, sort_keys=True) + "\n")
    return name


def replay(workdir: Path) -> list[tuple[str, str]]:
    """Judges every kept case, copied into `workdir` (the current directory: where a payload
    that ran would leave its file), against its committed torch verdict; (file, category) per
    case that fails."""
    verdicts = json.loads(VERDICTS.read_text())
    bad = []
    for name, verdict in sorted(verdicts.items()):
        path = workdir / name
        path.write_bytes((CORPUS / name).read_bytes())
        category = judge_file(path, verdict)[0]
        if category != OK:
            bad.append((name, category))
    return bad
