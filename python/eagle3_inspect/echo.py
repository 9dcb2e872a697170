"""What of untrusted input is echoed back: `clip` keeps a message (a finding's, an error line)
to one line of at most `MAX_ECHO` characters, so a 15 MB string in a config is shown by its two
ends and its length, not whole (nor three times); `kind_of` names a value's JSON type for
messages that must not repeat the value itself; `json_text` shows a config value as the file
spells it (`["a"]`, `null`, `true`), not as Python's repr (`['a']`, `None`, `True`)."""

from __future__ import annotations

# The longest message (finding, error line) shown whole; longer ones keep their two ends.
MAX_ECHO = 1000


def clip(text: str, limit: int = MAX_ECHO) -> str:
    """`text` when at most `limit` characters, else its first and last `limit // 2` with the
    number left out between them; newlines become spaces (a message stays one line)."""
    if len(text) > limit:
        half = limit // 2
        text = f"{text[:half]}...[{len(text) - 2 * half} characters not shown]...{text[-half:]}"
    return text.replace("\r", " ").replace("\n", " ") if "\n" in text or "\r" in text else text


def kind_of(value: object) -> str:
    """The JSON name of `value`'s type, for messages ("a string", "an array", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def json_text(value: object, limit: int = 200) -> str:
    """`value` (from a parsed JSON document) as JSON text, clipped to `limit` characters."""
    import json

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not from JSON after all (a tuple of ints is fine above)
        text = repr(value)
    return clip(text, limit)
