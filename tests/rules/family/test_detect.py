"""Family detection: which drafter family and variant a checkpoint is, on the producers'
corpus and on synthetic drafters of every family; 'a target model' and 'not a drafter family
this tool knows' for the rest (FM002 / FM001, and no family's rules run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import eagle3_inspect
from eagle3_inspect.commands.validate import validate
from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.findings import Severity
from eagle3_inspect.layout import detect_layout
from eagle3_inspect.reader.draft_config import read_draft_config
from eagle3_inspect.rules.family.check import check_family
from eagle3_inspect.rules.family.detect import detect_family
from eagle3_inspect.rules.family.known import SPECS
from eagle3_inspect.rules.family.names import DRAFTER_FAMILIES
from eagle3_inspect.synthetic.drafters import build_drafter
from eagle3_inspect.synthetic.families import build_dflash, build_peagle, build_target_model
from tests.layout_helpers import with_config

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())


def _family(path: Path):
    ckpt = eagle3_inspect.open(path)
    cfg = read_draft_config(ckpt.config)
    return detect_family(ckpt.tensors, cfg, detect_layout(ckpt.tensors, ckpt.config))


@pytest.mark.parametrize("entry", MANIFEST["drafters"], ids=lambda e: e["dir"])
def test_every_corpus_drafter_is_the_family_its_producer_wrote(entry: dict) -> None:
    """The manifest's family and variant are what the producer's own built model decided."""
    family = _family(CORPUS / entry["dir"])
    assert (family.name, family.variant) == (entry["family"], entry["family_variant"]), family


SYNTHETIC = {
    "eagle3 llama": (lambda: build_drafter(), "eagle3", "llama", ()),
    "eagle3 speculators": (
        lambda: build_drafter(dialect="layers", config_style="speculators"),
        "eagle3",
        "llama",
        (),
    ),
    "eagle3 qwen3": (
        lambda: build_drafter(dialect="layers", config_style="speculators", qwen3_norms=True),
        "eagle3",
        "qwen3",
        (),
    ),
    "eagle3 mla": (lambda: build_drafter(dialect="layers", mla=True), "eagle3", "mla", ()),
    "eagle 3.1": (
        lambda: build_drafter(dialect="layers", config_style="speculators", eagle31=True),
        "eagle3",
        "llama",
        ("eagle3.1",),
    ),
    "eagle3 no config": (
        lambda: with_config(build_drafter(), "architectures", delete=True),
        "eagle3",
        "llama",
        (),
    ),
    "peagle speculators": (lambda: build_peagle(), "peagle", "llama", ()),
    "peagle hf": (lambda: build_peagle(style="hf"), "peagle", "llama", ()),
    "dflash speculators": (lambda: build_dflash(), "dflash", "qwen3", ("multi-layer",)),
    "dflash zlab": (lambda: build_dflash(style="zlab"), "dflash", "qwen3", ("multi-layer",)),
    "dflash2": (lambda: build_dflash(dflash2=True, Vd=None), "dflash2", "qwen3", ("multi-layer",)),
}


@pytest.mark.parametrize("case", sorted(SYNTHETIC))
def test_family_and_variant_of_each_kind(case: str, tmp_path) -> None:
    build, name, variant, features = SYNTHETIC[case]
    family = _family(build().write(tmp_path / "d"))
    assert (family.name, family.variant, family.features) == (name, variant, features)
    assert family.evidence


def test_tensors_alone_decide_without_a_config(tmp_path) -> None:
    for build, name in ((build_dflash, "dflash"), (build_peagle, "peagle")):
        drafter = build()
        drafter.config = {}
        path = drafter.write(tmp_path / name)
        (path / "config.json").unlink()
        assert _family(path).name == name


def test_a_target_model_is_called_one_and_validate_refuses_it(tmp_path) -> None:
    """validate on a target is InvalidArgumentError (exit 2), as --target on a drafter is; the
    family rules alone still say FM002 (what fix refuses with)."""
    path = build_target_model().write(tmp_path / "target")
    family = _family(path)
    assert family.name == "target" and family.title == "a target model"
    with pytest.raises(InvalidArgumentError, match="this is a target model, not a drafter"):
        validate(path, stats=False, engine="vllm@0.33.0")
    ckpt = eagle3_inspect.open(path)
    cfg = read_draft_config(ckpt.config)
    found = check_family(family, ckpt.tensors, cfg, detect_layout(ckpt.tensors, ckpt.config))
    assert [(f.code, f.severity) for f in found] == [("FM002", Severity.WARNING)]


def test_an_unknown_family_says_so_and_runs_no_family_rules(tmp_path) -> None:
    drafter = build_dflash()
    drafter.config["speculators_model_type"] = "dspark"
    report = validate(drafter.write(tmp_path / "d"), stats=False, engine="vllm@0.33.0")
    assert report.family.name == "unknown"
    assert [f.code for f in report.findings] == ["FM001"]
    assert "dspark" in report.findings[0].message


def test_families_are_one_vocabulary() -> None:
    assert tuple(s.name for s in SPECS) == ("dflash2", "dflash", "peagle", "eagle3")
    assert set(DRAFTER_FAMILIES) == {s.name for s in SPECS}


def test_validate_json_and_human_output_name_the_family(tmp_path, run_cli) -> None:
    path = build_dflash().write(tmp_path / "d")
    _, out, _ = run_cli("validate", str(path), "--no-stats", "--json")
    doc = json.loads(out)
    assert doc["family"]["name"] == "dflash" and doc["family"]["variant"] == "qwen3"
    assert doc["schema"] == "eagle3-inspect/validate/1"
    _, out, _ = run_cli("validate", str(path), "--no-stats", "--format", "full")
    assert "family: DFlash (Qwen3 layers" in out
