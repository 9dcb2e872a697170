"""What each vLLM version does with a drafter whose `max_position_embeddings` is below the
target's: its own `SpeculativeConfig._maybe_override_draft_max_position_embeddings` (and the
helpers it calls: `_rope_only_sizes_cache`, `_CACHE_ONLY_ROPE_TYPES`,
`transformers_utils/config.py iter_rope_parameters`) run unchanged from the wheel on a draft
config of 2048 positions against a target `max_model_len` of 131072, once with default RoPE and
once with YaRN; and which speculative methods the call site applies it to (the `if` around the
call in `SpeculativeConfig.__post_init__`, read with ast). Needs transformers (its
`ALLOWED_LAYER_TYPES`, which the wheel imports), not torch.

    python tools/engine_truth/positions.py --vllm 0.20.0 0.25.0 0.30.0 0.33.0 --out positions.json

The committed `positions.json` is read by `tests/rules/en/test_positions_truth.py`, which holds
each profile's `draft_positions` to it.
"""

from __future__ import annotations

import argparse
import ast
import json
import logging
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[2] / "python"))  # the load harness

from eagle3_inspect.installed.harness.sources import (
    DEFAULT_CACHE,
    EngineSource,
    line_of,
    open_wheel,
)

SPECULATIVE = "vllm/config/speculative.py"
CONFIG_UTILS = "vllm/transformers_utils/config.py"
OVERRIDE = "_maybe_override_draft_max_position_embeddings"
DRAFT_POSITIONS, TARGET_LEN = 2048, 131072
ROPES = {
    "default": {"rope_type": "default", "rope_theta": 10000.0},
    "yarn": {
        "rope_type": "yarn",
        "rope_theta": 10000.0,
        "factor": 4.0,
        "original_max_position_embeddings": 2048,
    },
}


def _method(source: str, name: str) -> str | None:
    """The unchanged text of `SpeculativeConfig.<name>`, dedented to module level."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == "SpeculativeConfig":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == name:
                    lines = source.splitlines(keepends=True)
                    return textwrap.dedent("".join(lines[item.lineno - 1 : item.end_lineno]))
    return None


def _top(source: str, name: str) -> str | None:
    tree = ast.parse(source)
    for node in tree.body:
        targets = (
            [node.name]
            if isinstance(node, ast.FunctionDef)
            else [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
        )
        if name in targets:
            return ast.get_source_segment(source, node)
    return None


def _calls_override(stmts: list[ast.stmt]) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == OVERRIDE
        for stmt in stmts
        for n in ast.walk(stmt)
    )


def _guard(source: str) -> str | None:
    """The test of the innermost `if` around the override's call (None: unconditional)."""
    found = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.If) and _calls_override(node.body)
    ]
    inner = max(found, key=lambda n: n.lineno, default=None)
    return None if inner is None else ast.get_source_segment(source, inner.test)


def _namespace(wheel: EngineSource, spec_source: str) -> dict[str, Any]:
    """The override function and its helpers, exec'd from the wheel's text."""
    from transformers.configuration_utils import ALLOWED_LAYER_TYPES  # what the wheel imports

    ns: dict[str, Any] = {
        "logger": logging.getLogger("vllm"),
        "PreTrainedConfig": object,
        "PretrainedConfig": object,
        "ALLOWED_LAYER_TYPES": ALLOWED_LAYER_TYPES,
    }
    config_source = wheel.read(CONFIG_UTILS)
    for name in ("iter_rope_parameters", "is_rope_parameters_nested"):
        text = _top(config_source, name)
        if text:
            exec(compile(text, CONFIG_UTILS, "exec"), ns)
    for name in ("_CACHE_ONLY_ROPE_TYPES", "_rope_only_sizes_cache"):
        text = _top(spec_source, name)
        if text:
            exec(compile(text, SPECULATIVE, "exec"), ns)
    text = _method(spec_source, OVERRIDE)
    if text is not None:
        exec(compile(text.replace("@staticmethod\n", ""), SPECULATIVE, "exec"), ns)
    return ns


def run(version: str, cache: Path) -> dict[str, Any]:
    wheel = open_wheel("vllm", version, cache)
    source = wheel.read(SPECULATIVE)
    ns = _namespace(wheel, source)
    record: dict[str, Any] = {"engine": "vllm", "version": version, "file": SPECULATIVE}
    if OVERRIDE not in ns:
        record.update(function=None, raised={k: False for k in ROPES}, methods=None)
        return record
    raised = {}
    for kind, rope in ROPES.items():
        draft = SimpleNamespace(max_position_embeddings=DRAFT_POSITIONS, rope_parameters=rope)
        ns[OVERRIDE](draft, TARGET_LEN)
        raised[kind] = draft.max_position_embeddings == TARGET_LEN
    record.update(
        function=f"SpeculativeConfig.{OVERRIDE}",
        line=line_of(source, f"def {OVERRIDE}"),
        raised=raised,
        methods=_guard(source),
    )
    return record


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vllm", nargs="+", required=True)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    records = {f"vllm@{v}": run(v, args.cache) for v in args.vllm}
    args.out.write_text(json.dumps(records, indent=2, sort_keys=True) + "\n")
    for key, rec in records.items():
        print(key, rec["raised"], rec.get("methods"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
