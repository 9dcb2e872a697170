"""The cluster audit's scheduling without a cluster: discovery asked for in whole batches for the
window ahead, and the largest discovered checkpoint started first."""

from __future__ import annotations

from eagle3_inspect.commands import audit as audit_module


class FakeSession:
    """Records prefetch batches; `known` are the sizes of checkpoints already discovered."""

    nodes = ("n0", "n1", "n2")

    def __init__(self, known: dict[str, int]) -> None:
        self.known = known
        self.batches: list[list[str]] = []
        self.asked: set[str] = set()

    def prefetched(self) -> set[str]:
        return set(self.asked)

    def prefetch(self, paths: list[str], compute: dict[str, bool] | None = None) -> None:
        self.batches.append(list(paths))
        self.asked.update(paths)

    def discovered_sizes(self, paths: list[str]) -> dict[str, int]:
        return {p: self.known[p] for p in paths if p in self.known and p in self.asked}

    def prefetch_running(self) -> bool:
        return False

    def cancel_all(self) -> None:
        raise AssertionError("nothing failed")


def test_largest_discovered_first_else_the_next_in_order():
    assert audit_module._largest_discovered(["a", "b", "c"], FakeSession({})) is None
    session = FakeSession({"b": 10, "c": 4_000_000})
    session.prefetch(["a", "b", "c"])
    assert audit_module._largest_discovered(["a", "b", "c"], session) == "c"
    assert audit_module._largest_discovered(["a", "b"], session) == "b"


def test_window_is_asked_for_in_whole_batches_and_every_path_scanned_once(monkeypatch):
    paths = [f"p{i:02d}" for i in range(40)]
    session = FakeSession({"p20": 1 << 30})
    started: list[str] = []

    def fake_scan(path, _session, _options):
        started.append(path)
        return {"schema": "eagle3-inspect/scan/1", "path": path, "summary": {"errors": 0}}

    monkeypatch.setattr(audit_module, "_scan_one", fake_scan)
    done: list[dict] = []
    audit_module._on_cluster(paths, session, {}, done.append)
    batch = audit_module.DISCOVERY_BATCH
    assert sorted(started) == paths and len(done) == len(paths)
    # No batch smaller than a whole one except the queue's last; each path asked for once.
    assert all(len(b) == batch for b in session.batches[:-1])
    assert sorted(p for b in session.batches for p in b) == paths
    # The big one (in the second batch, answered at once here) starts as soon as it is known:
    # before every other checkpoint of its batch and the rest of the first.
    assert started.index("p20") < min(started.index(p) for p in paths[2:] if p != "p20")
