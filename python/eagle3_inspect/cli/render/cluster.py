"""The lines the human formats (and the HTML report) end with after a report that read bytes
elsewhere: on a Ray cluster, per node, what it read and for how long (the numbers of the JSON
`"cluster"` section); then the `remote:` line of a Hub or URL read."""

from __future__ import annotations

from typing import Any

from eagle3_inspect.cli.render.remote import remote_line
from eagle3_inspect.commands.report import CommandReport
from eagle3_inspect.units import human_bytes


def where_read_lines(report: CommandReport) -> list[str]:
    """The cluster lines, then the remote line; none for a local run."""
    remote = remote_line(report)
    return [*cluster_lines(report), *([remote] if remote else [])]


def cluster_lines(report: CommandReport) -> list[str]:
    """`cluster (ADDRESS): n0 read nothing; n1 read 1.84 GiB of 1 file in 5 tasks (0.55 s); ...`,
    one line per side for diff (`a: ...`, `b: ...`); none for a local run."""
    return [
        _line(section) if side is None else f"{side}: {_line(section)}"
        for side, section in report.cluster_sections()
    ]


def _line(section: dict[str, Any]) -> str:
    return f"cluster ({section['address']}): " + "; ".join(_node(n) for n in section["nodes"])


def _node(node: dict[str, Any]) -> str:
    files = len(node["files"])
    if not node["bytes_read"] and not files:
        text = f"{node['node']} read nothing"
    else:
        text = (
            f"{node['node']} read {human_bytes(node['bytes_read'])} of {files} "
            f"file{'s' * (files != 1)} in {node['tasks']} task{'s' * (node['tasks'] != 1)} "
            f"({node['seconds']:.2f} s)"
        )
    return text if node["alive"] else text + " (died)"
