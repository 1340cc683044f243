"""`/init`: what it learns about a project (`signals.py`, `tree.py`), VALARMIND.md's sections,
draft, hashed generated blocks and merging (`valarmind_md.py`, `sections.py`, `budget.py`), and
writing it (`write.py`: the init agent, or without a model the deterministic draft).
"""
