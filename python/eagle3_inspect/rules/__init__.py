"""Rule families, one folder each, the codes beside the checks: `st_ix/` (file format and index,
checked in Rust), `pt/` (torch.save files and their pickles, checked in Rust), `vm/` (d2t/t2d
mapping, checked in Rust), `num/` (values), `family/` (which drafter family a checkpoint is,
and running its rules), one folder per drafter family: `e3/` (EAGLE-3: architecture, config
and target cross-checks), `pe/` (P-EAGLE), `df/` (DFlash and DFlash2); `tg/` (position and
RoPE cross-checks every family gets), `en/` (engine profiles). Each folder's `codes.toml`
defines its codes; `eagle3_inspect.registry` reads them all."""
