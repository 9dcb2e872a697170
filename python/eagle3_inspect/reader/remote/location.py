"""Where a remote checkpoint lives: `hf://ORG/NAME[@REVISION][/SUBFOLDER]` (a Hub model) or an
`http(s)://` URL of a `.safetensors` file, a `model.safetensors.index.json` or (for a target) a
`config.json`. Parsing only."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from eagle3_inspect.errors import InvalidArgumentError

HF_SCHEME = "hf://"
# Revisions that hold a '/' (pull-request and conversion refs), as huggingface_hub reads them.
SPECIAL_REVISION = re.compile(r"^refs/(?:convert/[\w.-]+|pr/\d+)")
REPO_PART = re.compile(r"^[A-Za-z0-9][\w.-]*$")


@dataclass(frozen=True)
class HubLocation:
    """A model repository on the Hub, at a revision (None: the default branch), in a subfolder."""

    given: str
    repo_id: str
    revision: str | None
    subfolder: str

    @property
    def root(self) -> str:
        """The shown root: what the user wrote, normalised (no trailing slash)."""
        rev = f"@{self.revision}" if self.revision else ""
        sub = f"/{self.subfolder}" if self.subfolder else ""
        return f"{HF_SCHEME}{self.repo_id}{rev}{sub}"


@dataclass(frozen=True)
class UrlLocation:
    """An HTTP(S) URL of one safetensors file or of an index."""

    given: str
    url: str

    @property
    def is_index(self) -> bool:
        return self.url.endswith(".index.json")

    @property
    def is_config(self) -> bool:
        """A config.json alone: a target read from its config only, as a local config.json."""
        return self.url.endswith("/config.json")

    @property
    def base(self) -> str:
        """The URL's folder: shards and config.json are looked up beside the file."""
        return self.url.rsplit("/", 1)[0]

    @property
    def name(self) -> str:
        return self.url.rsplit("/", 1)[1]


# Weights files a URL may name: safetensors, and what torch.save writes.
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt")


def is_remote(path: object) -> bool:
    """True for `hf://...`, `http://...` and `https://...` strings."""
    if isinstance(path, os.PathLike) or not isinstance(path, str):
        return False
    return path.startswith((HF_SCHEME, "http://", "https://"))


def parse(path: str) -> HubLocation | UrlLocation:
    """The location `path` names; InvalidArgumentError with the expected form otherwise."""
    if path.startswith(HF_SCHEME):
        return _parse_hub(path)
    url = path.split("?", 1)[0].split("#", 1)[0]
    if not url.endswith((*WEIGHT_SUFFIXES, ".index.json", "/config.json")):
        raise InvalidArgumentError(
            f"{path}: a URL must name a .safetensors (or torch .bin/.pt/.pth) file, an index "
            "(model.safetensors.index.json, pytorch_model.bin.index.json) or (as a --target) "
            "a config.json"
        )
    return UrlLocation(path, url)


def _parse_hub(path: str) -> HubLocation:
    rest = path.removeprefix(HF_SCHEME).strip("/")
    parts = rest.split("/", 2)
    if len(parts) < 2:
        raise InvalidArgumentError(f"{path}: expected hf://ORG/NAME[@REVISION][/SUBFOLDER]")
    org, name_rev = parts[0], parts[1]
    tail = parts[2] if len(parts) > 2 else ""
    name, at, revision = name_rev.partition("@")
    if at:
        # The revision runs to the next '/', unless it is a ref that holds '/' itself.
        full = f"{revision}/{tail}" if tail else revision
        special = SPECIAL_REVISION.match(full)
        revision = special.group(0) if special else revision
        tail = full[len(revision) :].strip("/") if special else tail
        if not revision:
            raise InvalidArgumentError(f"{path}: empty revision after '@'")
    subfolder = tail.strip("/")
    if not (REPO_PART.match(org) and REPO_PART.match(name)):
        raise InvalidArgumentError(f"{path}: {org}/{name} is not a Hub repository id")
    if any(part in ("", ".", "..") for part in subfolder.split("/")) and subfolder:
        raise InvalidArgumentError(f"{path}: subfolder {subfolder!r} is not a plain relative path")
    return HubLocation(path, f"{org}/{name}", revision or None, subfolder)
