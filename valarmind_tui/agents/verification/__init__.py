"""Verification before "done" (seed 001's quality gates): `policy.py` says when a change must
pass review and QA, `verdicts.py` decides from evidence (what the agents ran and found, not what
they said).
"""
