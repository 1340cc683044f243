"""The commit chain (seed 002, `/commit`): check → confirm → message → commit (→ push).
`chain.py` runs it, `git.py` is its git side, `message.py` the model-written message.
"""
