"""Ranged HTTP(S) reads on Python's own `http.client`: a pool of keep-alive connections,
timeouts, bounded retries with backoff that honour `Retry-After`, redirects followed by hand (so
credentials never go to another host), and the two replies that must never turn into a silent
full download: a server that ignores `Range` (200, or a 206 for other bytes) is refused from its
status line and headers, before a body byte is read; a short body is detected and retried.

Why the standard library rather than httpx or a Rust client: the seam wants a Python callable
anyway, plain `https://` URLs then need no optional dependency, and every decision above is made
on the status line and headers before the body, which `http.client` exposes directly. Socket
reads release the GIL, so worker threads fetch in parallel.
"""

from __future__ import annotations

import http.client
import os
import random
import re
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

from eagle3_inspect.errors import RemoteSourceError
from eagle3_inspect.reader.remote.traffic import Traffic

CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+|\*)$")
RETRY_STATUS = {408, 429, 500, 502, 503, 504}
MAX_REDIRECTS = 5
CHUNK = 1 << 20
MAX_IDLE = 32  # idle keep-alive connections kept per host
MAX_WAIT = 60.0  # the longest Retry-After honoured; a longer one fails at once
STATUS_HINTS = {
    401: "unauthorized (set HF_TOKEN or run `hf auth login` for a private or gated repo)",
    403: "forbidden (a gated repo: accept its terms on the Hub, or a token without access)",
    404: "not found",
    416: "range not satisfiable (the file is shorter than its header says)",
    429: "rate limited",
}


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass
class Reply:
    """A finished response: status, headers (lower-case names), body and the final URL."""

    status: int
    headers: dict[str, str]
    body: bytes
    url: str


class Transport:
    """The HTTP client of one remote checkpoint. `auth` headers go only to `auth_host`."""

    def __init__(
        self, traffic: Traffic, headers: dict[str, str] | None = None, auth_host: str | None = None
    ) -> None:
        self.traffic = traffic
        self.headers = {k: v for k, v in (headers or {}).items() if k.lower() != "authorization"}
        self.auth = {k: v for k, v in (headers or {}).items() if k.lower() == "authorization"}
        self.auth_host = auth_host
        self.timeout = _env_float("E3_REMOTE_TIMEOUT", 30.0)
        self.attempts = max(1, int(_env_float("E3_REMOTE_RETRIES", 4)))
        self.backoff = _env_float("E3_REMOTE_BACKOFF", 0.5)
        self._idle: dict[tuple[str, str, int | None], list[http.client.HTTPConnection]] = {}
        self._pool_lock = threading.Lock()
        self._located: dict[str, str] = {}  # URL -> where it redirected (dict ops are atomic)

    # --- public ------------------------------------------------------------------------------
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
        except RemoteSourceError as exc:
            if exc.status == 416 and "*/0" in exc.reason:
                return b"", 0
            raise
        found = CONTENT_RANGE.match(reply.headers.get("content-range", ""))
        if found is None or found[3] == "*":
            raise RemoteSourceError(url, "no file size in the Content-Range of a ranged reply")
        return reply.body, int(found[3])

    # --- retries and redirects ---------------------------------------------------------------
    def _with_retries(
        self, url: str, span: tuple[int, int] | None, max_bytes: int, clipped: bool = False
    ) -> Reply:
        for attempt in range(self.attempts):
            last = attempt == self.attempts - 1
            try:
                return self._follow(url, span, max_bytes, clipped)
            except _Retry as retry:
                if last or retry.wait > MAX_WAIT:
                    raise RemoteSourceError(retry.url, retry.reason, retry.status) from None
                time.sleep(max(retry.wait, self.backoff * 2**attempt * (1 + random.random())))
        raise AssertionError("unreachable")

    def _follow(
        self, url: str, span: tuple[int, int] | None, max_bytes: int, clipped: bool
    ) -> Reply:
        """Where `url` redirected before (the Hub sends LFS files to its CDN), the request goes
        straight there: one request per read instead of two. A refusal there (an expired signed
        URL) sends it back through `url` once."""
        located = self._located.get(url)
        if located is not None:
            try:
                return self._chain(located, span, max_bytes, clipped)
            except RemoteSourceError as exc:
                if exc.status not in (401, 403, 404, 410):
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
            if reply.status not in (301, 302, 303, 307, 308):
                return reply
            location = reply.headers.get("location")
            if not location:
                raise RemoteSourceError(url, f"HTTP {reply.status} redirect without Location")
            url = urljoin(url, location)
        raise RemoteSourceError(url, f"more than {MAX_REDIRECTS} redirects")

    # --- one request -------------------------------------------------------------------------
    def _once(self, url: str, span: tuple[int, int] | None, max_bytes: int, clipped: bool) -> Reply:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise RemoteSourceError(url, "only http:// and https:// URLs can be read")
        key = (parts.scheme, parts.hostname, parts.port)
        conn = self._acquire(key)
        finished = False  # the reply was read to its end or the connection closed
        try:
            reply = self._exchange(conn, url, span, max_bytes, clipped)
            finished = True
            return reply
        except (_Retry, RemoteSourceError):
            finished = True
            raise
        finally:
            if finished and conn.sock is not None:
                self._release(key, conn)
            else:
                conn.close()

    def _exchange(
        self,
        conn: http.client.HTTPConnection,
        url: str,
        span: tuple[int, int] | None,
        max_bytes: int,
        clipped: bool,
    ) -> Reply:
        """One request on `conn`; every path either reads the body to its end or closes `conn`."""
        parts = urlsplit(url)
        headers = {**self.headers, "Accept-Encoding": "identity"}
        if parts.hostname == self.auth_host:
            headers.update(self.auth)  # never to a CDN or any other host we are redirected to
        if span is not None:
            headers["Range"] = f"bytes={span[0]}-{span[0] + span[1] - 1}"
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        self.traffic.add(requests=1)
        try:
            conn.request("GET", target or "/", headers=headers)
            response = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            self._drop(conn)
            if isinstance(exc, socket.gaierror | ssl.SSLCertVerificationError):
                # An unknown host or a bad certificate: another attempt would fail the same way.
                raise RemoteSourceError(url, f"network error: {_describe(exc)}") from None
            raise _Retry(url, f"network error: {_describe(exc)}") from None
        head = {k.lower(): v for k, v in response.getheaders()}
        status = response.status
        if status in (301, 302, 303, 307, 308) or status >= 400:
            body = self._body(conn, response, url, min(max_bytes, 1 << 16), head, strict=False)
            if status in RETRY_STATUS:
                raise _Retry(url, _status_text(status, head), status, _retry_after(head))
            if status >= 400:
                raise RemoteSourceError(url, _status_text(status, head), status)
            return Reply(status, head, body, url)
        if span is not None:
            span = self._check_range(conn, response, url, span, head, clipped)
        else:
            declared = head.get("content-length")
            if declared is not None and declared.isdigit() and int(declared) > max_bytes:
                self._drop(conn)
                raise RemoteSourceError(
                    url, f"{declared} bytes, above the {max_bytes}-byte cap for this document"
                )
        body = self._body(conn, response, url, max_bytes, head, strict=True)
        if span is not None and len(body) != span[1]:
            raise _Retry(url, f"truncated response: {len(body)} of {span[1]} bytes")
        return Reply(status, head, body, url)

    def _check_range(
        self,
        conn: http.client.HTTPConnection,
        response: http.client.HTTPResponse,
        url: str,
        span: tuple[int, int],
        head: dict[str, str],
        clipped: bool,
    ) -> tuple[int, int]:
        """Refuses, before reading the body, a reply that is not exactly the asked range (with
        `clipped`, a range cut short at the end of the file is accepted); returns the span the
        body must have."""
        start, end = span[0], span[0] + span[1] - 1
        found = CONTENT_RANGE.match(head.get("content-range", ""))
        if response.status == 206 and found and (int(found[1]), int(found[2])) == (start, end):
            return span
        if clipped and response.status == 206 and found and found[3] != "*":
            got_end, total = int(found[2]), int(found[3])
            if int(found[1]) == start and got_end == total - 1 and got_end < end:
                return (start, got_end - start + 1)
        self._drop(conn)
        if response.status == 200:
            size = head.get("content-length", "?")
            reason = (
                f"the server ignored the Range request (200 with the whole {size}-byte file); "
                "refusing a full download"
            )
        else:
            got = head.get("content-range", "none")
            reason = f"asked for bytes {start}-{end}, got HTTP {response.status} range {got}"
        raise RemoteSourceError(url, reason, response.status)

    def _body(
        self,
        conn: http.client.HTTPConnection,
        response: http.client.HTTPResponse,
        url: str,
        max_bytes: int,
        head: dict[str, str],
        strict: bool,
    ) -> bytes:
        chunks: list[bytes] = []
        got = 0
        try:
            while got <= max_bytes:
                try:
                    chunk = response.read(min(CHUNK, max_bytes + 1 - got))
                except http.client.IncompleteRead as exc:
                    chunk = exc.partial
                    self.traffic.add(nbytes=len(chunk))
                    got += len(chunk)
                    raise
                if not chunk:
                    break
                self.traffic.add(nbytes=len(chunk))
                chunks.append(chunk)
                got += len(chunk)
        except (OSError, http.client.HTTPException) as exc:
            self._drop(conn)
            if isinstance(exc, http.client.IncompleteRead):
                declared = head.get("content-length", "?")
                raise _Retry(url, f"truncated response: {got} of {declared} bytes") from None
            raise _Retry(url, f"network error while reading: {_describe(exc)}") from None
        body = b"".join(chunks)
        declared = head.get("content-length", "")
        if declared.isdigit() and got < min(int(declared), max_bytes + 1):
            # http.client returns a short read at EOF without raising: count it ourselves.
            self._drop(conn)
            raise _Retry(url, f"truncated response: {got} of {declared} bytes")
        if got > max_bytes:
            self._drop(conn)
            if strict:
                raise RemoteSourceError(url, f"reply longer than the {max_bytes} bytes asked")
            return body[:max_bytes]
        if response.will_close or not response.isclosed():
            self._drop(conn)
        return body

    # --- connections -------------------------------------------------------------------------
    def _acquire(self, key: tuple[str, str, int | None]) -> http.client.HTTPConnection:
        """An idle keep-alive connection to `key`'s host, or a new one. Shared by all threads
        (the native workers' thread states may not outlive one call, so no thread-locals)."""
        with self._pool_lock:
            idle = self._idle.get(key)
            if idle:
                return idle.pop()
        scheme, host, port = key
        if scheme == "https":
            context = ssl.create_default_context()
            return http.client.HTTPSConnection(host, port, timeout=self.timeout, context=context)
        return http.client.HTTPConnection(host, port, timeout=self.timeout)

    def _release(self, key: tuple[str, str, int | None], conn: http.client.HTTPConnection) -> None:
        with self._pool_lock:
            idle = self._idle.setdefault(key, [])
            if len(idle) < MAX_IDLE:
                idle.append(conn)
                return
        conn.close()

    def _drop(self, conn: http.client.HTTPConnection) -> None:
        """Closes a connection that must not be reused (an unread body, an error)."""
        conn.close()


class _Retry(Exception):
    """A failure worth another attempt (429, 5xx, network error, short body)."""

    def __init__(self, url: str, reason: str, status: int | None = None, wait: float = 0.0):
        super().__init__(reason)
        self.url, self.reason, self.status, self.wait = url, reason, status, wait


def _status_text(status: int, head: dict[str, str]) -> str:
    text = f"HTTP {status} {STATUS_HINTS.get(status, http.client.responses.get(status, ''))}"
    if status == 429 and "retry-after" in head:
        text += f" (Retry-After: {head['retry-after']})"
    code = head.get("x-error-code")
    return f"{text.rstrip()} [{code}]" if code else text.rstrip()


def _retry_after(head: dict[str, str]) -> float:
    """Seconds to wait from `Retry-After` (delta seconds or an HTTP date); 0 when absent."""
    value = head.get("retry-after", "").strip()
    if not value:
        return 0.0
    if value.isdigit():
        return float(value)
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return 0.0


def _describe(exc: BaseException) -> str:
    if isinstance(exc, socket.timeout | TimeoutError):
        return "timed out"
    return str(exc) or type(exc).__name__
