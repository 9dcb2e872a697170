"""`validate --engine NAME@installed`: the engine installed in this Python judges a drafter with its
own code (its config handling, `__init__` and `load_weights`, read from its package directory and
exec'd, never imported whole), instead of the rules' restatement of it. `harness/` is the
torch-only part that does this; it is imported only in the worker subprocess, never by the CLI."""
