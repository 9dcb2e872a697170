"""`diff` decides d2t by what the mapping means (issue 24 item 12): the same draft-to-target
mapping in two encodings used to be "d2t differ [error]", exit 1, next to "same draft-to-target
mapping" in the same report. And a cosine prints alike in every face, never `1` for 0.999998."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from eagle3_inspect.synthetic.demo import write_demo
from eagle3_inspect.units import cosine_text
from tests.diff_helpers import write


def test_the_same_mapping_re_encoded_is_not_an_error(tmp_path: Path, run_cli) -> None:
    demo = write_demo(tmp_path / "demo")
    code, out, _ = run_cli("diff", str(demo.correct), str(demo.mislabelled), "--format", "concise")
    assert code == 0, out
    (d2t,) = [line for line in out.splitlines() if ":d2t: " in line]
    assert ": differ [info] " in d2t and "the same draft-to-target mapping" in d2t
    assert "[error]" not in out
    _, full, _ = run_cli("diff", str(demo.correct), str(demo.mislabelled), "--format", "full")
    assert "same draft-to-target mapping" in full and "different" not in full.splitlines()[0]
    doc = json.loads(run_cli("diff", str(demo.correct), str(demo.mislabelled), "--json")[1])
    assert doc["ok"] is True and doc["vocab"]["same_mapping"] is True
    (pair,) = [p for p in doc["changed"] if p["name"] == "d2t"]
    assert pair["status"] == "differ" and pair["note"].startswith("the same draft-to-target")


def test_another_mapping_is_still_an_error(tmp_path: Path, run_cli) -> None:
    demo = write_demo(tmp_path / "demo")
    code, out, _ = run_cli("diff", str(demo.correct), str(demo.broken), "--format", "concise")
    assert code == 1 and ":fc.weight: differ [error]" in out


def test_cosine_prints_alike_and_never_rounds_up_to_1(tmp_path: Path, run_cli) -> None:
    assert cosine_text(0.999998) == "0.999998"
    assert cosine_text(0.99999999) != "1" and float(cosine_text(0.99999999)) == 0.99999999
    assert cosine_text(1.0) == "1" and cosine_text(None) == "-"
    rng = np.random.default_rng(0)
    base = rng.standard_normal(4096).astype(np.float32)
    other = (base + rng.standard_normal(4096).astype(np.float32) * 2e-3).astype(np.float32)
    a = write(tmp_path / "a", {"w": base})
    b = write(tmp_path / "b", {"w": other})
    doc = json.loads(run_cli("diff", str(a), str(b), "--json", "--atol", "0", "--rtol", "0")[1])
    (pair,) = doc["changed"]
    assert 0.999 < pair["cosine"] < 1.0
    shown = cosine_text(pair["cosine"])
    assert shown != "1"
    _, concise, _ = run_cli(
        "diff", str(a), str(b), "--format", "concise", "--atol", "0", "--rtol", "0"
    )
    _, full, _ = run_cli("diff", str(a), str(b), "--format", "full", "--atol", "0", "--rtol", "0")
    assert f"cosine={shown}" in concise and f" {shown} " in " ".join(full.split()) + " "
