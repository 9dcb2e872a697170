"""The tiny verifier (target) models the producers read, committed so that `validate --target`
and the engine ground truth can use them. Written by transformers' own `save_pretrained`.
"""

from __future__ import annotations

from typing import Any

from producers import common

ARCHES = ("llama", "qwen3", "deepseek_v3", "kimi_k2")


def generate(only: list[str] | None = None) -> list[dict[str, Any]]:
    """Writes `tests/corpus/verifiers/<arch>-8l/` (common.VERIFIER_DIRS); returns no manifest
    entries (not drafters)."""
    work = common.work_dir("verifiers")
    for arch in only or list(ARCHES):
        source = common.write_verifier(work, arch)
        dest = common.CORPUS_DIR / "verifiers" / common.VERIFIER_DIRS[arch]
        files = common.copy_outputs(source, dest)
        print(f"wrote tests/corpus/verifiers/{dest.name}: {', '.join(files)}")
    common.record([])
    return []
