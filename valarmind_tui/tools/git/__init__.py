"""Read-only git tools (git_status, git_diff), `run.py` running git for them without letting a
repository run its own code, and `refs.py` checking revisions before they reach git.
"""
