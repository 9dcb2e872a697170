"""HTML building blocks shared by the HTML report (`cli/render/html`) and the notebook views
(`_repr_html_`): escaping, tables, bars, the findings table, the page shell and matplotlib SVG
plots. Nothing here knows a report type, and nothing imports matplotlib at module level."""
