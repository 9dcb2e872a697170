"""The click CLI: parses arguments, calls the API, renders. No behaviour lives here.

Exit codes: 0 clean, 1 findings or differences, 2 could not run.
"""

from __future__ import annotations

import contextlib
import functools
import shlex
import sys
from collections.abc import Callable
from typing import Any

import click

from eagle3_inspect.cli import options
from eagle3_inspect.cli.audit import is_audit, run_audit
from eagle3_inspect.cli.broken_pipe import printing, quiet_exit
from eagle3_inspect.cli.emit import COMMAND_LINE, emit_report, emit_rules
from eagle3_inspect.cli.examples import epilog
from eagle3_inspect.cli.formats import FormatError, chosen_format, report_format
from eagle3_inspect.cli.hard_exit import finish
from eagle3_inspect.cli.options import Cluster, Many, Output
from eagle3_inspect.commands.report import CommandReport
from eagle3_inspect.errors import InspectError
from eagle3_inspect.reader.bulk import paused_gc
from eagle3_inspect.reader.stats import ProgressCallback

EXIT_CLEAN, EXIT_FINDINGS, EXIT_CANNOT_RUN = 0, 1, 2


def fail(message: str) -> None:
    """One line on stderr (clipped: an error may quote untrusted input), exit 2, no traceback."""
    from eagle3_inspect.echo import clip

    click.echo(f"eagle3-inspect: error: {clip(message)}", err=True)
    sys.exit(EXIT_CANNOT_RUN)


def guarded(command: Callable[..., int]) -> Callable[..., None]:
    """Runs a command body, turning its return value into the exit code and any expected error
    (bad path, unreadable file, bad argument) into a one-line message with exit 2."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            # A command builds a record per tensor (a million for a large header) and none of
            # them form cycles: the collector would only walk them again and again.
            with paused_gc():
                code = command(*args, **kwargs)
        except BrokenPipeError:
            # Lines printed as work goes (many checkpoints): some had findings, or it stopped.
            quiet_exit(EXIT_FINDINGS)
        except (InspectError, OSError, ValueError, FormatError) as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            click.echo("eagle3-inspect: interrupted", err=True)
            sys.exit(130)
        sys.exit(code)

    return wrapper


def print_report(
    label: str | None, output: Output, run: Callable[[ProgressCallback | None], CommandReport]
) -> int:
    """The format checked before any work, `run(progress)` under a progress bar named `label`
    (None: no data pass, no bar), the report printed; its exit code (see `hard_exit.py`)."""
    fmt = report_format(output)
    with progress_for(label, fmt) as progress:
        report = run(progress)
    with printing(report.exit_code):
        emit_report(report, fmt, output.html_file)
    return finish(report.exit_code)


def progress_for(label: str | None, fmt: str) -> contextlib.AbstractContextManager[Any]:
    """A progress bar on a terminal's stderr for the human formats; otherwise (or without a
    `label`: headers only) none, and rich is not imported."""
    if label is None or fmt not in ("full", "concise") or not sys.stderr.isatty():
        return contextlib.nullcontext(None)
    from eagle3_inspect.cli.render.progress import progress_bar

    return progress_bar(label)


class OneLineUsageErrors(click.Group):
    """The command group, with every usage error (unknown option, missing argument, bad value, in
    any command) as one line on stderr and exit 2; click's own is four lines."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        # The arguments as given (parsing consumes the list): the HTML report's footer shows them.
        given = list(args)
        ctx = super().make_context(info_name, args, parent, **extra)
        ctx.meta[COMMAND_LINE] = shlex.join(["eagle3-inspect", *given])
        return ctx

    def main(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except getattr(click.exceptions, "NoArgsIsHelpError", ()) as exc:
            exc.show()  # bare `eagle3-inspect`: the help text is the point
            sys.exit(EXIT_CANNOT_RUN)
        except click.ClickException as exc:
            ctx = getattr(exc, "ctx", None)
            # `validate: ...` after fail's own `eagle3-inspect: error:` (not the program twice).
            command = ctx.command_path.partition(" ")[2] if ctx is not None else ""
            where = f"{command}: " if command else ""
            fail(where + " ".join(exc.format_message().split()))
        except click.Abort:
            click.echo("eagle3-inspect: interrupted", err=True)
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else EXIT_CLEAN)


def show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`--version`: the package version, the newest engine version each engine's profiles were
    read from, and the vector kernels this CPU runs (eager: no command runs)."""
    if value and not ctx.resilient_parsing:
        from eagle3_inspect.version import version_text

        click.echo(version_text())
        ctx.exit()


@click.group(
    cls=OneLineUsageErrors,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=epilog(""),
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=show_version,
    help="Show the version, the newest engine versions profiled and this CPU's kernels; exit.",
)
def main() -> None:
    """Inspect, validate and diff safetensors checkpoints, with EAGLE-3 drafter rules."""


@main.command(short_help="List files, tensors, totals and file findings.", epilog=epilog("scan"))
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@options.output("eagle3-inspect/scan/1")
@options.tensor_filter()
@options.scan_passes
@options.headers_only("scan")
@options.fail_on
@options.threads()
@options.cluster
@options.many
@guarded
def scan(
    paths: tuple[str, ...],
    output: Output,
    pattern: str | None,
    with_stats: bool,
    with_hash: bool,
    headers_only: bool,
    fail_on: str,
    threads: int | None,
    cluster: Cluster,
    many: Many,
) -> int:
    """List files, tensors, dtype totals, metadata and ST/IX findings of PATH.

    Several PATHs, a quoted glob, --from-file or --resume scan many checkpoints: one JSON report
    per line as each finishes, then a summary line (--format jsonl)."""
    from eagle3_inspect.commands.scan import scan as run_scan

    if headers_only and (with_stats or with_hash):
        raise click.UsageError("--headers-only conflicts with --stats and --hash")
    passes: dict[str, Any] = {
        "filter": pattern,
        "stats": with_stats,
        "hashes": with_hash,
        "threads": threads,
    }
    where = cluster.options()
    if is_audit(paths, many.from_file, many.resume):
        fmt = chosen_format(output, default="jsonl")
        return run_audit(paths, fmt, many, output.html_file, fail_on, **where, **passes)
    label = "stats" if with_stats or with_hash else None
    return print_report(
        label,
        output,
        lambda progress: run_scan(paths[0], progress=progress, fail_on=fail_on, **where, **passes),
    )


@main.command(short_help="List every finding code, or explain one.", epilog=epilog("rules"))
@click.argument("code", required=False)
@options.output("eagle3-inspect/rules/1", html=False, command="rules")
@guarded
def rules(code: str | None, output: Output) -> int:
    """List every finding code, or explain CODE (like `ruff rule`).

    concise and github print one line per rule (CODE [severity] summary); jsonl one rule per
    line. CODE alone prints the full text."""
    from eagle3_inspect.registry import all_rules, rule

    # One rule's explanation is a page to read (like `ruff rule`): full text unless asked otherwise.
    fmt = chosen_format(output)
    if code is not None and output.output_format is None and not output.as_json:
        fmt = "full"
    if code is None:
        chosen = list(all_rules().values())
    else:
        try:
            chosen = [rule(code)]
        except KeyError:
            fail(f"unknown rule code {code!r}; `eagle3-inspect rules` lists them")
    with printing(EXIT_CLEAN):
        emit_rules(chosen, fmt, single=code is not None)
    return EXIT_CLEAN


@main.command(
    short_help="Check a drafter, against engines and its target.", epilog=epilog("validate")
)
@click.argument("path", type=click.Path(path_type=str))
@options.engine()
@options.target()
@options.output("eagle3-inspect/validate/1")
@options.fail_on
@options.tensor_filter(options.VALIDATE_FILTER_HELP)
@options.headers_only("validate")
@options.threads("Worker threads for the stats pass.")
@options.cluster
@guarded
def validate(
    path: str,
    engine: str | None,
    target: str | None,
    output: Output,
    fail_on: str,
    pattern: str | None,
    headers_only: bool,
    threads: int | None,
    cluster: Cluster,
) -> int:
    """Check an EAGLE-3 drafter: file structure, architecture, config, d2t/t2d, values, and
    (with --engine / --target) what an engine would silently do with it. A target model given
    as PATH is refused (exit 2): give it as --target."""
    from eagle3_inspect.commands.validate import validate as run_validate

    return print_report(
        None if headers_only else "stats",
        output,
        lambda progress: run_validate(
            path,
            engine=engine,
            target=target,
            stats=not headers_only,
            fail_on=fail_on,
            threads=threads,
            progress=progress,
            filter=pattern,
            **cluster.options(),
        ),
    )


@main.command(short_help="Write the drafter one engine version loads.", epilog=epilog("fix"))
@click.argument("src", type=click.Path(path_type=str))
@options.engine(required=True)
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=str),
    callback=options.writable_path,
    help="DST directory (a new local path; its parent must exist).",
)
@options.target(options.TARGET_HELP + " Aux ids, capture and cross-checks come from it.")
@click.option(
    "--verifier",
    metavar="NAME_OR_PATH",
    help="The verifier speculators loads (speculators_config.verifier.name_or_path): a Hub id "
    "or a directory with its config.json and weights (default: --target).",
)
@click.option("--dry-run", is_flag=True, help="Print the plan; write nothing.")
@click.option("--force", is_flag=True, help="Replace an existing DST.")
@click.option("--drop-unused", is_flag=True, help="Leave out tensors the engine would ignore.")
@options.output("eagle3-inspect/fix/1", html=False, command="fix")
@options.threads("Worker threads for the verification passes.")
@guarded
def fix(
    src: str,
    engine: str,
    out: str,
    target: str | None,
    verifier: str | None,
    dry_run: bool,
    force: bool,
    drop_unused: bool,
    output: Output,
    threads: int | None,
) -> int:
    """Write SRC as the drafter ENGINE loads as trained, into --out, verified by validate and
    diff before it is declared done. Exit 0 fixed (or planned, or nothing to do), 1 the written
    copy failed verification (discarded) or an error no conversion can fix remains (NOT
    SERVABLE: EN006), 2 refused or could not run. --format html is not offered (validate
    --html / diff --html on DST are)."""
    from eagle3_inspect.commands.fix import fix as run_fix

    fmt = chosen_format(output)
    report = run_fix(
        src,
        engine=engine,
        out=out,
        target=target,
        dry_run=dry_run,
        force=force,
        drop_unused=drop_unused,
        threads=threads,
        verifier=verifier,
    )
    with printing(report.exit_code):
        emit_report(report, fmt)
    if report.refusal:
        click.echo(
            f"eagle3-inspect: refused: {report.refusal['code']}: {report.refusal['reason']}",
            err=True,
        )
    return report.exit_code


@main.command(
    short_help="Write demo drafters and run every command on them.", epilog=epilog("demo")
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=str),
    help="Directory for the demo checkpoints (default: a new temporary directory).",
)
@guarded
def demo(out: str | None) -> int:
    """Write a correct, a mislabelled and a broken EAGLE-3 drafter and a target model (the seed
    story's bugs), and run scan, validate, diff and fix on them."""
    import tempfile

    from eagle3_inspect.cli.demo import run_demo
    from eagle3_inspect.cli.render.common import stdout_console

    target = out if out is not None else tempfile.mkdtemp(prefix="eagle3-inspect-demo-")
    return run_demo(target, stdout_console())


@main.command(name="diff", short_help="Compare two checkpoints.", epilog=epilog("diff"))
@click.argument("a", type=click.Path(path_type=str))
@click.argument("b", type=click.Path(path_type=str))
@options.output("eagle3-inspect/diff/1")
@options.tolerances
@options.headers_only("diff")
@click.option("--no-renames", is_flag=True, help="Report renamed tensors as removed + added.")
@options.tensor_filter()
@options.threads()
@options.cluster
@guarded
def diff_command(
    a: str,
    b: str,
    output: Output,
    rtol: float | None,
    atol: float | None,
    headers_only: bool,
    no_renames: bool,
    pattern: str | None,
    threads: int | None,
    cluster: Cluster,
) -> int:
    """Compare checkpoints A and B: structure, values, metadata, config and vocab mapping.

    Exit 0 when every matched tensor is equal or within tolerance and nothing was added or
    removed (renames alone are fine unless --no-renames); 1 on any difference, including a
    config.json or __metadata__ change; 2 when it could not run."""
    from eagle3_inspect.commands.diff import diff as run_diff

    return print_report(
        "diff",
        output,
        lambda progress: run_diff(
            a,
            b,
            rtol=rtol,
            atol=atol,
            structure_only=headers_only,
            renames=not no_renames,
            filter=pattern,
            threads=threads,
            progress=progress,
            **cluster.options(),
        ),
    )
