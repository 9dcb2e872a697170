"""The `concise` format: one line per finding, `path:tensor: CODE [severity] message`, never
wrapped (grep finds every finding), then one summary line."""

from __future__ import annotations

from eagle3_inspect.cli.render.records import Record


def one_line(text: str) -> str:
    """Line breaks inside a message become visible `\\n` so a record stays on one line."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def concise_line(r: Record) -> str:
    where = r.path if r.subject is None else f"{r.path}:{r.subject}"
    return one_line(f"{where}: {r.code} [{r.severity}] {r.message}")


def summary_line(counts: dict[str, int], verdict: str) -> str:
    return (
        f"{verdict}: {counts['errors']} error(s), {counts['warnings']} warning(s), "
        f"{counts['infos']} info(s)"
    )


def verdict_line(counts: dict[str, int], ok: bool, fail_on: str) -> str:
    """The one verdict of scan and validate: `PASS: ...` / `FAIL: ...` and the failure level."""
    line = summary_line(counts, "PASS" if ok else "FAIL")
    return f"{line} (failing on {fail_on} and above)"
