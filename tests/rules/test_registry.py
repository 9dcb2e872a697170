"""The rule catalogue: every code the code base can emit is documented, and `rules` works."""

from __future__ import annotations

import json
import re
from pathlib import Path

from eagle3_inspect import _native
from eagle3_inspect.findings import Severity
from eagle3_inspect.registry import all_rules, family_of

ROOT = Path(__file__).resolve().parents[2]
# A code as Python names it ("IX009") or as the Rust core does (Code::IX009).
CODE = re.compile(r'(?:"|\bCode::)((?:ST|IX|NUM|VM|E3|EN|FM|PE|DF|TG)\d{3,4})\b')


def emitted_codes() -> set[str]:
    codes: set[str] = set()
    sources = [*ROOT.glob("rust/core/src/**/*.rs"), *ROOT.glob("python/eagle3_inspect/**/*.py")]
    for path in sources:
        if path.name.endswith("tests.rs") or "tests" in path.parts:
            continue
        codes.update(CODE.findall(path.read_text()))
    return codes


def test_every_emitted_code_is_documented():
    documented = set(all_rules())
    missing = emitted_codes() - documented
    assert not missing, f"codes emitted but not in the catalogue: {sorted(missing)}"


def test_the_built_core_has_the_registry_s_codes_and_severities():
    """The core's `Code` is generated from codes.toml when it is built: an extension built from
    other codes.toml files (a stale build) fails here."""
    emitted = _native.emitted_codes()
    families = {family_of(code) for code, _ in emitted}
    assert families == {"ST", "IX", "PT", "VM"}  # PT: torch files (h/pickle)
    rules = all_rules()
    for code, severity in emitted:
        assert code in rules, f"{code} is emitted by the Rust core but not defined"
        assert rules[code].severity is Severity(severity), code
    defined = {c for c in rules if family_of(c) in families}
    # IX009 is also emitted by Python (config.json that does not parse); every other ST/IX/VM
    # definition must be something the core can emit.
    assert defined == {code for code, _ in emitted}


def test_every_rule_is_complete():
    for code, doc in all_rules().items():
        assert doc.code == code
        assert doc.summary and doc.explanation, code
        if doc.severity.value != "info":
            assert doc.hint, f"{code} needs a fix hint"


def test_rules_command(run_cli):
    code, out, _ = run_cli("rules", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["schema"] == "eagle3-inspect/rules/1"
    assert {"ST015", "IX001", "NUM003"} <= {r["code"] for r in data["rules"]}
    code, out, _ = run_cli("rules", "st015")
    assert code == 0 and "truncated" in out
    code, _, err = run_cli("rules", "ZZ999")
    assert code == 2 and "unknown rule code" in err


def test_native_stub_lists_every_export():
    import ast

    from eagle3_inspect import _native

    stub = ast.parse((ROOT / "python/eagle3_inspect/_native.pyi").read_text())
    declared = {
        node.name if not isinstance(node, ast.AnnAssign) else node.target.id
        for node in stub.body
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AnnAssign)
    }
    exported = {name for name in dir(_native) if not name.startswith("_")}
    assert exported - declared == set()


def test_rules_code_prints_catalogue_text_verbatim(run_cli):
    """Catalogue text is plain text: bracketed spans (`[id + 1]`, `[H, K*Ht]`) are not rich
    markup and must survive `rules CODE`."""
    for code in ("DF101", "DF008"):
        rule = all_rules()[code]
        _, out, _ = run_cli("rules", code, "--format", "full")
        flat = " ".join(out.split())
        for span in re.findall(r"\[[^\]]*\]", rule.explanation + rule.example + rule.hint):
            assert span in flat, (code, span)
