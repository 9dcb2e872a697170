"""Engine profile data files (TOML); see README.md in this directory for the schema."""
