"""Total deadlines for HTTP exchanges. The socket timeout (E3_REMOTE_TIMEOUT) bounds each read,
so a server dripping one byte per second would hold a request for ever; here every exchange has
a deadline for its whole life: the status line and headers within E3_REMOTE_TIMEOUT seconds of
sending, then the body within E3_REMOTE_TIMEOUT more plus its size at E3_REMOTE_MIN_RATE bytes
per second. One watchdog thread per process (started on first use) shuts down the socket of an
exchange whose deadline passes, which ends the blocked read at once; the exchange then fails
with a message saying so (`expired`)."""

from __future__ import annotations

import heapq
import itertools
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any


class Watch:
    """One exchange under watch: `expired` turns true when its deadline passed before `done`."""

    __slots__ = ("conn", "deadline", "done", "expired", "start")

    def __init__(self, conn: Any, seconds: float) -> None:
        self.conn = conn
        self.start = time.monotonic()
        self.deadline = self.start + seconds
        self.done = False
        self.expired = False

    @property
    def allowed(self) -> float:
        """The seconds this exchange was allowed in all (for the message)."""
        return self.deadline - self.start


class Watchdog:
    """Deadlines of every exchange in flight, in a heap, watched by one daemon thread."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Watch]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    @contextmanager
    def watch(self, conn: Any, seconds: float) -> Iterator[Watch]:
        """Watches the exchange on `conn` for `seconds` (extend with `extend`); the block's end
        ends the watch, whatever happened."""
        watch = Watch(conn, seconds)
        self._push(watch)
        try:
            yield watch
        finally:
            with self._wake:
                watch.done = True
                watch.conn = None  # its heap entries linger until their deadline: keep them small

    def extend(self, watch: Watch, seconds: float) -> None:
        """Gives the exchange `seconds` more from now (the body, once the headers are in)."""
        with self._wake:
            if watch.expired:  # cut already: the message says by which deadline
                return
            watch.deadline = time.monotonic() + seconds
        self._push(watch)

    def _push(self, watch: Watch) -> None:
        with self._wake:
            heapq.heappush(self._heap, (watch.deadline, next(self._order), watch))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="eagle3-inspect-deadlines", daemon=True
                )
                self._thread.start()
            self._wake.notify()

    def _run(self) -> None:
        with self._wake:
            while True:
                now = time.monotonic()
                while self._heap:
                    deadline, _, watch = self._heap[0]
                    if watch.done or deadline != watch.deadline:  # finished, or extended since
                        heapq.heappop(self._heap)
                    elif deadline <= now:
                        heapq.heappop(self._heap)
                        watch.expired = True
                        _cut(watch.conn)
                    else:
                        break
                self._wake.wait(self._heap[0][0] - now if self._heap else None)


def _cut(conn: Any) -> None:
    """Ends any read blocked on `conn`'s socket (it returns end-of-file). Not `close`: the
    descriptor stays valid until its owner closes it, so it cannot be reused meanwhile. The base
    class's `shutdown`: an SSL socket's own would drop its state under a reader."""
    sock = getattr(conn, "sock", None)
    if sock is not None:
        with suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


WATCHDOG = Watchdog()
