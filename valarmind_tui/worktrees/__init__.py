"""ValarMind's git worktrees: sessions on a branch of their own, best-of-N attempts, and a merge
back the person can trust (docs/worktrees.md).

Start at `worktree.py` (where they live, made from HEAD plus the work in progress, listed,
removed), then `merge.py` (predict with `conflicts.py`, check the merged tree with `scratch.py`
and `checks.py`, apply onto the person's files). Best-of-N: `attempts.py` (the processes),
`comparison.py` (side by side, the policies), `best_of.py` (start to merge). `git.py` is git run
hardened and the snapshot through a copy of the index. May import `context`, `safety`, `core`.
"""
