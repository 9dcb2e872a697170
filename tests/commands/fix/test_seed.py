"""The seed's drafter: its format bugs are fixed for the SGLang versions of the story; the fc
trained for one aux layer is refused (E3009) rather than guessed; a target class the engine
cannot capture from is the one error left, with the engine version to use instead."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from eagle3_inspect.commands.fix import fix
from eagle3_inspect.commands.validate import validate
from eagle3_inspect.synthetic.demo import CAPTURE_ENGINE, ENGINE, write_demo
from tests.commands.fix.helpers import load_all


def test_the_broken_demo_drafter_is_refused_on_its_fc_width(tmp_path: Path) -> None:
    files = write_demo(tmp_path / "demo")
    report = fix(files.broken, engine=ENGINE, out=tmp_path / "dst")
    assert report.status == "refused" and report.refusal["code"] == "E3009"
    assert report.exit_code == 2 and not (tmp_path / "dst").exists()


def test_format_bugs_fixed_for_the_seed_engine_validate_clean(tmp_path: Path) -> None:
    files = write_demo(tmp_path / "demo")
    before = validate(files.mislabelled, engine=ENGINE)
    # The rename's EN002s are folded into its one EN001 (rules/en/fold.py).
    assert {"EN001", "VM006"} <= {f.code for f in before.findings}
    report = fix(files.mislabelled, engine=ENGINE, target=files.target, out=tmp_path / "dst")
    assert report.status == "fixed", report.to_dict()
    after = validate(tmp_path / "dst", engine=ENGINE, target=files.target)
    assert after.ok, [f.code for f in after.findings if f.severity.value == "error"]
    assert after.vocab.encoding == "offsets"
    src, dst = load_all(files.mislabelled), load_all(tmp_path / "dst")
    absolute = np.frombuffer(src["d2t"][2], dtype=np.int64)
    offsets = np.frombuffer(dst["d2t"][2], dtype=np.int64)
    np.testing.assert_array_equal(offsets + np.arange(offsets.size), absolute)
    assert dst["midlayer.self_attn.q_proj.weight"] == src["layers.0.self_attn.q_proj.weight"]


def test_a_target_without_aux_capture_is_left_with_the_version_to_use(tmp_path: Path) -> None:
    files = write_demo(tmp_path / "demo")
    report = fix(
        files.mislabelled, engine=CAPTURE_ENGINE, target=files.target, out=tmp_path / "dst"
    )
    assert report.status == "fixed"
    assert [f["code"] for f in report.expected] == ["EN006"]
    staged = report.verification["validate"]["expected"]
    assert [f["code"] for f in staged] == ["EN006"]
    assert [f["file"] for f in staged] == [str(tmp_path / "dst" / "config.json")]
    assert report.suggestion and "sglang@0.5." in report.suggestion
    after = validate(tmp_path / "dst", engine=CAPTURE_ENGINE, target=files.target)
    assert {f.code for f in after.findings if f.severity.value == "error"} == {"EN006"}
    suggested = report.suggestion.split()[2]
    again = validate(tmp_path / "dst", engine=suggested, target=files.target)
    assert "EN006" not in {f.code for f in again.findings}


def test_drop_unused_leaves_out_what_the_engine_skips(tmp_path: Path) -> None:
    corpus = Path(__file__).resolve().parents[2] / "corpus" / "specforge-0.2.0-llama-sglang"
    kept = fix(corpus, engine=ENGINE, out=tmp_path / "kept")
    assert kept.status == "nothing-to-do"
    report = fix(corpus, engine=ENGINE, out=tmp_path / "dst", drop_unused=True)
    assert report.status == "fixed"
    assert {c["tensor"] for c in report.changes if c["kind"] == "drop"} == {"t2d"}
    assert "t2d" not in load_all(tmp_path / "dst")
    assert validate(tmp_path / "dst", engine=ENGINE).ok
