"""The Hub's model-info answer (`/api/models/ORG/NAME/revision/REV?blobs=true`), read as the
untrusted JSON it is: bounded (`untrusted.parse_object`), and every field used type-checked, so a
`sha` that is a number, a size given as `"600432"`, `1e308` or `NaN`, or a sibling that is not an
object is one line naming the URL, never a TypeError. The commit must be 40 hex digits: it is
joined into cache paths and URLs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from eagle3_inspect.echo import clip, kind_of
from eagle3_inspect.errors import RemoteSourceError
from eagle3_inspect.reader.source import MAX_SIZE
from eagle3_inspect.reader.untrusted import UntrustedInputError, parse_object

COMMIT = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class RepoFile:
    """One file of the repository at the commit: its path in the repo and size (None: not
    given)."""

    path: str
    size: int | None


@dataclass(frozen=True)
class ModelInfo:
    """What a listing needs of the answer: the commit id and the files."""

    commit: str
    files: list[RepoFile]


def read_model_info(body: bytes, api: str, max_bytes: int) -> ModelInfo:
    """The commit and files of the model-info answer `body` (from `api`), or RemoteSourceError."""
    try:
        info = parse_object(body, "model info", max_bytes)
    except UntrustedInputError as exc:
        raise RemoteSourceError(api, str(exc)) from None
    sha = info.get("sha")
    if sha is None or sha == "":
        raise RemoteSourceError(api, "model info without a commit id (sha)")
    if not isinstance(sha, str) or not COMMIT.match(sha):
        shown = clip(repr(sha), 80) if isinstance(sha, str) else kind_of(sha)
        raise RemoteSourceError(api, f"model info sha is {shown}, not a 40-hex commit id")
    siblings = info.get("siblings")
    if siblings is None:
        siblings = []
    if not isinstance(siblings, list):
        raise RemoteSourceError(api, f"model info siblings is {kind_of(siblings)}, not a list")
    return ModelInfo(sha, [_file(s, i, api) for i, s in enumerate(siblings)])


def _file(sibling: object, i: int, api: str) -> RepoFile:
    where = f"model info siblings[{i}]"
    if not isinstance(sibling, dict):
        raise RemoteSourceError(api, f"{where} is {kind_of(sibling)}, not an object")
    path = sibling.get("rfilename")
    if not isinstance(path, str) or not path:
        raise RemoteSourceError(api, f"{where}.rfilename is {kind_of(path)}, not a file name")
    size = sibling.get("size")
    if size is not None and not (
        isinstance(size, int) and not isinstance(size, bool) and 0 <= size <= MAX_SIZE
    ):
        shown = clip(repr(size), 80) if isinstance(size, int | float | str) else kind_of(size)
        raise RemoteSourceError(api, f"{where}.size is {shown}, not a byte count")
    return RepoFile(path, size)
