"""One HTTP request on one connection, judged on its status line and headers before its body:
a range reply that is not exactly the asked bytes (a server ignoring `Range`) is refused without
reading the body; a body shorter than `Content-Length` is a retryable failure; 429 / 5xx /
network errors are retryable with the server's `Retry-After`; the whole exchange runs under a
total deadline (`deadline.py`: headers within the timeout, the body within the timeout plus its
size at the minimum rate). Every path either reads the reply to its end (the connection can be
reused) or closes the connection."""

from __future__ import annotations

import http.client
import re
import socket
import ssl
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

from eagle3_inspect.errors import RemoteSourceError
from eagle3_inspect.reader.remote.deadline import WATCHDOG, Watch
from eagle3_inspect.reader.remote.traffic import Traffic

CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+|\*)$")
UNSATISFIED_RANGE = re.compile(r"^bytes \*/(\d+)$")
RETRY_STATUS = {408, 429, 500, 502, 503, 504}
REDIRECT_STATUS = {301, 302, 303, 307, 308}
CHUNK = 1 << 20
ERROR_BODY_CAP = 1 << 16
STATUS_HINTS = {
    401: "unauthorized (set HF_TOKEN or run `hf auth login` for a private or gated repo)",
    403: "forbidden (a gated repo: accept its terms on the Hub, or a token without access)",
    404: "not found",
    416: "range not satisfiable (the file is shorter than its header says)",
    429: "rate limited",
}


@dataclass
class Reply:
    """A finished response: status, headers (lower-case names), body and the URL it came from."""

    status: int
    headers: dict[str, str]
    body: bytes
    url: str


@dataclass(frozen=True)
class Limits:
    """How long an exchange may take: `timeout` seconds for the status line and headers (and
    for each socket operation), then `timeout` plus the body's size at `min_rate` bytes per
    second for the body."""

    timeout: float
    min_rate: float

    def body_seconds(self, nbytes: int) -> float:
        return self.timeout + nbytes / self.min_rate


class RangeNotSatisfiable(RemoteSourceError):
    """416: the asked range starts past the end of the file, whose size (`Content-Range:
    bytes */SIZE`) is `size` (None when the server did not say)."""

    def __init__(self, url: str, reason: str, size: int | None = None) -> None:
        self.size = size
        super().__init__(url, reason, 416)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.url, self.reason, self.size))


class Retryable(Exception):
    """A failure worth another attempt (429, 5xx, network error, short body); `wait`: the
    server's Retry-After in seconds."""

    def __init__(self, url: str, reason: str, status: int | None = None, wait: float = 0.0):
        super().__init__(reason)
        self.url, self.reason, self.status, self.wait = url, reason, status, wait


@dataclass(frozen=True)
class Ask:
    """What to request: `span` (offset, length) for a range read, else the whole document up to
    `max_bytes`; `clipped` accepts a range cut short by the end of the file."""

    url: str
    target: str
    headers: dict[str, str]
    span: tuple[int, int] | None
    max_bytes: int
    clipped: bool = False


def exchange(conn: http.client.HTTPConnection, ask: Ask, traffic: Traffic, limits: Limits) -> Reply:
    """Sends `ask` on `conn` and returns the reply (a redirect is returned, not followed), all
    within the deadline `limits` sets."""
    with WATCHDOG.watch(conn, limits.timeout) as watch:
        try:
            reply = _exchange(conn, ask, traffic, limits, watch)
        except (Retryable, RemoteSourceError):
            if not watch.expired:
                raise
            reply = None
        if watch.expired:
            # Cut by the watchdog: whatever was read (an error, or a reply that only looks
            # whole: a header block ended by the cut) is not the server's answer.
            conn.close()
            raise Retryable(ask.url, _expired(watch, limits))
        assert reply is not None  # None only when the watchdog cut the exchange (raised above)
        return reply


def _expired(watch: Watch, limits: Limits) -> str:
    return (
        f"timed out: no complete reply within {watch.allowed:.3g} s (E3_REMOTE_TIMEOUT "
        f"{limits.timeout:g} s for the headers, then the body at E3_REMOTE_MIN_RATE "
        f"{limits.min_rate:g} bytes/s or faster); cut off"
    )


def _exchange(
    conn: http.client.HTTPConnection, ask: Ask, traffic: Traffic, limits: Limits, watch: Watch
) -> Reply:
    url = ask.url
    traffic.add(requests=1)
    try:
        conn.request("GET", ask.target or "/", headers=ask.headers)
        if watch.expired:  # the deadline passed while connecting: nothing to cut then
            raise OSError("deadline passed while connecting")
        response = conn.getresponse()
    except (OSError, http.client.HTTPException) as exc:
        conn.close()
        if isinstance(exc, socket.gaierror | ssl.SSLCertVerificationError):
            # An unknown host or a bad certificate: another attempt would fail the same way.
            raise RemoteSourceError(url, f"network error: {describe(exc)}") from None
        raise Retryable(url, f"network error: {describe(exc)}") from None
    head = {k.lower(): v for k, v in response.getheaders()}
    status = response.status
    if status in REDIRECT_STATUS or status >= 400:
        cap = min(ask.max_bytes, ERROR_BODY_CAP)
        WATCHDOG.extend(watch, limits.body_seconds(cap))
        body = read_body(conn, response, url, cap, head, traffic, strict=False)
        if status in RETRY_STATUS:
            raise Retryable(url, status_text(status, head), status, retry_after(head))
        if status == 416:
            found = UNSATISFIED_RANGE.match(head.get("content-range", ""))
            size = int(found[1]) if found else None
            raise RangeNotSatisfiable(url, status_text(status, head), size)
        if status >= 400:
            raise RemoteSourceError(url, status_text(status, head), status)
        return Reply(status, head, body, url)
    span = ask.span
    if span is not None:
        span = check_range(conn, status, url, span, head, ask.clipped)
        expected = span[1]
    else:
        declared = head.get("content-length", "")
        if declared.isdigit() and int(declared) > ask.max_bytes:
            conn.close()
            raise RemoteSourceError(
                url, f"{declared} bytes, above the {ask.max_bytes}-byte cap for this document"
            )
        expected = int(declared) if declared.isdigit() else ask.max_bytes
    WATCHDOG.extend(watch, limits.body_seconds(expected))
    body = read_body(conn, response, url, ask.max_bytes, head, traffic, strict=True)
    if span is not None and len(body) != span[1]:
        raise Retryable(url, f"truncated response: {len(body)} of {span[1]} bytes")
    return Reply(status, head, body, url)


def check_range(
    conn: http.client.HTTPConnection,
    status: int,
    url: str,
    span: tuple[int, int],
    head: dict[str, str],
    clipped: bool,
) -> tuple[int, int]:
    """Refuses, before the body is read, a reply that is not exactly the asked range (with
    `clipped`, a range cut short at the end of the file is accepted); returns the span the body
    must have."""
    start, end = span[0], span[0] + span[1] - 1
    found = CONTENT_RANGE.match(head.get("content-range", ""))
    if status == 206 and found and (int(found[1]), int(found[2])) == (start, end):
        return span
    if clipped and status == 206 and found and found[3] != "*":
        got_end, total = int(found[2]), int(found[3])
        if int(found[1]) == start and got_end == total - 1 and got_end < end:
            return (start, got_end - start + 1)
    conn.close()  # the body is never read
    if status == 200:
        size = head.get("content-length", "?")
        reason = (
            f"the server ignored the Range request (200 with the whole {size}-byte file); "
            "refusing a full download"
        )
    else:
        got = head.get("content-range", "none")
        reason = f"asked for bytes {start}-{end}, got HTTP {status} range {got}"
    raise RemoteSourceError(url, reason, status)


def read_body(
    conn: http.client.HTTPConnection,
    response: http.client.HTTPResponse,
    url: str,
    max_bytes: int,
    head: dict[str, str],
    traffic: Traffic,
    strict: bool,
) -> bytes:
    """The body, at most `max_bytes` (more is an error when `strict`, else cut); every byte
    received is counted, a short body is Retryable."""
    chunks: list[bytes] = []
    got = 0
    try:
        while got <= max_bytes:
            try:
                chunk = response.read(min(CHUNK, max_bytes + 1 - got))
            except http.client.IncompleteRead as exc:
                traffic.add(nbytes=len(exc.partial))
                got += len(exc.partial)
                raise
            if not chunk:
                break
            traffic.add(nbytes=len(chunk))
            chunks.append(chunk)
            got += len(chunk)
    except (OSError, http.client.HTTPException) as exc:
        conn.close()
        if isinstance(exc, http.client.IncompleteRead):
            declared = head.get("content-length", "?")
            raise Retryable(url, f"truncated response: {got} of {declared} bytes") from None
        raise Retryable(url, f"network error while reading: {describe(exc)}") from None
    body = b"".join(chunks)
    declared = head.get("content-length", "")
    if declared.isdigit() and got < min(int(declared), max_bytes + 1):
        # http.client returns a short read at EOF without raising: count it ourselves.
        conn.close()
        raise Retryable(url, f"truncated response: {got} of {declared} bytes")
    if got > max_bytes:
        conn.close()
        if strict:
            raise RemoteSourceError(url, f"reply longer than the {max_bytes} bytes asked")
        return body[:max_bytes]
    if response.will_close or not response.isclosed():
        conn.close()
    return body


def status_text(status: int, head: dict[str, str]) -> str:
    text = f"HTTP {status} {STATUS_HINTS.get(status, http.client.responses.get(status, ''))}"
    if status == 429 and "retry-after" in head:
        text += f" (Retry-After: {head['retry-after']})"
    code = head.get("x-error-code")
    return f"{text.rstrip()} [{code}]" if code else text.rstrip()


def retry_after(head: dict[str, str]) -> float:
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


def describe(exc: BaseException) -> str:
    if isinstance(exc, socket.timeout | TimeoutError):
        return "timed out"
    return str(exc) or type(exc).__name__
