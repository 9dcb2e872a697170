"""Every option of the commands, each defined once (flag, metavar, type, help), and the groups
the commands take them in (like uv's shared argument groups). A command lists groups, never a
flag; a group of several flags hands the command one object (`Output`, `Cluster`, `Many`), so a
command's signature names what it uses and a flag's meaning changes in one place."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import click

from eagle3_inspect.reader.stats import MAX_THREADS

F = TypeVar("F", bound=Callable[..., Any])


class Decorator(Protocol):
    """What click's `option` returns: the command, with the option added."""

    def __call__(self, command: F, /) -> F: ...


FORMATS = ("full", "concise", "json", "jsonl", "github", "html")
# What a command without an HTML report says to `--format html` (the choice it does not list).
NO_HTML = {
    "fix": "html is not offered by fix: it reports an action, not a checkpoint (run validate "
    "--html or diff --html on DST for those reports)",
    "rules": "html is offered by scan, validate and diff, not rules",
}
# --threads: 1 up to the documented maximum (a typo like 100000 is refused at once).
THREADS = click.IntRange(min=1, max=MAX_THREADS)
ALL_CORES = "Worker threads (default: all cores)."
FILTER_HELP = "Only tensors whose name matches GLOB (matching none is an error, exit 2)."
TARGET_HELP = (
    "Target model directory, config.json, index, hf:// model or https:// URL (headers and "
    "config only)."
)


def _grouped(name: str, build: Callable[..., Any], *options: Decorator) -> Decorator:
    """Adds `options` (outermost first) and hands the command `name=build(**their values)`."""

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            fields = {p.name: kwargs.pop(p.name) for p in params if p.name is not None}
            return command(*args, **kwargs, **{name: build(**fields)})

        # The wrapper's own parameters only: `wraps` shares the command's list with it.
        wrapper.__dict__["__click_params__"] = list(getattr(command, "__click_params__", []))
        before = len(wrapper.__dict__["__click_params__"])
        for option in reversed(options):
            option(wrapper)
        params = wrapper.__dict__["__click_params__"][before:]
        return wrapper  # type: ignore[return-value]

    return decorate


# --- output: --format, --json, --html ----------------------------------------------------------


def writable_path(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An output path (`--html`, `--out`, `--resume`) checked when the command line is parsed,
    before any work: local, its directory existing and writable, not itself a directory (for a
    file). A bad one is a usage error naming the flag; it used to be found after the data pass,
    as a bare "[Errno 2]" that also lost the report on stdout."""
    if value is None:
        return None
    import os

    flag = f"--{(param.name or '').replace('_', '-')}" if param.name else "output"
    flag = {"--html-file": "--html"}.get(flag, flag)
    if "://" in value:
        raise click.BadParameter(f"{value}: writes a local path, not a URL", param_hint=flag)
    parent = os.path.dirname(os.path.abspath(value))
    if not os.path.isdir(parent):
        raise click.BadParameter(f"{value}: no such directory {parent}", param_hint=flag)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise click.BadParameter(f"{value}: directory {parent} is not writable", param_hint=flag)
    if flag != "--out" and os.path.isdir(value):
        raise click.BadParameter(f"{value}: is a directory", param_hint=flag)
    return value


@dataclass(frozen=True)
class Output:
    """What was asked for: `--format` (None: the default for where stdout goes), its `--json`
    alias, and `--html FILE` (None when absent or not offered)."""

    output_format: str | None
    as_json: bool
    html_file: str | None = None


# Unsubscripted: click 8.1 (the oldest supported) has no generic Choice.
class Offered(click.Choice):  # type: ignore[type-arg]
    """The formats a command offers (all its help lists); a format it refuses gets the reason,
    not "not one of"."""

    def __init__(self, choices: tuple[str, ...], refused: dict[str, str]) -> None:
        super().__init__(choices)
        self.refused = refused

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value in self.refused:
            self.fail(self.refused[value], param, ctx)
        return super().convert(value, param, ctx)


def output(json_schema: str, *, html: bool = True, command: str = "") -> Decorator:
    """`--format FMT`, `--json` (alias of `--format json`) and, when `html`, `--html FILE`
    (without it `--format` lists no `html`, and refuses it with `NO_HTML[command]`)."""
    offered = FORMATS if html else tuple(f for f in FORMATS if f != "html")
    refused = {} if html else {"html": NO_HTML[command]}
    flags: list[Decorator] = [
        click.option(
            "--format",
            "output_format",
            type=Offered(offered, refused),
            help="Output format (default: full on a terminal, concise otherwise).",
        ),
        click.option(
            "--json", "as_json", is_flag=True, help=f"Alias of --format json ({json_schema})."
        ),
    ]
    if html:
        flags.append(
            click.option(
                "--html",
                "html_file",
                type=click.Path(dir_okay=False, writable=True, path_type=str),
                callback=writable_path,
                metavar="FILE",
                help="Also write a self-contained HTML report to FILE.",
            )
        )
    return _grouped("output", Output, *flags)


# --- the data a command reads ------------------------------------------------------------------


def threads(help: str = ALL_CORES) -> Decorator:
    """`--threads N`: worker threads of the data passes."""
    return click.option("--threads", type=THREADS, help=help)


VALIDATE_FILTER_HELP = (
    "Only findings about tensors whose name matches GLOB (and those about no tensor); the stats "
    "pass reads only those (matching none is an error, exit 2)."
)


def tensor_filter(help: str = FILTER_HELP) -> Decorator:
    """`--filter GLOB` (the command's `pattern`)."""
    return click.option("--filter", "pattern", metavar="GLOB", help=help)


def scan_passes(command: F) -> F:
    """scan's data passes: headers only unless `--stats` or `--hash`."""
    command = click.option(
        "--hash",
        "with_hash",
        is_flag=True,
        help="Content hash per tensor (xxh3-128 tree). Computed in the statistics pass, so it "
        "implies --stats (one read of all data gives both).",
    )(command)
    return click.option(
        "--stats", "with_stats", is_flag=True, help="Per-tensor statistics (reads all data)."
    )(command)


HEADERS_ONLY_HELP = {
    "scan": "Headers only, no data read: scan's default (conflicts with --stats and --hash).",
    "validate": "Headers only: no statistics pass, so no NUM rules (d2t/t2d are still read).",
    "diff": "Headers only: no numeric pass and no content hashes (renames by dialect rules).",
}
# The spellings each command had before `--headers-only`: still accepted, not listed.
OLD_HEADERS_ONLY = {"validate": "--no-stats", "diff": "--structure-only"}


def _headers_only(headers_only: bool, old_spelling: bool = False) -> bool:
    return headers_only or old_spelling


def headers_only(command: str) -> Decorator:
    """`--headers-only` (the command's `headers_only`), one spelling on scan, validate and diff;
    validate's `--no-stats` and diff's `--structure-only` stay as hidden aliases."""
    flags = [
        click.option(
            "--headers-only", "headers_only", is_flag=True, help=HEADERS_ONLY_HELP[command]
        )
    ]
    if command in OLD_HEADERS_ONLY:
        flags.append(
            click.option(OLD_HEADERS_ONLY[command], "old_spelling", is_flag=True, hidden=True)
        )
    return _grouped("headers_only", _headers_only, *flags)


def tolerances(command: F) -> F:
    """diff's `--rtol R` and `--atol A`."""
    command = click.option(
        "--atol", type=click.FloatRange(min=0), help="Absolute tolerance for every pair."
    )(command)
    return click.option(
        "--rtol", type=click.FloatRange(min=0), help="Relative tolerance for every pair."
    )(command)


# --- what a drafter is checked against ---------------------------------------------------------


ENGINE_SPEC = (
    "NAME is sglang, vllm, trtllm or speculators; bare NAME is its newest known version, a "
    "partial VERSION (sglang@0.5) the newest known with that prefix."
)
INSTALLED_SPEC = (
    " sglang@installed / vllm@installed: also run the engine installed in this Python, its own "
    "load code on CPU stand-ins (needs torch), beside the profile of its version."
)


def _joined(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> str | None:
    """Repeated `--engine` accumulate: `--engine a --engine b` is `a,b`."""
    return ",".join(value) if value else None


def engine(*, required: bool = False) -> Decorator:
    """`--engine`: profile specs for validate (repeatable, or comma-separated, or `all`), one
    version for fix (`required`); both parsed by `rules.en.resolve_engines`."""
    if required:
        return click.option(
            "--engine",
            required=True,
            metavar="NAME[@VERSION]",
            help=f"The one engine version to fix for. {ENGINE_SPEC}",
        )
    return click.option(
        "--engine",
        multiple=True,
        callback=_joined,
        metavar="NAME[@VERSION]",
        help=f"Check against an engine profile; repeatable or comma-separated, `all` for every "
        f"engine. {ENGINE_SPEC}{INSTALLED_SPEC}",
    )


def target(help: str = TARGET_HELP) -> Decorator:
    """`--target PATH`: the target model the drafter is checked against."""
    return click.option("--target", type=click.Path(path_type=str), help=help)


def fail_on(command: F) -> F:
    """`--fail-on error|warning`: the severity that makes the exit code 1."""
    return click.option(
        "--fail-on",
        type=click.Choice(["error", "warning"]),
        default="error",
        show_default=True,
        help="Exit 1 when a finding at or above this severity exists.",
    )(command)


# --- where the bytes are read: --ray, --ray-path-map ---------------------------------------------


@dataclass(frozen=True)
class Cluster:
    """`--ray [ADDRESS]` (None: read on this machine) and `--ray-path-map NODE=ROOT`..."""

    ray: str | None
    ray_path_map: tuple[str, ...]

    def options(self) -> dict[str, Any]:
        """The API's `ray=` and `ray_path_map=`."""
        return {"ray": self.ray, "ray_path_map": self.ray_path_map}


def _check_ray(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Without the `ray` extra, `--ray` is one line and exit 2 before any work is done."""
    if value is not None:
        from eagle3_inspect.cluster.require import require_ray
        from eagle3_inspect.errors import MissingDependencyError

        try:
            require_ray()
        except MissingDependencyError as exc:
            raise click.UsageError(str(exc)) from exc
    return value


cluster: Decorator = _grouped(
    "cluster",
    Cluster,
    click.option(
        "--ray",
        "ray",
        is_flag=False,
        flag_value="auto",
        default=None,
        metavar="[ADDRESS]",
        callback=_check_ray,
        help="Read the files on the Ray cluster's nodes that hold them (bare --ray: auto).",
    ),
    click.option(
        "--ray-path-map",
        "ray_path_map",
        multiple=True,
        metavar="NODE=ROOT",
        help="Where NODE (its eagle3-inspect-node label, node id or IP) sees the paths given: "
        "under ROOT. Repeatable; unmapped nodes see the paths as given.",
    ),
)


# --- scan of many checkpoints: --from-file, --resume ---------------------------------------------


@dataclass(frozen=True)
class Many:
    """`--from-file LIST` and `--resume OUT.jsonl`."""

    from_file: str | None
    resume: str | None


many: Decorator = _grouped(
    "many",
    Many,
    click.option(
        "--from-file",
        "from_file",
        type=click.Path(exists=True, dir_okay=False, path_type=str),
        metavar="LIST",
        help="Also scan every checkpoint path listed in LIST (one per line).",
    ),
    click.option(
        "--resume",
        "resume",
        type=click.Path(dir_okay=False, path_type=str),
        callback=writable_path,
        metavar="OUT.jsonl",
        help="Append the reports to OUT.jsonl, skipping checkpoints it already has.",
    ),
)
