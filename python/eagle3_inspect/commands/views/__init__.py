"""HTML views of the reports (validate, diff, scan): the body the HTML report wraps in a page and
the notebook `_repr_html_` wraps in a fragment. Each view reads its report through a Protocol of
the fields it uses, so the report modules can call their view without an import cycle."""
