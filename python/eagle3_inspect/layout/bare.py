"""`BareNames`: a checkpoint's tensor names as read without their `model.` prefix, looked up
without building a dict of every name (a million-tensor header made that a second per use).

It answers exactly what `{strip_model_prefix(n): n for n in tensors}` would: the stored name of a
bare name, the later one in header order when both `x` and `model.x` exist. `starting_with`
finds the few bare names under a prefix (`fc_norm.`) with one regex pass over the joined names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from eagle3_inspect.layout.names import MODEL_PREFIX, strip_model_prefix


def joined_names(names: list[str]) -> str | None:
    """Each name after a newline, for regex passes over all of them at C speed; None when a name
    contains a newline itself (then the lines would not be the names). Patterns start with
    `\n`, not `^` in multiline mode: a literal first character lets the regex engine skip to
    the next line start instead of trying every position of the text."""
    text = "\n" + "\n".join(names) if names else ""
    return text if text.count("\n") == len(names) else None


class BareNames(Mapping[str, str]):
    """Bare name -> stored name over `tensors` (any mapping keyed by stored name)."""

    def __init__(self, tensors: Mapping[str, Any], text: str | None = None) -> None:
        self._tensors = tensors
        self._text = text  # the joined names, when the caller has them already
        self._position: dict[str, int] | None = None  # built on the first `x` / `model.x` pair

    def _later(self, a: str, b: str) -> str:
        if self._position is None:
            self._position = {n: i for i, n in enumerate(self._tensors)}
        return a if self._position[a] > self._position[b] else b

    def __getitem__(self, bare: str) -> str:
        tensors = self._tensors
        prefixed = MODEL_PREFIX + bare
        # `bare` is its own stored name only when stripping leaves it unchanged.
        plain = not bare.startswith(MODEL_PREFIX) and bare in tensors
        if prefixed in tensors:
            return self._later(bare, prefixed) if plain else prefixed
        if plain:
            return bare
        raise KeyError(bare)

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for name in self._tensors:
            bare = strip_model_prefix(name)
            if bare not in seen:
                seen.add(bare)
                yield bare

    def __len__(self) -> int:
        return len(set(map(strip_model_prefix, self._tensors)))

    def starting_with(self, prefix: str) -> list[str]:
        """The bare names that start with `prefix`, sorted."""
        if self._text is None:
            self._text = joined_names(list(self._tensors))
        if self._text is None:  # a name with a newline: the plain way
            return sorted(n for n in self if n.startswith(prefix))
        # A stored name loses one `model.`: a prefix that starts with one needs the stored head.
        head = re.escape(MODEL_PREFIX)
        head = head if prefix.startswith(MODEL_PREFIX) else f"(?:{head})?"
        pattern = re.compile(f"\n{head}({re.escape(prefix)}.*)")
        return sorted(set(pattern.findall(self._text)))


class BareShapes(Mapping[str, tuple[int, ...]]):
    """Bare name -> shape, through a BareNames (what `infer_dims` reads)."""

    def __init__(self, tensors: Mapping[str, Any], names: BareNames) -> None:
        self._tensors = tensors
        self.names = names

    def __getitem__(self, bare: str) -> tuple[int, ...]:
        return tuple(self._tensors[self.names[bare]].shape)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def starting_with(self, prefix: str) -> list[str]:
        return self.names.starting_with(prefix)
