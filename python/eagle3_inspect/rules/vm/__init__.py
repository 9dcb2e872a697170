"""VM rules: the d2t/t2d vocabulary mapping. The checks run in the Rust core
(`eagle3_inspect_core::vocab`) and reach Python through `reader/vocab.py`, which takes each
finding's hint from the registry; the codes are defined in `codes.toml` here, and a test checks
that every code the core can emit is defined with the same severity."""
