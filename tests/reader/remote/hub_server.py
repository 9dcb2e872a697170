"""A local stand-in for the Hugging Face Hub on 127.0.0.1: serves folders of checkpoints the way
the Hub does, closely enough for the real `huggingface_hub` client, and counts every byte.

Routes (the ones `HfApi.model_info`, `hf_hub_url`, `get_hf_file_metadata` and `hf_hub_download`
use):
- `GET /api/models/{org}/{name}[/revision/{rev}]`: `sha` (the commit) and `siblings` (with
  `size`, `blobId`, `lfs` for `.safetensors` files, as with `?blobs=true`).
- `GET|HEAD /{org}/{name}/resolve/{rev}/{file}`: small files answered directly (`ETag`,
  `X-Repo-Commit`, `Content-Length`); `.safetensors` files (LFS on the Hub) redirected with 302 to
  `/cdn/...` on another host name (`localhost` instead of `127.0.0.1`) with `X-Linked-Size`,
  `X-Linked-Etag` and `X-Repo-Commit`, as the Hub redirects to its CDN.
- `GET|HEAD /cdn/{repo}/{commit}/{file}` and `/files/{relative path}` (plain HTTP(S) hosting).
Every file route honours one `Range: bytes=a-b` (206 + `Content-Range`; 416 past the end).

Faults are injected per request with `inject(match, kind, ...)`: a status (401, 403, 404, 500),
429 with `Retry-After`, a truncated body, a server that ignores `Range`, a slow answer, a reply
dripped a byte at a time (the body, or the status line and headers), a 200 with other `data`
(a hostile model-info answer), a redirect to any `location`.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

RANGE = re.compile(r"^bytes=(\d+)-(\d*)$")
CHUNK = 1 << 16


@dataclass
class Fault:
    """One injected fault: applies to requests whose path contains `match`, `times` times (None:
    always), after letting the first `after` of them through. `kind`: "status", "429",
    "truncate", "stall" (half the body, then `delay` seconds of silence), "ignore_range",
    "slow" (`delay` seconds before answering), "drip" (the body one byte per `delay` seconds),
    "drip_head" (the status line and headers so), "answer" (200 with `data` as the body),
    "redirect" (302 to `location`). `cut` is set when the client hangs up during a drip."""

    match: str
    kind: str
    status: int = 500
    retry_after: str | None = None
    delay: float = 0.0
    times: int | None = None
    after: int = 0
    data: bytes = b""
    location: str = ""
    cut: threading.Event = field(default_factory=threading.Event)
    dripped: int = 0  # bytes written one at a time before the client hung up

    def take(self, path: str) -> bool:
        if self.match not in path or self.times == 0:
            return False
        if self.after > 0:
            self.after -= 1
            return False
        if self.times is not None:
            self.times -= 1
        return True


@dataclass
class Seen:
    """One request as the server saw it."""

    method: str
    path: str
    host: str
    range: str | None
    authorization: str | None
    status: int = 0
    sent: int = 0


@dataclass
class Repo:
    refs: dict[str, str] = field(default_factory=dict)  # branch/tag -> commit
    commits: dict[str, Path] = field(default_factory=dict)  # commit -> folder


class HubServer:
    """The server and its bookkeeping. `url` is its base (`http://127.0.0.1:PORT`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.repos: dict[str, Repo] = {}
        self.faults: list[Fault] = []
        self.seen: list[Seen] = []
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests answered at once since `clear`
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.cdn = f"http://localhost:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self) -> HubServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # --- content -------------------------------------------------------------------------
    def add_repo(
        self, repo_id: str, folder: Path, *, refs: tuple[str, ...] = ("main",), commit: str = ""
    ) -> str:
        """Publishes a copy of `folder` (hard links, sparse files stay sparse) as a commit of
        `repo_id` that `refs` point at; returns the 40-hex commit id."""
        commit = commit or hashlib.sha1(f"{repo_id}:{folder}".encode()).hexdigest()
        dest = self.root / "repos" / repo_id / commit
        shutil.copytree(folder, dest, copy_function=_link_or_copy)
        repo = self.repos.setdefault(repo_id, Repo())
        repo.commits[commit] = dest
        for ref in refs:
            repo.refs[ref] = commit
        return commit

    def file_path(self, relative: str) -> Path:
        return self.root / "repos" / relative

    def inject(self, match: str, kind: str, **options: object) -> Fault:
        fault = Fault(match, kind, **options)  # type: ignore[arg-type]
        with self.lock:
            self.faults.append(fault)
        return fault

    def clear(self) -> None:
        with self.lock:
            self.faults.clear()
            self.seen.clear()
            self.max_in_flight = 0

    # --- counters ------------------------------------------------------------------------
    def bytes_served(self, match: str = "") -> int:
        with self.lock:
            return sum(s.sent for s in self.seen if match in s.path)

    def requests(self, match: str = "") -> list[Seen]:
        with self.lock:
            return [s for s in self.seen if match in s.path]

    def fault_for(self, path: str) -> Fault | None:
        with self.lock:
            return next((f for f in self.faults if f.take(path)), None)

    def resolve(self, repo_id: str, rev: str) -> tuple[str, Path] | None:
        repo = self.repos.get(repo_id)
        if repo is None:
            return None
        commit = repo.refs.get(rev, rev)
        folder = repo.commits.get(commit)
        return (commit, folder) if folder is not None else None


def _link_or_copy(src: str, dst: str) -> None:
    try:
        Path(dst).hardlink_to(src)
    except OSError:
        shutil.copy2(src, dst)


def _etag(path: Path) -> str:
    """A stable stand-in for the blob id / LFS sha256 (hashing a sparse 300 GB file is not an
    option): hash of the name, size and first KiB."""
    with path.open("rb") as f:
        head = f.read(1024)
    return hashlib.sha256(f"{path.name}:{path.stat().st_size}".encode() + head).hexdigest()


def _handler(server: HubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        hub = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    hub: HubServer
    protocol_version = "HTTP/1.1"  # keep-alive, as the Hub
    disable_nagle_algorithm = True  # head and body are two writes: no 40 ms delayed-ACK stall

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._serve(body=True)

    def do_HEAD(self) -> None:
        self._serve(body=False)

    def _serve(self, body: bool) -> None:
        with self.hub.lock:
            self.hub.in_flight += 1
            self.hub.max_in_flight = max(self.hub.max_in_flight, self.hub.in_flight)
        try:
            self._answer(body)
        finally:
            with self.hub.lock:
                self.hub.in_flight -= 1

    def _answer(self, body: bool) -> None:
        path = unquote(urlsplit(self.path).path)
        seen = Seen(
            self.command,
            path,
            self.headers.get("Host", ""),
            self.headers.get("Range"),
            self.headers.get("Authorization"),
        )
        with self.hub.lock:
            self.hub.seen.append(seen)
        fault = self.hub.fault_for(path)
        if fault is not None and fault.kind == "slow":
            time.sleep(fault.delay)
            fault = None
        if fault is not None and fault.kind in ("status", "429"):
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            status = 429 if fault.kind == "429" else fault.status
            self._reply(seen, status, b'{"error": "injected"}', headers, body)
            return
        if fault is not None and fault.kind == "answer":
            self._reply(seen, 200, fault.data, {"Content-Type": "application/json"}, body)
            return
        if fault is not None and fault.kind == "redirect":
            self._reply(seen, 302, b"", {"Location": fault.location}, body)
            return
        if fault is not None and fault.kind == "drip_head":
            head = f"HTTP/1.1 200 OK\r\nX-Padding: {'x' * 4096}\r\nContent-Length: 0\r\n\r\n"
            self._drip(seen, head.encode(), fault)
            return
        if path.startswith("/api/models/"):
            self._model_info(seen, path.removeprefix("/api/models/"), body)
        elif path.startswith("/cdn/"):
            self._file(seen, self.hub.file_path(path.removeprefix("/cdn/")), {}, body, fault)
        elif path.startswith("/files/"):
            self._file(seen, self.hub.root / path.removeprefix("/files/"), {}, body, fault)
        elif "/resolve/" in path:
            self._resolve(seen, path, body, fault)
        else:
            self._reply(seen, 404, b"not found", {}, body)

    def _model_info(self, seen: Seen, rest: str, body: bool) -> None:
        repo_id, _, rev = rest.partition("/revision/")
        found = self.hub.resolve(repo_id, rev or "main")
        if found is None:
            code = "RepoNotFound" if repo_id not in self.hub.repos else "RevisionNotFound"
            self._reply(seen, 404, b'{"error": "not found"}', {"X-Error-Code": code}, body)
            return
        commit, folder = found
        siblings = []
        for file in sorted(p for p in folder.rglob("*") if p.is_file()):
            name = file.relative_to(folder).as_posix()
            size = file.stat().st_size
            entry: dict[str, object] = {"rfilename": name, "size": size, "blobId": _etag(file)}
            if name.endswith(".safetensors"):
                entry["lfs"] = {"size": size, "sha256": _etag(file), "pointerSize": 134}
            siblings.append(entry)
        info = {"id": repo_id, "modelId": repo_id, "sha": commit, "private": False}
        data = json.dumps({**info, "siblings": siblings}).encode()
        self._reply(seen, 200, data, {"Content-Type": "application/json"}, body)

    def _resolve(self, seen: Seen, path: str, body: bool, fault: Fault | None) -> None:
        repo_id, _, rest = path.lstrip("/").partition("/resolve/")
        rev, _, name = rest.partition("/")
        found = self.hub.resolve(repo_id, rev)
        if found is None or not (found[1] / name).is_file():
            headers = {"X-Error-Code": "EntryNotFound" if found else "RepoNotFound"}
            self._reply(seen, 404, b"not found", headers, body)
            return
        commit, folder = found
        file = folder / name
        etag = f'"{_etag(file)}"'
        headers = {"X-Repo-Commit": commit, "ETag": etag}
        if name.endswith(".safetensors"):
            location = f"{self.hub.cdn}/cdn/{repo_id}/{commit}/{name}"
            headers |= {"Location": location, "X-Linked-Size": str(file.stat().st_size)}
            headers["X-Linked-Etag"] = etag
            self._reply(seen, 302, b"", headers, body)
            return
        self._file(seen, file, headers, body, fault)

    def _file(
        self, seen: Seen, file: Path, headers: dict[str, str], body: bool, fault: Fault | None
    ) -> None:
        if not file.is_file():
            self._reply(seen, 404, b"not found", {}, body)
            return
        size = file.stat().st_size
        start, end, status = 0, size, 200
        match = RANGE.match(seen.range or "")
        if match and not (fault and fault.kind == "ignore_range"):
            start = int(match[1])
            end = min(size, int(match[2]) + 1) if match[2] else size
            if start >= size or end <= start:
                self._reply(seen, 416, b"", {"Content-Range": f"bytes */{size}"}, body)
                return
            status = 206
            headers = {**headers, "Content-Range": f"bytes {start}-{end - 1}/{size}"}
        headers = {**headers, "Accept-Ranges": "bytes", "ETag": headers.get("ETag", '"x"')}
        self._send_head(seen, status, end - start, headers)
        if not body:
            return
        if fault is not None and fault.kind == "drip":
            with file.open("rb") as f:
                f.seek(start)
                self._drip(seen, f.read(end - start), fault)
            return
        if fault is not None and fault.kind in ("truncate", "stall"):
            half = start + (end - start) // 2
            self._copy(seen, file, start, half)
            if fault.kind == "stall":  # half the body, then silence (the connection stays open)
                self.wfile.flush()
                time.sleep(fault.delay)
            self.close_connection = True
            return
        self._copy(seen, file, start, end)

    def _copy(self, seen: Seen, file: Path, start: int, end: int) -> None:
        with file.open("rb") as f:
            f.seek(start)
            left = end - start
            try:
                while left > 0:
                    chunk = f.read(min(CHUNK, left))
                    if not chunk:
                        break
                    # Counted before the write: the client may read it and look at the counter
                    # before this thread runs again. Taken back if the write fails.
                    self._count(seen, len(chunk))
                    try:
                        self.wfile.write(chunk)
                    except OSError:
                        self._count(seen, -len(chunk))
                        raise
                    left -= len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client hung up (as it should on a bad reply)

    def _drip(self, seen: Seen, data: bytes, fault: Fault) -> None:
        """Writes `data` one byte per `fault.delay` seconds, each within any per-read timeout,
        until it is all sent or the client hangs up (then `fault.cut` is set)."""
        self.close_connection = True
        try:
            for i in range(len(data)):
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
                self._count(seen, 1)
                fault.dripped += 1
                time.sleep(fault.delay)
        except OSError:
            fault.cut.set()

    def _send_head(self, seen: Seen, status: int, length: int, headers: dict[str, str]) -> None:
        seen.status = status
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(length))
        self.end_headers()

    def _reply(
        self, seen: Seen, status: int, data: bytes, headers: dict[str, str], body: bool
    ) -> None:
        self._send_head(seen, status, len(data), headers)
        if body and data:
            self._count(seen, len(data))
            self.wfile.write(data)

    def _count(self, seen: Seen, n: int) -> None:
        with self.hub.lock:
            seen.sent += n
