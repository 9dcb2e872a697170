"""`demo`: the seed story in seconds. Writes the demo drafters and target (`synthetic/demo.py`),
then runs scan, validate, diff and fix on them and renders what a user sees."""

from __future__ import annotations

import os

from rich.console import Console
from rich.rule import Rule

from eagle3_inspect.synthetic.demo import CAPTURE_ENGINE, ENGINE, SEED_BUGS, write_demo


def run_demo(out: str | os.PathLike[str], console: Console) -> int:
    """Writes the demo files and walks through the commands, printing what a user sees.
    Returns 0 when every command behaved as the story says (correct passes, broken fails)."""
    from eagle3_inspect.cli.render.diff import render_diff
    from eagle3_inspect.cli.render.fix import render_fix
    from eagle3_inspect.cli.render.scan import render_scan
    from eagle3_inspect.cli.render.validate import render_validate
    from eagle3_inspect.commands.diff import diff
    from eagle3_inspect.commands.fix import fix
    from eagle3_inspect.commands.scan import scan
    from eagle3_inspect.commands.validate import validate

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

    fixed_dir = files.root / "drafter-fixed"
    step(
        "6. fix refuses what it cannot repair without guessing (fc trained for one aux layer)",
        f"eagle3-inspect fix {files.broken} --engine {ENGINE} --out {fixed_dir}",
    )
    refused = fix(files.broken, engine=ENGINE, out=fixed_dir, force=True)
    render_fix(refused, console)

    step(
        "7. fix repairs the format bugs: keys renamed, d2t re-encoded, verified before done",
        f"eagle3-inspect fix {files.mislabelled} --engine {ENGINE} --out {fixed_dir} --force",
    )
    repaired = fix(files.mislabelled, engine=ENGINE, out=fixed_dir, force=True)
    render_fix(repaired, console)

    step(
        "8. The fixed drafter validates clean",
        f"eagle3-inspect validate {fixed_dir} --engine {ENGINE}",
    )
    after = validate(fixed_dir, engine=ENGINE) if repaired.status == "fixed" else None
    if after is not None:
        render_validate(after, console)

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
    fixed_ok = refused.status == "refused" and after is not None and after.ok
    console.print(
        f"  {'[green]fixed[/green]' if fixed_ok else '[red]NOT FIXED[/red]'} "
        f"format bugs repaired by fix, validate clean for {ENGINE}"
    )
    story_holds = (
        good.ok
        and not bad.ok
        and all(found & codes for _, codes in SEED_BUGS)
        and not capture.ok
        and fixed_ok
    )
    console.print()
    console.print(Rule())
    console.print(
        "Every command above has a --json twin; exit codes: 0 clean, 1 findings, 2 could not run."
    )
    return 0 if story_holds else 1
