"""The report's one stylesheet, inline. Rules are scoped under `.e3i` so a notebook view does not
restyle the notebook around it."""

from __future__ import annotations

CSS = """
.e3i { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2330; }
.e3i h1 { font-size: 1.4em; margin: 0 0 .3em; }
.e3i p.family, .e3i p.summary, .e3i p.target-line { margin: .35em 0; }
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
.e3i span.sev-error { color: #cf222e; font-weight: 700; }
.e3i span.sev-warning { color: #9a6700; font-weight: 700; }
.e3i span.sev-info { color: #0969da; }
.e3i table.stats td { white-space: nowrap; }
.e3i .fix, .e3i .step-fix { color: #1a7f37; margin-top: 2px; }
.e3i .fix::before, .e3i .step-fix::before { content: "fix: "; font-weight: 700; }
.e3i .note { color: #57606a; font-style: italic; }
.e3i .bar { display: inline-block; width: 60px; height: 9px; background: #eef1f6;
  margin-right: 6px; vertical-align: middle; border-radius: 2px; overflow: hidden; }
.e3i .bar .fill { display: block; height: 100%; }
.e3i .fill.value { background: #0969da; } .e3i .fill.zero { background: #8c959f; }
.e3i .fill.bad { background: #cf222e; }
.e3i .plot svg { max-width: 100%; height: auto; }
.e3i footer.run { margin-top: 2em; padding-top: .4em; border-top: 1px solid #d8dce4;
  font-size: 12px; color: #57606a; }
.e3i footer.run code, .e3i .next-step code { font-family: ui-monospace, Menlo, Consolas,
  monospace; background: #f6f8fa; padding: 1px 4px; border-radius: 3px; overflow-wrap: anywhere; }
.e3i .count { color: #57606a; font-weight: 400; }
.e3i details.same-for, .e3i details.equal { margin-top: 3px; }
.e3i details summary { cursor: pointer; color: #57606a; }
.e3i details.same-for ul, .e3i details.equal ul { margin: 2px 0; padding-left: 1.4em;
  font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
.e3i details .where { font-weight: 600; }
.e3i tr.anomaly.all-zero td { background: #fff8c5; }
.e3i tr.anomaly.nonfinite td { background: #ffebe9; }
.e3i .badge { display: inline-block; padding: 0 5px; border-radius: 3px; font-size: 11px;
  font-weight: 700; color: #fff; }
.e3i .badge.zero { background: #9a6700; }
.e3i .quiet { color: #8c959f; }
.e3i .hash { font-size: 10.5px; color: #6e7781; }
.e3i ul.anomalies { margin: .3em 0; padding-left: 1.2em; }
.e3i ul.anomalies li.nonfinite { color: #cf222e; } .e3i ul.anomalies li.all-zero { color: #9a6700; }
.e3i section.next-step { border: 2px solid #0969da; border-radius: 6px; padding: 0 12px 8px;
  margin: 1em 0; background: #f6f8ff; }
.e3i section.next-step h2 { border: none; margin-top: .5em; }
.e3i .engine-step h3 { font-size: 1em; margin: .5em 0 .2em; }
.e3i .engine-step.refused h3, .e3i .engine-step.blocked h3 { color: #cf222e; }
.e3i .engine-step.fixable h3, .e3i .engine-step.nothing-to-do h3 { color: #1a7f37; }
.e3i .bucket { margin: .25em 0; } .e3i .bucket ul { margin: .1em 0; padding-left: 1.4em; }
.e3i .bucket.repaired strong { color: #1a7f37; } .e3i .bucket.retrain strong,
.e3i .bucket.engine strong { color: #cf222e; }
.e3i .next-step .label { font-weight: 700; }
.e3i .same-mapping { color: #1a7f37; }
.e3i table.counts td { text-align: right; }
"""
