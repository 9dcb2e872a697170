"""`validate --engine NAME@installed`: the engine installed in this Python judges a drafter with its
own code (its config handling, `__init__` and `load_weights`, read from its package directory and
exec'd, never imported whole), instead of the rules' restatement of it. `probe` finds the engine,
torch and transformers without importing them; `standin` shrinks the drafter's config and tensor
shapes to a tiny model of the same structure; `judge` runs the load harness (`harness/`, the
torch-only part, imported only in the `worker` subprocess, never by the CLI) on those stand-ins
and returns a `verdict.InstalledVerdict`; `findings` turns it into EN findings, with what counts
as harm in `harm`."""
