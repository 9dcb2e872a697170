"""ST and IX rules: the safetensors file format (ST) and the index / file set / config.json (IX).
The checks run in the Rust core (`header/` and `checkpoint/`) and reach Python through
`reader/checkpoint.py`, which takes each finding's hint from the registry; the codes are defined in
`codes.toml` here (IX009 is also emitted in Python, for a config.json that does not parse)."""
