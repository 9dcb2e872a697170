"""The torch corpus (written by torch.save; truth.json says what torch.load(weights_only=True)
makes of each file) and the tests that hold the reader to it, without torch."""
