"""Rule families, one folder each, the codes beside the checks: `st_ix/` (file format and index,
checked in Rust), `pt/` (torch.save files and their pickles, checked in Rust), `vm/` (d2t/t2d
mapping, checked in Rust), `num/` (values), `e3/` (drafter
architecture, config and target cross-checks), `en/` (engine profiles). Each folder's
`codes.toml` defines its codes; `eagle3_inspect.registry` reads them all."""
