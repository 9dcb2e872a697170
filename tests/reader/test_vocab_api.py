"""Checkpoint.vocab_mapping(): the native d2t/t2d analysis through the Python API."""

from __future__ import annotations

import numpy as np

import eagle3_inspect
from eagle3_inspect.synthetic.drafters import build_drafter, mutate_d2t_absolute


def test_correct_mapping_is_offsets_with_no_findings(tmp_path):
    drafter = build_drafter(Vd=256, Vt=1024)
    mapping = eagle3_inspect.open(drafter.write(tmp_path / "d")).vocab_mapping()
    assert (mapping.encoding, mapping.certainty) == ("offsets", "exact")
    assert mapping.findings == []
    t2d_ids = np.nonzero(eagle3_inspect.open(tmp_path / "d").tensor("t2d"))[0]
    assert mapping.target_ids.tolist() == t2d_ids.tolist()
    assert mapping.vd == 256 and mapping.vt == 1024


def test_absolute_ids_are_reported_with_a_fix(tmp_path):
    drafter = mutate_d2t_absolute(build_drafter(Vd=256, Vt=1024))
    mapping = eagle3_inspect.open(drafter.write(tmp_path / "d")).vocab_mapping()
    assert (mapping.encoding, mapping.certainty) == ("absolute", "exact")
    (finding,) = mapping.findings
    assert finding.code == "VM006" and finding.severity.value == "error"
    assert finding.tensor == "d2t" and finding.hint
    ckpt = eagle3_inspect.open(tmp_path / "d")
    assert mapping.target_ids.tolist() == ckpt.tensor("d2t").tolist()
