"""The cluster options of `scan`, `validate` and `diff` (`--ray [ADDRESS]`, `--ray-path-map`),
and `scan`'s many-checkpoint options (`--from-file`, `--resume`), kept apart from the commands
so the rest of the CLI does not change with them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click


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


def ray_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`--ray [ADDRESS]` (bare: "auto", the running cluster) and `--ray-path-map NODE=ROOT`."""
    command = click.option(
        "--ray-path-map",
        "ray_path_map",
        multiple=True,
        metavar="NODE=ROOT",
        help="Where NODE (its eagle3-inspect-node label, node id or IP) sees the paths given: "
        "under ROOT. Repeatable; unmapped nodes see the paths as given.",
    )(command)
    return click.option(
        "--ray",
        "ray",
        is_flag=False,
        flag_value="auto",
        default=None,
        metavar="[ADDRESS]",
        callback=_check_ray,
        help="Read the files on the Ray cluster's nodes that hold them (bare --ray: auto).",
    )(command)


def audit_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`--from-file LIST` and `--resume OUT.jsonl` (scan of many checkpoints)."""
    command = click.option(
        "--resume",
        "resume",
        type=click.Path(dir_okay=False, path_type=str),
        metavar="OUT.jsonl",
        help="Append the reports to OUT.jsonl, skipping checkpoints it already has.",
    )(command)
    return click.option(
        "--from-file",
        "from_file",
        type=click.Path(exists=True, dir_okay=False, path_type=str),
        metavar="LIST",
        help="Also scan every checkpoint path listed in LIST (one per line).",
    )(command)
