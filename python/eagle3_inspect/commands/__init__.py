"""The commands: `scan`, `validate` and `diff`, each building one report from the reader, the
layout and the rules."""
