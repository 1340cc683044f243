"""Code review (`/review`, the review specialist's evidence): `runner.py` builds the review of a
change, `diff.py` the diff it reads, `checks.py` the static checks, `impact.py` what the change
breaks elsewhere, `report.py` the report (Markdown, SARIF).

"Review" means code review only; the model reviewers of tool calls are `oversight/`.
"""
