"""Ctrl-C while a checkpoint of slow readers is opened or read: the pending KeyboardInterrupt
stops further reads at once and the call raises it as soon as the reads in flight return.

Readers block on an Event; a timer thread sends the interrupt, waits, then opens the gate. Time
is measured on one clock (time.monotonic) and bounded generously; the decisive check is how many
reads started after the interrupt, which does not depend on the machine's load."""

from __future__ import annotations

import _thread
import signal
import threading
import time

import pytest

from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.source import SourceFile
from tests.reader.sources import Zeros, listing

FILES = 48  # two header reads each: 96 reads, far more than the 8 worker threads in flight
GAP = 2.0  # seconds between the interrupt and the gate opening: the poll sees it long before


def send_sigint() -> None:
    signal.raise_signal(signal.SIGINT)


SENDERS = {"raise_signal": send_sigint, "interrupt_main": _thread.interrupt_main}


class Gate:
    """Reads wait on `opened`; `send` interrupts the main thread and opens the gate GAP later."""

    def __init__(self, send) -> None:
        self.opened = threading.Event()
        self.send = send
        self.lock = threading.Lock()
        self.starts: list[float] = []
        self.sent_at = self.opened_at = 0.0

    def wait(self) -> None:
        with self.lock:
            self.starts.append(time.monotonic())
        assert self.opened.wait(60), "the gate never opened"

    def fire(self, after: float) -> None:
        def run() -> None:
            time.sleep(after)
            self.sent_at = time.monotonic()
            self.send()
            time.sleep(GAP)
            self.opened_at = time.monotonic()
            self.opened.set()

        threading.Thread(target=run, daemon=True).start()

    def started_after_opening(self) -> int:
        with self.lock:
            return sum(1 for t in self.starts if t >= self.opened_at)


def interrupted(call, gate: Gate) -> float:
    """Runs `call` expecting KeyboardInterrupt; the seconds from the interrupt to the raise."""
    with pytest.raises(KeyboardInterrupt):
        call()
    raised_at = time.monotonic()
    assert gate.opened.is_set(), "raised before the reads in flight returned"
    return raised_at - gate.sent_at


@pytest.mark.usefixtures("sigint_handler")
@pytest.mark.parametrize("send", SENDERS.values(), ids=SENDERS.keys())
def test_ctrl_c_stops_an_open_of_slow_readers(send):
    gate = Gate(send)
    zeros = Zeros(count=1, nbytes=8)

    def read(offset: int, length: int) -> bytes:
        gate.wait()
        return zeros.read(offset, length)

    files = [SourceFile(f"m-{i:03d}.safetensors", zeros.size, read) for i in range(FILES)]
    gate.fire(after=0.3)
    seconds = interrupted(lambda: Checkpoint.from_source(listing(files)), gate)
    # Without cancellation every remaining read (~88) starts once the gate opens.
    assert gate.started_after_opening() == 0, gate.started_after_opening()
    assert len(gate.starts) <= 16, len(gate.starts)
    assert GAP <= seconds < GAP + 30


@pytest.mark.usefixtures("sigint_handler")
@pytest.mark.parametrize("send", SENDERS.values(), ids=SENDERS.keys())
def test_ctrl_c_stops_a_data_pass_of_slow_readers(send):
    gate = Gate(send)
    zeros = Zeros(count=96, nbytes=64, hold=gate.wait)
    ckpt = Checkpoint.from_source(zeros.listing())
    gate.fire(after=0.3)
    seconds = interrupted(lambda: ckpt.stats(), gate)
    assert gate.started_after_opening() == 0, gate.started_after_opening()
    assert zeros.calls <= 16, zeros.calls
    assert GAP <= seconds < GAP + 30
