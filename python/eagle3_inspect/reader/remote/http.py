"""`Transport`: ranged HTTP(S) reads on Python's own `http.client`, with a shared pool of
keep-alive connections (`pool.py`), timeouts, bounded retries with backoff that honour
`Retry-After`, redirects followed by hand so credentials never go to another host, and a memory
of where each URL redirected (the Hub sends LFS files to its CDN: later reads go straight there).
Each single request, and the refusal of an ignored `Range` or a short body, is `exchange.py`.

Why the standard library rather than httpx or a Rust client: the seam wants a Python callable
anyway, plain `https://` URLs then need no optional dependency, and every decision is made on the
status line and headers before the body, which `http.client` exposes directly. Socket reads
release the GIL, so the native worker threads fetch in parallel.
"""

from __future__ import annotations

import os
import random
import time
from urllib.parse import SplitResult, urljoin, urlsplit

from eagle3_inspect.errors import RemoteSourceError
from eagle3_inspect.reader.remote.exchange import (
    CONTENT_RANGE,
    REDIRECT_STATUS,
    Ask,
    Limits,
    RangeNotSatisfiable,
    Reply,
    Retryable,
    exchange,
)
from eagle3_inspect.reader.remote.pool import ConnectionPool
from eagle3_inspect.reader.remote.traffic import Traffic

MAX_REDIRECTS = 5
MIN_RATE = 64 << 10  # bytes/s: a body slower than this (after the timeout's grace) is cut off
MAX_WAIT = 60.0  # the longest Retry-After honoured; a longer one fails at once
# A CDN location that refuses us has probably expired: go back through the original URL.
STALE_LOCATION = {401, 403, 404, 410}


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def _split(url: str, came_from: str | None = None) -> SplitResult:
    """The parts of `url`, which must be an http(s) URL with a host and a valid port; else
    RemoteSourceError naming it (and the URL that redirected to it)."""
    by = f" (redirected to by {came_from})" if came_from else ""
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 (raises ValueError for a port out of range or not a number)
    except ValueError as exc:
        raise RemoteSourceError(url, f"not a usable URL{by}: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RemoteSourceError(url, f"only http:// and https:// URLs can be read{by}")
    return parts


def _origin(url: str) -> tuple[str, str, int]:
    parts = _split(url)
    default = 443 if parts.scheme == "https" else 80
    return (parts.scheme, (parts.hostname or "").lower(), parts.port or default)


class Transport:
    """The HTTP client of one remote checkpoint. An `Authorization` header goes only to
    `auth_origin` (the endpoint's scheme, host and port: not to a CDN, nor over a downgrade to
    http). Settings: E3_REMOTE_TIMEOUT (s, per socket operation and for the headers),
    E3_REMOTE_MIN_RATE (bytes/s a body must keep up: its deadline is the timeout plus its size at
    that rate), E3_REMOTE_RETRIES, E3_REMOTE_BACKOFF (s)."""

    def __init__(
        self, traffic: Traffic, headers: dict[str, str] | None = None, auth_origin: str = ""
    ) -> None:
        self.traffic = traffic
        self.headers = {k: v for k, v in (headers or {}).items() if k.lower() != "authorization"}
        self.auth = {k: v for k, v in (headers or {}).items() if k.lower() == "authorization"}
        self.auth_origin = _origin(auth_origin) if auth_origin else None
        self.attempts = max(1, int(_env_float("E3_REMOTE_RETRIES", 4)))
        self.backoff = _env_float("E3_REMOTE_BACKOFF", 0.5)
        timeout = _env_float("E3_REMOTE_TIMEOUT", 30.0)
        self.limits = Limits(timeout, max(1.0, _env_float("E3_REMOTE_MIN_RATE", MIN_RATE)))
        self.pool = ConnectionPool(timeout)
        self._located: dict[str, str] = {}  # URL -> where it redirected (dict ops are atomic)

    def get(self, url: str, *, max_bytes: int) -> Reply:
        """A whole small document (config, index, API answer), refused above `max_bytes`."""
        return self._with_retries(url, None, max_bytes)

    def read_range(self, url: str, offset: int, length: int) -> bytes:
        """Exactly `length` bytes at `offset` of the file at `url`, or RemoteSourceError."""
        if length == 0:
            return b""
        return self._with_retries(url, (offset, length), length).body

    def probe(self, url: str, length: int) -> tuple[bytes, int]:
        """The first `length` bytes (fewer if the file is shorter) and the file's total size,
        from one ranged read. An empty file answers 416: size 0."""
        try:
            reply = self._with_retries(url, (0, length), length, clipped=True)
        except RangeNotSatisfiable as exc:
            if exc.size == 0:  # `bytes */0`: an empty file (the reader then says ST001)
                return b"", 0
            raise
        found = CONTENT_RANGE.match(reply.headers.get("content-range", ""))
        if found is None or found[3] == "*":
            raise RemoteSourceError(url, "no file size in the Content-Range of a ranged reply")
        return reply.body, int(found[3])

    def _with_retries(
        self, url: str, span: tuple[int, int] | None, max_bytes: int, clipped: bool = False
    ) -> Reply:
        for attempt in range(self.attempts):
            try:
                return self._follow(url, span, max_bytes, clipped)
            except Retryable as retry:
                if attempt == self.attempts - 1 or retry.wait > MAX_WAIT:
                    raise RemoteSourceError(retry.url, retry.reason, retry.status) from None
                time.sleep(max(retry.wait, self.backoff * 2**attempt * (1 + random.random())))
        raise AssertionError("unreachable")

    def _follow(
        self, url: str, span: tuple[int, int] | None, max_bytes: int, clipped: bool
    ) -> Reply:
        """Where `url` redirected before, the request goes straight there: one request per read
        instead of two. A refusal there sends it back through `url` once."""
        located = self._located.get(url)
        if located is not None:
            try:
                return self._chain(located, span, max_bytes, clipped)
            except RemoteSourceError as exc:
                if exc.status not in STALE_LOCATION:
                    raise
                self._located.pop(url, None)
        reply = self._chain(url, span, max_bytes, clipped)
        if reply.url != url and span is not None:
            self._located[url] = reply.url
        return reply

    def _chain(
        self, url: str, span: tuple[int, int] | None, max_bytes: int, clipped: bool
    ) -> Reply:
        for _ in range(MAX_REDIRECTS + 1):
            reply = self._once(url, span, max_bytes, clipped)
            if reply.status not in REDIRECT_STATUS:
                return reply
            location = reply.headers.get("location")
            if not location:
                raise RemoteSourceError(url, f"HTTP {reply.status} redirect without Location")
            came_from, url = url, urljoin(url, location)
            _split(url, came_from)
        raise RemoteSourceError(url, f"more than {MAX_REDIRECTS} redirects")

    def _once(self, url: str, span: tuple[int, int] | None, max_bytes: int, clipped: bool) -> Reply:
        parts = _split(url)
        headers = {**self.headers, "Accept-Encoding": "identity"}
        if _origin(url) == self.auth_origin:
            headers.update(self.auth)  # never to a CDN or any other host we are redirected to
        if span is not None:
            headers["Range"] = f"bytes={span[0]}-{span[0] + span[1] - 1}"
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        ask = Ask(url, target, headers, span, max_bytes, clipped)
        # `_split` refused a URL without a host.
        key = (parts.scheme, parts.hostname or "", parts.port)
        conn = self.pool.acquire(key)
        finished = False  # the reply was read to its end, or the connection closed
        try:
            reply = exchange(conn, ask, self.traffic, self.limits)
            finished = True
            return reply
        except (Retryable, RemoteSourceError):
            finished = True
            raise
        finally:
            if finished:
                self.pool.release(key, conn)
            else:
                conn.close()
