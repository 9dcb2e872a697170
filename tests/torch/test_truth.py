"""The reader held to torch.load(weights_only=True) on every file of the torch corpus (truth.json,
written by torch itself): what torch refuses gets an error finding; for what torch loads, the
reader gives the same tensors (names, dtypes, shapes, bytes, and the sha256 of each tensor's
logical bytes: strided views, tied storages, big-endian and deflated records included), or a
PT011 warning naming what it does not read."""

from __future__ import annotations

import hashlib

import eagle3_inspect
from eagle3_inspect.findings import Severity
from tests.torch.truth import DTYPES, HERE, files, truth


def disagreements(rel: str, entry: dict) -> list[str]:
    ckpt = eagle3_inspect.open(HERE / rel)
    errors = [f for f in ckpt.findings if f.severity is Severity.ERROR]
    verdict = entry["weights_only"]
    if not verdict["loads"]:
        return [] if errors else [f"{rel}: torch refuses ({verdict['error']}), no error here"]
    if errors:
        return [f"{rel}: torch loads it, errors here: {[f.code for f in errors]}"]
    unread = " ".join(f.message for f in ckpt.findings if f.code == "PT011")
    problems = []
    for name, want in verdict["tensors"].items():
        if name not in ckpt.tensors or name in ckpt.unreadable:
            if f'"{name}"' not in unread and name not in ckpt.unreadable:
                problems.append(f"{rel}: {name} missing without a PT011 warning")
            continue
        info = ckpt.tensors[name]
        got = (info.dtype, list(info.shape), info.nbytes)
        if got != (DTYPES.get(want["dtype"]), want["shape"], want["nbytes"]):
            problems.append(f"{rel}: {name} is {got}, torch says {want}")
        elif hashlib.sha256(bytes(ckpt.raw_bytes(name))).hexdigest() != want["sha256"]:
            problems.append(f"{rel}: {name}'s bytes differ from torch's")
    extra = set(ckpt.tensors) - set(verdict["tensors"])
    problems += [f"{rel}: {name} is not a tensor torch loads" for name in sorted(extra)]
    return problems


def test_every_file_agrees_with_torch_weights_only() -> None:
    recorded = files()
    assert len(recorded) >= 70 and truth()["torch"].startswith("2.15")
    problems = [p for rel, entry in recorded.items() for p in disagreements(rel, entry)]
    assert problems == []


def test_the_corpus_covers_every_format_and_layout() -> None:
    loads = {rel for rel, e in files("corpus/").items() if e["weights_only"]["loads"]}
    for case in (
        "zip-",
        "legacy-",
        "sharded-",
        "strided-zip",
        "strided-legacy",
        "tied-zip",
        "tied-legacy",
        "bigendian-",
        "deflated-",
        "dtypes-zip",
        "dtypes-legacy/",
        "nested-pt",
    ):
        assert any(case in rel for rel in loads), case
    dtypes = {t["dtype"] for rel in loads for t in files()[rel]["weights_only"]["tensors"].values()}
    assert set(DTYPES) <= dtypes


def test_what_the_reader_does_not_read_is_a_warning_naming_it() -> None:
    ckpt = eagle3_inspect.open(HERE / "corpus" / "unreadable-zip" / "weights.pt")
    warned = {f.tensor: f for f in ckpt.findings if f.code == "PT011"}
    assert "complex128" in warned and "complex128" in ckpt.unreadable
    opaque = next(f for f in ckpt.findings if f.code == "PT011" and f.tensor is None)
    assert '"quantized"' in opaque.message and "_rebuild_qtensor" in opaque.message
    assert "plain" in ckpt.tensors and "plain" not in ckpt.unreadable


def test_strided_tied_and_odd_layouts_say_so() -> None:
    def codes(case: str) -> set[str]:
        return {f.code for f in eagle3_inspect.open(HERE / "corpus" / case).findings}

    assert {"PT013"} <= codes("strided-zip-specforge")
    assert {"PT014"} <= codes("tied-legacy-specforge")
    assert {"PT015"} <= codes("bigendian-zip-specforge")
    assert {"PT012"} <= codes("legacy-specforge")
    nested = eagle3_inspect.open(HERE / "corpus" / "nested-pt" / "drafter.pt")
    assert all(n.startswith("state_dict.") for n in nested.tensors)
    assert any(f.code == "PT017" and '"epoch" (int)' in f.message for f in nested.findings)
