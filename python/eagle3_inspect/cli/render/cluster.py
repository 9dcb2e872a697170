"""The lines the human formats (and the HTML report) end with after a report that read bytes
elsewhere: on a Ray cluster, per node, what it read and for how long (the numbers of the JSON
`"cluster"` section); then the `remote:` line of a Hub or URL read."""

from __future__ import annotations

from typing import Any

from eagle3_inspect.cli.render.remote import remote_line
from eagle3_inspect.reader.view import human_bytes


def where_read_lines(kind: str, report: Any) -> list[str]:
    """The cluster lines, then the remote line; none for a local run."""
    remote = remote_line(report)
    return [*cluster_lines(kind, report), *([remote] if remote else [])]


def cluster_lines(kind: str, report: Any) -> list[str]:
    """`cluster (ADDRESS): n0 read nothing; n1 read 1.84 GiB of 1 file in 5 tasks (0.55 s); ...`,
    one line per side for diff (`a`, `b`); none for a local run."""
    if kind == "diff":
        from eagle3_inspect.commands.on_cluster import cluster_section

        sides = (("a", cluster_section(report.a)), ("b", cluster_section(report.b)))
        return [f"{side}: {_line(section)}" for side, section in sides if section is not None]
    section = getattr(report, "cluster", None)
    return [] if section is None else [_line(section)]


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
