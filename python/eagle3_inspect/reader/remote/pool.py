"""`ConnectionPool`: idle keep-alive HTTP(S) connections per host, shared by every thread (the
native workers' thread states may not outlive one call, so thread-locals would not keep them)."""

from __future__ import annotations

import http.client
import ssl
import threading

MAX_IDLE = 32  # idle connections kept per host
HostKey = tuple[str, str, int | None]  # scheme, host, port


class ConnectionPool:
    """Hands out a connection per request; takes back the ones whose reply was read to its end."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._idle: dict[HostKey, list[http.client.HTTPConnection]] = {}
        self._lock = threading.Lock()

    def acquire(self, key: HostKey) -> http.client.HTTPConnection:
        """An idle connection to `key`'s host, or a new one (connected on first use)."""
        with self._lock:
            idle = self._idle.get(key)
            if idle:
                return idle.pop()
        scheme, host, port = key
        if scheme == "https":
            context = ssl.create_default_context()
            return http.client.HTTPSConnection(host, port, timeout=self.timeout, context=context)
        return http.client.HTTPConnection(host, port, timeout=self.timeout)

    def release(self, key: HostKey, conn: http.client.HTTPConnection) -> None:
        """Keeps `conn` for the next request to its host, unless it was closed or the pool is
        full."""
        if conn.sock is None:
            return
        with self._lock:
            idle = self._idle.setdefault(key, [])
            if len(idle) < MAX_IDLE:
                idle.append(conn)
                return
        conn.close()
