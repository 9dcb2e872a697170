"""`Traffic`: what a remote checkpoint cost, counted by the transport: HTTP requests sent (each
redirect and retry included) and response body bytes received. Thread-safe."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Traffic:
    """Counters for one remote source (`path` as the user gave it)."""

    path: str
    bytes_fetched: int = 0
    requests: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, requests: int = 0, nbytes: int = 0) -> None:
        with self._lock:
            self.requests += requests
            self.bytes_fetched += nbytes

    def to_dict(self) -> dict[str, Any]:
        with self._lock:
            return {
                "path": self.path,
                "bytes_fetched": self.bytes_fetched,
                "requests": self.requests,
            }


def remote_section(sources: list[Traffic | None]) -> dict[str, Any] | None:
    """The JSON `remote` object of a command: totals and one entry per remote source read; None
    when every source was local."""
    found = [t.to_dict() for t in sources if t is not None]
    if not found:
        return None
    return {
        "bytes_fetched": sum(int(t["bytes_fetched"]) for t in found),
        "requests": sum(int(t["requests"]) for t in found),
        "sources": found,
    }
