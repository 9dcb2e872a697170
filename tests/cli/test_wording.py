"""Findings say one thing once, the same way in every face (issue 24 item 11): one prefix per
tensor in concise output, the tensor's file as the annotation's `file=` with the name said
once, the same formula in full and concise, no nested parentheses, Python reprs or "None" in
messages, one program prefix on a usage error, one verdict word for scan and validate, and a
root cause folded with what follows from it (one rename is not 20 errors, one fc not two)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from eagle3_inspect.synthetic.demo import write_demo

OLD_ENGINE = "sglang@0.5.9"  # reads layers.0.* as nothing: the demo's rename problem


@pytest.fixture
def demo(tmp_path: Path):
    return write_demo(tmp_path / "demo")


def _broken(run_cli, demo, fmt: str) -> tuple[int, str]:
    code, out, _ = run_cli(
        "validate", str(demo.broken), "--engine", OLD_ENGINE, "--target", str(demo.target),
        "--format", fmt,
    )  # fmt: skip
    return code, out


def test_one_tensor_one_prefix_in_concise(run_cli, demo) -> None:
    _, out = _broken(run_cli, demo, "concise")
    prefixes = {line.split(": ", 1)[0] for line in out.splitlines() if ":fc.weight: " in line}
    assert prefixes == {f"{demo.broken}/model.safetensors:fc.weight"}, out


def test_one_fc_problem_is_one_finding(run_cli, demo) -> None:
    _, out = _broken(run_cli, demo, "concise")
    assert " E3009 [error] " in out and " EN015 [" not in out
    (e3009,) = [line for line in out.splitlines() if " E3009 " in line]
    assert "EN015 x1" in e3009


def test_one_rename_problem_is_one_finding(run_cli, demo) -> None:
    code, out, _ = run_cli("validate", str(demo.mislabelled), "--engine", OLD_ENGINE, "--json")
    doc = json.loads(out)
    codes = [f["code"] for f in doc["findings"]]
    assert code == 1 and codes.count("EN001") == 1 and "EN002" not in codes, codes
    (en001,) = [f for f in doc["findings"] if f["code"] == "EN001"]
    assert "layers.0.*" in en001["message"] and "midlayer.*" in en001["message"]
    assert "EN001 x9, EN002 x10" in en001["message"]
    assert doc["summary"]["errors"] == len([c for c in codes if c in ("EN001", "VM006")]) == 2


def test_github_annotations_name_the_tensors_file_and_the_tensor_once(run_cli, demo) -> None:
    _, out = _broken(run_cli, demo, "github")
    for line in out.splitlines():
        if not line.startswith("::"):
            continue
        props, message = line[2:].split("::", 1)
        file = re.search(r"file=([^,]*)", props).group(1)  # type: ignore[union-attr]
        assert file.replace("%2C", ",").endswith((".safetensors", "config.json", "drafter-broken"))
        # Not `fc.weight: fc.weight is ...`: a name before the message is not said again.
        assert not re.match(r"([\w.]+): .*(?<![\w.])\1(?![\w])", message), line
    en001 = [line for line in out.splitlines() if "title=EN001" in line]
    assert en001 and all("model.safetensors" in line for line in en001)


def test_full_and_concise_say_the_same_formula(run_cli, demo) -> None:
    _, full = _broken(run_cli, demo, "full")
    _, concise = _broken(run_cli, demo, "concise")
    assert "target = d2t[i] + i" in " ".join(full.split())
    assert "target = d2t[i] + i" in concise
    # The engine is named once (the message starts from it), never lost as rich markup.
    assert f"EN001 {OLD_ENGINE} silently drops" in full and "EN001  " not in full


def test_messages_have_no_nested_defaults_reprs_or_none(run_cli, demo) -> None:
    outs = [_broken(run_cli, demo, "concise")[1]]
    for engine in ("all", "speculators@0.9.0"):
        outs.append(run_cli("validate", str(demo.mislabelled), "--engine", engine,
                            "--format", "concise")[1])  # fmt: skip
    text = "\n".join(outs)
    assert "(reads nothing" not in text and "looked up as None" not in text
    assert "['" not in text, [line for line in text.splitlines() if "['" in line]


def test_a_usage_error_names_the_program_once(run_cli, demo) -> None:
    code, _, err = run_cli("validate", str(demo.correct), "--threads", "0")
    assert code == 2 and err.startswith("eagle3-inspect: error: validate: ")
    assert err.count("eagle3-inspect") == 1


def test_scan_and_validate_share_the_verdict_word(run_cli, demo) -> None:
    scan = run_cli("scan", str(demo.correct), "--format", "concise")[1].splitlines()[-1]
    validate = run_cli("validate", str(demo.correct), "--format", "concise")[1].splitlines()[-1]
    assert scan.startswith("PASS: ") and validate.startswith("PASS: ")
    assert scan.endswith("(failing on error and above)")
