"""Human renderers (rich) for each report; the CLI picks one, `--json` bypasses them."""
