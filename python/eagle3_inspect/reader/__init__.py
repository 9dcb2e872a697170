"""The reader face of the core: `Checkpoint` (headers, config, zero-copy tensor views), statistics,
the d2t/t2d vocab analysis, and the drafter and target configs parsed once into typed objects.
Everything that consumes `_native` results lives here."""
