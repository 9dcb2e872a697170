"""`demo`: the seed story in seconds. Writes a correct EAGLE-3 drafter and one with the seed's
three bugs (layers.0.* keys for a midlayer.* engine, d2t holding absolute target ids, fc sized for
one aux layer instead of three), plus a small multimodal target config, then runs scan, validate
and diff on them. Needs neither torch nor ml_dtypes."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.rule import Rule

from eagle3_inspect.drafters import (
    build_drafter,
    mutate_d2t_absolute,
    mutate_fc_single_aux,
    mutate_layer_keys,
)
from eagle3_inspect.synthetic_target import target_config, write_target

# Small, Kimi-K2.5-shaped in spirit: the target is multimodal and its text model has 61 layers.
DIMS = {"H": 128, "Vd": 512, "Vt": 4096, "heads": 4, "kv_heads": 2, "I": 256, "target_layers": 61}
# The engine the seed's team served with: SGLang before 0.5.12 names its layer `midlayer`.
ENGINE = "sglang@0.5.11"
# SGLang 0.5.9 has KimiK25ForConditionalGeneration but cannot capture its aux hidden states.
CAPTURE_ENGINE = "sglang@0.5.9"
TARGET_ARCH = "KimiK25ForConditionalGeneration"
# The seed's three checkpoint bugs and the codes that name them.
SEED_BUGS = (
    ("layers.0.* keys where SGLang <= 0.5.11 wants midlayer.*", {"EN001", "EN002"}),
    ("d2t holding absolute target ids instead of offsets", {"VM006"}),
    ("fc sized for one aux hidden state instead of three", {"E3009"}),
)


@dataclass(frozen=True)
class DemoFiles:
    """Where the demo wrote its checkpoints."""

    root: Path
    correct: Path
    broken: Path
    target: Path


def write_demo(out: str | os.PathLike[str]) -> DemoFiles:
    """Writes the drafter pair and the target into `out` (created; existing demo files replaced)."""
    root = Path(out)
    correct = build_drafter(dialect="midlayer", config_style="sglang", **DIMS)
    broken = mutate_fc_single_aux(mutate_d2t_absolute(mutate_layer_keys(correct, to="layers")))
    config = target_config(
        hidden_size=DIMS["H"],
        vocab_size=DIMS["Vt"],
        num_hidden_layers=DIMS["target_layers"],
        architecture=TARGET_ARCH,
        multimodal=True,
    )
    return DemoFiles(
        root=root,
        correct=correct.write(root / "drafter-correct"),
        broken=broken.write(root / "drafter-broken"),
        target=write_target(root / "target-kimi-k25", config),
    )


def run_demo(out: str | os.PathLike[str], console: Console) -> int:
    """Writes the demo files and walks through the commands, printing what a user sees.
    Returns 0 when every command behaved as the story says (correct passes, broken fails)."""
    from eagle3_inspect.diff import diff
    from eagle3_inspect.render.diff import render_diff
    from eagle3_inspect.render.scan import render_scan
    from eagle3_inspect.render.validate import render_validate
    from eagle3_inspect.scan import scan
    from eagle3_inspect.validate import validate

    files = write_demo(out)
    console.print(f"Wrote the demo drafters and target under [bold]{files.root}[/bold]")

    def step(title: str, command: str) -> None:
        console.print()
        console.print(Rule(f"[bold]{title}[/bold]"))
        console.print(f"$ {command}\n")

    step("1. What is in the broken drafter (headers only)", f"eagle3-inspect scan {files.broken}")
    render_scan(scan(files.broken), console)

    step(
        "2. The correct drafter passes",
        f"eagle3-inspect validate {files.correct} --engine {ENGINE}",
    )
    good = validate(files.correct, engine=ENGINE)
    render_validate(good, console)

    step(
        "3. The broken one names all three seed bugs",
        f"eagle3-inspect validate {files.broken} --engine {ENGINE}",
    )
    bad = validate(files.broken, engine=ENGINE)
    render_validate(bad, console)

    step(
        "4. The seed's other bug: the engine cannot feed this target's aux states",
        f"eagle3-inspect validate {files.correct} --engine {CAPTURE_ENGINE} "
        f"--target {files.target}",
    )
    capture = validate(files.correct, engine=CAPTURE_ENGINE, target=files.target, stats=False)
    render_validate(capture, console)

    step("5. What changed between them", f"eagle3-inspect diff {files.correct} {files.broken}")
    changes = diff(files.correct, files.broken)
    render_diff(changes, console)

    found = {f.code for f in bad.findings}
    console.print()
    console.print(Rule("[bold]The seed story, caught[/bold]"))
    for bug, codes in SEED_BUGS:
        hit = sorted(found & codes)
        mark = "[green]caught[/green]" if hit else "[red]MISSED[/red]"
        console.print(f"  {mark} {bug}: {', '.join(hit) or '-'}")
    capture_codes = sorted({f.code for f in capture.findings if f.code.startswith("EN")})
    console.print(
        f"  {'[green]caught[/green]' if capture_codes else '[red]MISSED[/red]'} "
        f"target without aux capture in {CAPTURE_ENGINE}: {', '.join(capture_codes)}"
    )
    story_holds = (
        good.ok and not bad.ok and all(found & codes for _, codes in SEED_BUGS) and not capture.ok
    )
    console.print()
    console.print(Rule())
    console.print(
        "Every command above has a --json twin; exit codes: 0 clean, 1 findings, 2 could not run."
    )
    return 0 if story_holds else 1
