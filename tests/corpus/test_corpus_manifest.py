"""The committed producer corpus: every manifest entry is on disk, loads with the reference
`safetensors` parser, agrees with our reader, and has no file-format (ST) or index (IX) errors.

Reads committed files only (no torch, no producer code).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import safetensors

from eagle3_inspect.commands.scan import scan
from eagle3_inspect.findings import Severity

CORPUS = Path(__file__).resolve().parent
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())
ENTRIES = MANIFEST["drafters"]
REQUIRED_FIELDS = {
    "dir",
    "producer",
    "producer_version",
    "variant",
    "options",
    "functions_called",
    "verifier",
    "files",
    "engines",
    "environment",
    "generator_command",
    "family",
    "family_variant",
    "family_evidence",
    "quantization",
}
# The drafter families (issue 19): the producer's algorithm and the draft decoder layer, as the
# producer's own built model said (producers/common.py family_fields).
FAMILIES = {"eagle3", "peagle", "dflash", "dflash2"}
FAMILY_VARIANTS = {"llama", "qwen3", "mla"}


def test_manifest_lists_every_drafter_directory_once():
    listed = [entry["dir"] for entry in ENTRIES]
    on_disk = sorted(p.name for p in CORPUS.iterdir() if (p / "config.json").is_file())
    assert len(listed) == len(set(listed))
    assert sorted(listed) == on_disk
    assert {entry["producer"] for entry in ENTRIES} >= {"speculators", "specforge"}


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["dir"] for e in ENTRIES])
def test_entry_is_complete_and_matches_its_directory(entry):
    assert set(entry) >= REQUIRED_FIELDS, REQUIRED_FIELDS - set(entry)
    assert entry["dir"] == f"{entry['producer']}-{entry['producer_version']}-{entry['variant']}"
    directory = CORPUS / entry["dir"]
    assert sorted(p.name for p in directory.iterdir()) == sorted(entry["files"])
    assert "config.json" in entry["files"]
    assert any(name.endswith(".safetensors") for name in entry["files"])
    json.loads((directory / "config.json").read_text())


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["dir"] for e in ENTRIES])
def test_reference_parser_and_our_reader_agree(entry):
    directory = CORPUS / entry["dir"]
    reference: dict[str, tuple[str, tuple[int, ...]]] = {}
    for name in entry["files"]:
        if not name.endswith(".safetensors"):
            continue
        with safetensors.safe_open(str(directory / name), framework="numpy") as handle:
            for key in handle.keys():  # noqa: SIM118 - safe_open has no __iter__
                piece = handle.get_slice(key)
                reference[key] = (piece.get_dtype(), tuple(piece.get_shape()))
    assert reference, "no tensors"
    report = scan(directory)
    ours = {t.name: (t.dtype, tuple(t.shape)) for t in report.tensors}
    assert ours == reference


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["dir"] for e in ENTRIES])
def test_entry_names_its_family(entry):
    assert entry["family"] in FAMILIES
    assert entry["family_variant"] in FAMILY_VARIANTS
    assert entry["quantization"] in (None, "fp8")
    flags = entry.get("eagle3_flags", {})
    assert all(isinstance(value, bool) for value in flags.values())
    if entry["family"] in ("dflash", "dflash2"):
        assert "eagle3_flags" not in entry


def test_verifier_models_record_the_committed_configs():
    """The exact config of every committed verifier is in the manifest (for forward-pass
    harnesses that build the target from it)."""
    for arch, record in MANIFEST["verifier_models"].items():
        assert MANIFEST["verifiers"][arch] == record["dir"]
        on_disk = json.loads((CORPUS / record["dir"] / "config.json").read_text())
        assert record["config"] == on_disk, arch
        assert record["written_by"] and record["loads_with"]


def test_every_drafter_names_a_committed_verifier():
    verifiers = MANIFEST["verifiers"]
    for entry in ENTRIES:
        verifier = CORPUS / verifiers[entry["verifier"]["arch"]]
        config = json.loads((verifier / "config.json").read_text())
        assert config["hidden_size"] == entry["verifier"]["config"]["hidden_size"]
        assert config["num_hidden_layers"] == entry["verifier"]["config"]["num_hidden_layers"]


DIRS = [e["dir"] for e in ENTRIES] + list(MANIFEST["verifiers"].values())


@pytest.mark.parametrize("directory", DIRS)
def test_no_structure_or_index_errors(directory):
    report = scan(CORPUS / directory)
    bad = [
        f"{f.code} {f.message}"
        for f in report.findings
        if f.severity is Severity.ERROR and f.code.startswith(("ST", "IX"))
    ]
    assert bad == []
