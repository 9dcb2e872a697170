"""The report's one stylesheet, inline. Rules are scoped under `.e3i` so a notebook view does not
restyle the notebook around it."""

from __future__ import annotations

CSS = """
.e3i { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2330; }
.e3i h1 { font-size: 1.4em; margin: 0 0 .3em; }
.e3i h2 { font-size: 1.15em; margin: 1.4em 0 .4em; border-bottom: 1px solid #d8dce4; }
.e3i .path { font-family: ui-monospace, Menlo, Consolas, monospace; word-break: break-all; }
.e3i table { border-collapse: collapse; margin: .3em 0; }
.e3i th, .e3i td { border: 1px solid #d8dce4; padding: 2px 8px; text-align: left;
  vertical-align: top; }
.e3i thead th { background: #eef1f6; position: sticky; top: 0; }
.e3i td { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
.e3i td.msg { font-family: inherit; font-size: inherit; max-width: 60em; }
.e3i table.kv th { background: #f6f7fa; font-weight: 600; }
.e3i .verdict { display: inline-block; padding: 2px 10px; border-radius: 4px; color: #fff;
  font-weight: 700; }
.e3i .pass { background: #1f883d; } .e3i .fail { background: #cf222e; }
.e3i .warn { background: #bf8700; }
.e3i td.sev-error { color: #cf222e; font-weight: 700; }
.e3i td.sev-warning { color: #9a6700; font-weight: 700; }
.e3i td.sev-info { color: #0969da; }
.e3i table.stats td { white-space: nowrap; }
.e3i .fix { color: #1a7f37; margin-top: 2px; }
.e3i .fix::before { content: "fix: "; font-weight: 700; }
.e3i .note { color: #57606a; font-style: italic; }
.e3i .bar { display: inline-block; width: 60px; height: 9px; background: #eef1f6;
  margin-right: 6px; vertical-align: middle; border-radius: 2px; overflow: hidden; }
.e3i .bar .fill { display: block; height: 100%; }
.e3i .fill.value { background: #0969da; } .e3i .fill.zero { background: #8c959f; }
.e3i .fill.bad { background: #cf222e; }
.e3i .plot svg { max-width: 100%; height: auto; }
.e3i footer { margin-top: 2em; font-size: 12px; }
"""
