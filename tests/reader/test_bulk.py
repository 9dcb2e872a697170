"""paused_gc holds the collector off inside the block and restores its state after it, nested,
on error, and through the API calls that use it."""

from __future__ import annotations

import gc

import numpy as np
import pytest
import safetensors.numpy

import eagle3_inspect
from eagle3_inspect.reader.bulk import paused_gc


@pytest.fixture(autouse=True)
def _restore_gc():
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_pause_nests_and_restores_an_enabled_collector() -> None:
    gc.enable()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled_and_errors_restore() -> None:
    gc.disable()
    with paused_gc():
        pass
    assert not gc.isenabled()
    gc.enable()
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_open_stats_and_validate_leave_the_collector_on(tmp_path) -> None:
    path = tmp_path / "m.safetensors"
    safetensors.numpy.save_file({"w": np.ones((2, 3), dtype=np.float32)}, str(path))
    gc.enable()
    ckpt = eagle3_inspect.open(path)
    assert gc.isenabled()
    assert ckpt.stats()["w"].mean == 1.0
    assert gc.isenabled()
    assert eagle3_inspect.validate(path).findings
    assert gc.isenabled()
