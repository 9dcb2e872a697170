"""Two `fix` runs on one DST, a DST that appears while a run writes, and a failure or Ctrl-C at
each step: the staging directory and the lock are always gone afterwards, DST is either absent,
the other party's untouched, or one whole verified copy, never a merge. Each interleaving is
forced through a patched hook (no sleeps, no timing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import eagle3_inspect.commands.fix as fix_pkg
from eagle3_inspect.commands.fix import destination, fix, output
from tests.commands.fix.helpers import ENGINE, load_all, mislabelled, tree_digest


def _litter(parent: Path) -> list[str]:
    """Staging directories, set-aside old DSTs and lock files left in `parent`."""
    return sorted(p.name for p in parent.iterdir() if ".fix-" in p.name)


@pytest.fixture
def src(tmp_path: Path) -> Path:
    return mislabelled(tmp_path, shards=2)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict:
    """What one undisturbed run writes (tensors and config), to compare DSTs against."""
    root = tmp_path_factory.mktemp("reference")
    out = root / "dst"
    assert fix(mislabelled(root, shards=2), engine=ENGINE, out=out).status == "fixed"
    return {"tensors": load_all(out), "config": json.loads((out / "config.json").read_text())}


def _is_reference(dst: Path, reference: dict) -> bool:
    config = json.loads((dst / "config.json").read_text())
    return load_all(dst) == reference["tensors"] and config == reference["config"]


def _after_first_shard(monkeypatch, action) -> None:
    """Runs `action()` once, right after the first shard has been written into staging."""
    real = output.write_safetensors
    calls = []

    def hooked(dest, *args):
        written = real(dest, *args)
        if not calls:
            calls.append(dest)
            action()
        return written

    monkeypatch.setattr(output, "write_safetensors", hooked)


@pytest.mark.parametrize("force", [False, True])
def test_second_run_while_the_first_writes_is_refused(
    src: Path, tmp_path: Path, monkeypatch, reference: dict, force: bool
) -> None:
    dst = tmp_path / "dst"
    seen: list[BaseException] = []

    def second_run() -> None:
        staging = [p for p in _litter(tmp_path) if ".fix-tmp-" in p]
        with pytest.raises(BlockingIOError) as info:
            fix(src, engine=ENGINE, out=dst, force=force)
        seen.append(info.value)
        # The second run neither removed nor touched the first one's staging directory.
        assert [p for p in _litter(tmp_path) if ".fix-tmp-" in p] == staging

    _after_first_shard(monkeypatch, second_run)
    digest = tree_digest(src)
    assert fix(src, engine=ENGINE, out=dst).status == "fixed"
    assert len(seen) == 1 and "another fix run is writing it" in str(seen[0])
    assert _is_reference(dst, reference)
    assert _litter(tmp_path) == [] and tree_digest(src) == digest


PAUSED_RUN = textwrap.dedent(
    """
    import sys
    from eagle3_inspect.commands.fix import output
    real = output.write_safetensors
    def write_then_wait(dest, *args):
        written = real(dest, *args)
        print("paused", flush=True)
        sys.stdin.readline()  # the test lets it go on
        return written
    output.write_safetensors = write_then_wait
    from eagle3_inspect.commands.fix import fix
    print(fix(sys.argv[1], engine=sys.argv[2], out=sys.argv[3]).status, flush=True)
    """
)


def test_second_process_fails_with_one_line_while_the_first_holds_dst(
    src: Path, tmp_path: Path, reference: dict
) -> None:
    dst = tmp_path / "dst"
    first = subprocess.Popen(
        [sys.executable, "-c", PAUSED_RUN, str(src), ENGINE, str(dst)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert first.stdout.readline().strip() == "paused"
        cli = [sys.executable, "-m", "eagle3_inspect", "fix", str(src), "--engine", ENGINE]
        for extra in ([], ["--force"]):
            second = subprocess.run(
                [*cli, "--out", str(dst), *extra],
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert second.returncode == 2, second.stderr
            assert second.stderr.splitlines() == [
                f"eagle3-inspect: error: {dst}: another fix run is writing it; "
                "try again when it has finished"
            ]
            assert not dst.exists()
        first.stdin.write("go\n" * 2)
        first.stdin.flush()
        rest, _ = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0 and rest.split()[-1] == "fixed"
    assert _is_reference(dst, reference) and _litter(tmp_path) == []


def test_dst_made_by_a_run_that_just_finished_is_seen_under_the_lock(
    src: Path, tmp_path: Path, monkeypatch
) -> None:
    """The existence check is repeated after the lock is taken: DST created after the first
    check (here: while planning) is refused without --force, before anything is staged."""
    dst = tmp_path / "dst"
    real_plan = fix_pkg.make_plan

    def plan_then_other_run_finishes(*args):
        plan = real_plan(*args)
        dst.mkdir()
        (dst / "theirs.txt").write_text("theirs")
        return plan

    monkeypatch.setattr(fix_pkg, "make_plan", plan_then_other_run_finishes)
    with pytest.raises(FileExistsError, match="already exists"):
        fix(src, engine=ENGINE, out=dst)
    assert sorted(os.listdir(dst)) == ["theirs.txt"] and _litter(tmp_path) == []


def _intrude(dst: Path, kind: str) -> None:
    if kind == "file":
        dst.write_text("theirs")
    elif kind == "symlink":
        dst.symlink_to("elsewhere")
    else:
        dst.mkdir()
        if kind == "dir":
            (dst / "theirs.txt").write_text("theirs")


INTRUDER_STATE = {
    "empty-dir": ("dir", []),
    "dir": ("dir", ["theirs.txt"]),
    "file": ("file", "theirs"),
    "symlink": ("link", "elsewhere"),
}


def _state(dst: Path) -> object:
    if dst.is_symlink():
        return ("link", os.readlink(dst))
    if dst.is_file():
        return ("file", dst.read_text())
    return ("dir", sorted(os.listdir(dst)))


@pytest.mark.parametrize("native", [True, False], ids=["renameat2", "fallback"])
@pytest.mark.parametrize("kind", ["empty-dir", "dir", "file", "symlink"])
def test_dst_appearing_before_the_rename_is_never_replaced_or_merged(
    src: Path, tmp_path: Path, monkeypatch, kind: str, native: bool
) -> None:
    if not native:
        monkeypatch.setattr(destination, "_RENAMEAT2", None)
    elif destination._RENAMEAT2 is None:
        pytest.skip("this libc has no renameat2; the fallback case covers it")
    dst = tmp_path / "dst"
    real_verify = fix_pkg.verify

    def verify_then_intrude(*args):
        checked = real_verify(*args)
        _intrude(dst, kind)
        return checked

    monkeypatch.setattr(fix_pkg, "verify", verify_then_intrude)
    digest = tree_digest(src)
    with pytest.raises(FileExistsError, match="appeared while fix was writing it"):
        fix(src, engine=ENGINE, out=dst)
    assert _state(dst) == INTRUDER_STATE[kind]
    assert _litter(tmp_path) == [] and tree_digest(src) == digest


def test_with_force_a_dst_appearing_before_the_rename_is_replaced_whole(
    src: Path, tmp_path: Path, monkeypatch, reference: dict
) -> None:
    dst = tmp_path / "dst"
    real_verify = fix_pkg.verify

    def verify_then_intrude(*args):
        checked = real_verify(*args)
        _intrude(dst, "dir")
        return checked

    monkeypatch.setattr(fix_pkg, "verify", verify_then_intrude)
    assert fix(src, engine=ENGINE, out=dst, force=True).status == "fixed"
    assert not (dst / "theirs.txt").exists() and _is_reference(dst, reference)
    assert _litter(tmp_path) == []


@pytest.mark.parametrize("error", [RuntimeError("disk on fire"), KeyboardInterrupt()])
def test_failure_mid_write_leaves_no_staging_no_lock_no_dst(
    src: Path, tmp_path: Path, monkeypatch, error: BaseException
) -> None:
    def fail() -> None:
        assert len([p for p in _litter(tmp_path) if ".fix-tmp-" in p]) == 1
        raise error

    _after_first_shard(monkeypatch, fail)
    digest = tree_digest(src)
    with pytest.raises(type(error)):
        fix(src, engine=ENGINE, out=tmp_path / "dst")
    assert not (tmp_path / "dst").exists() and _litter(tmp_path) == []
    assert tree_digest(src) == digest


@pytest.mark.parametrize("error", [RuntimeError("validate crashed"), KeyboardInterrupt()])
def test_failure_during_verification_leaves_no_staging(
    src: Path, tmp_path: Path, monkeypatch, error: BaseException
) -> None:
    def broken_verify(*args):
        raise error

    monkeypatch.setattr(fix_pkg, "verify", broken_verify)
    with pytest.raises(type(error)):
        fix(src, engine=ENGINE, out=tmp_path / "dst")
    assert not (tmp_path / "dst").exists() and _litter(tmp_path) == []


def test_ctrl_c_at_the_rename_with_force_puts_the_old_dst_back(
    src: Path, tmp_path: Path, monkeypatch
) -> None:
    dst = tmp_path / "dst"
    dst.mkdir()
    (dst / "old.txt").write_text("old")

    def interrupted(old: Path, new: Path) -> None:
        assert not dst.exists(), "the old DST is set aside before the rename"
        raise KeyboardInterrupt

    monkeypatch.setattr(destination, "rename_noreplace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fix(src, engine=ENGINE, out=dst, force=True)
    assert sorted(os.listdir(dst)) == ["old.txt"] and _litter(tmp_path) == []


def test_lock_file_removed_by_its_holder_between_open_and_flock_is_taken_afresh(
    tmp_path: Path, monkeypatch
) -> None:
    """The holder unlinks the lock file as it finishes; a run that opened the old file just
    before must not count it as held (a third run would lock the new file): it opens again."""
    dst = tmp_path / "dst"
    lock = tmp_path / ".dst.fix-lock"
    real_flock = destination.fcntl.flock
    unlinked = []

    def holder_finishes_first(fd: int, op: int) -> None:
        if not unlinked:
            unlinked.append(os.fstat(fd).st_ino)
            lock.unlink()
        real_flock(fd, op)

    monkeypatch.setattr(destination.fcntl, "flock", holder_finishes_first)
    with destination.claimed(dst):
        assert lock.exists() and unlinked
        monkeypatch.setattr(destination.fcntl, "flock", real_flock)
        with pytest.raises(BlockingIOError), destination.claimed(dst):
            pass
    assert not lock.exists()
