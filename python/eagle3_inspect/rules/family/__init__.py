"""Drafter families: which family and variant a checkpoint is (`detect.detect_family`), and the
rules each family gets (`check.check_family`, `check.check_family_target`). Each family's
rules live in their own folder (`rules/e3` EAGLE-3, `rules/pe` P-EAGLE, `rules/df` DFlash and
DFlash2), which declares a `FamilySpec`; `known.py` lists them. FM codes (`codes.toml`) say
what detection found when it is not a drafter family this tool knows."""
