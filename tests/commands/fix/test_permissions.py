"""What `fix` writes is readable the way any file the user creates is: the modes come from the
umask (issue 24 item 1: the staging directory's private 700 / 600 used to survive the rename,
so a serving process running as another user could not load the fixed drafter)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from eagle3_inspect.commands.fix import fix

from .helpers import ENGINE, mislabelled


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("shards", [None, 2])
def test_fixed_drafter_gets_the_umask_modes(
    tmp_path: Path, umask_022: None, shards: int | None
) -> None:
    src = mislabelled(tmp_path, shards=shards)
    dst = tmp_path / "dst"
    report = fix(str(src), engine=ENGINE, out=str(dst))
    assert report.status == "fixed", report.to_dict()
    assert _mode(dst) == 0o755
    files = sorted(p for p in dst.iterdir() if p.is_file())
    assert files and {p.name: _mode(p) for p in files} == {p.name: 0o644 for p in files}
