"""PT rules: files written by `torch.save` (`pytorch_model.bin`, `.pt`, `.pth`) and the pickles in
them. The checks run in the Rust core (`eagle3_inspect_core::torch`: the zip and legacy readers
and the restricted pickle machine, which runs only what torch's `weights_only` unpickler runs and
never imports or calls anything) and reach Python through `reader/checkpoint.py`, which takes
each finding's hint from the registry; the codes are defined in `codes.toml` here. Every verdict
is held to `torch.load(weights_only=True)`'s own, run on the corpus in `tests/torch/`."""
