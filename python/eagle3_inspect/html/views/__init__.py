"""The body of each HTML page: a checkpoint's (`checkpoint.py`), and the scan, validate and diff
reports'; the report page (`html/report.py`) wraps one in a document, a notebook's
`_repr_html_` in a fragment."""
