"""fix and the vocab mapping: t2d generated from d2t for an engine that needs it (equal to the
mask the producer would have written), and a d2t/t2d pair that disagrees refused, not guessed."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from eagle3_inspect.commands.fix import fix
from eagle3_inspect.commands.validate import validate
from eagle3_inspect.synthetic.drafters import build_drafter
from tests.commands.fix.helpers import load_all

ENGINE = "speculators@0.9.0"


def test_t2d_is_generated_from_d2t_when_the_engine_needs_it(tmp_path: Path) -> None:
    drafter = build_drafter(H=64, Vd=256, Vt=1024)
    mask = np.asarray(drafter.tensors["t2d"])
    without = drafter.copy()
    del without.tensors["t2d"]
    src = without.write(tmp_path / "src")
    # speculators loads the verifier by name: an HF-style SRC names none
    report = fix(src, engine=ENGINE, out=tmp_path / "dst", verifier="synthetic/target-model")
    assert report.status == "fixed", report.to_dict()
    assert any(c["kind"] == "t2d" for c in report.changes)
    dtype, shape, data = load_all(tmp_path / "dst")["t2d"]
    assert (dtype, shape) == ("BOOL", (1024,))
    np.testing.assert_array_equal(np.frombuffer(data, dtype=np.bool_), mask)
    assert validate(tmp_path / "dst", engine=ENGINE).ok


def test_a_t2d_that_disagrees_with_d2t_is_refused(tmp_path: Path) -> None:
    drafter = build_drafter(H=64, Vd=256, Vt=1024)
    broken = drafter.copy()
    mask = np.array(drafter.tensors["t2d"], copy=True)
    first = int(np.flatnonzero(mask)[0])
    mask[first] = False
    mask[np.flatnonzero(~mask)[-1]] = True
    broken.tensors["t2d"] = mask
    src = broken.write(tmp_path / "src")
    report = fix(src, engine=ENGINE, out=tmp_path / "dst")
    assert report.status == "refused", report.to_dict()
    assert report.refusal["code"].startswith("VM")
    assert not (tmp_path / "dst").exists()
