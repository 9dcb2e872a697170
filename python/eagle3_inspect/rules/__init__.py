"""Rule families that turn a checkpoint's tensors and config into findings."""
