"""PE rules: P-EAGLE (parallel drafting) drafters. A P-EAGLE drafter is an EAGLE-3 drafter plus a
learned `mask_hidden` state standing in for the aux states of the positions it drafts in
parallel, and a mask token; so its rules are the E3 rules plus PE001-PE004 (`codes.toml`)."""
