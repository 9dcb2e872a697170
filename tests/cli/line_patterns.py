"""The regexes every `concise` and `github` line must match (shared by the format tests and the
every-code check in conftest)."""

from __future__ import annotations

import re

SEVERITY = r"\[(?P<sev>error|warning|info)\]"
CODE = r"[A-Z][A-Z0-9]*[0-9]{3}"
DIFF_KINDS = "renamed|added|removed|differ|close|changed|config|metadata"
CONCISE = re.compile(rf"(?P<where>[^\n]+?): (?P<code>{CODE}) {SEVERITY} (?P<msg>[^\n]*)")
# Diff change lines carry the change kind where findings carry a code.
CONCISE_DIFF = re.compile(
    rf"(?P<where>[^\n]+?): (?P<code>{CODE}|{DIFF_KINDS}) {SEVERITY} (?P<msg>[^\n]*)"
)
# Property values have no raw `:` `,` `%` CR LF; the message no raw `%` CR LF.
GITHUB = re.compile(
    r"::(?P<level>error|warning|notice) file=(?P<file>[^:,\r\n%]*(?:%[0-9A-F]{2}[^:,\r\n%]*)*),"
    r"title=(?P<title>[^:,\r\n%]+)::(?P<msg>[^\r\n%]*(?:%[0-9A-F]{2}[^\r\n%]*)*)"
)
# fix prints its planned changes (code = change kind), notes and diff problems beside findings.
FIX_KINDS = "rename|drop|d2t|t2d|config|note|diff"
CONCISE_FIX = re.compile(
    rf"(?P<where>[^\n]+?): (?P<code>{CODE}|{FIX_KINDS}) {SEVERITY} (?P<msg>[^\n]*)"
)
