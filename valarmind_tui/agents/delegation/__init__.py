"""How the orchestrator starts specialists: the `delegate` tool (`tool.py`) and the run of a
specialist in its own loop with its own context (`delegate.py`).
"""
