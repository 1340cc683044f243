"""Goals (issue #32): the orchestrator works in rounds until the goal's checks pass.

`loop.py` is the loop (`GoalLoop`): a round is one prompt (a checkpoint, so /rewind reaches
it); after it the harness runs every check itself (`checks.py`, the bash tool's sandbox, never
by the model's say-so) and reads the round's diff (`tree.py`, the shadow repository's
snapshots) for changes that weaken the judge (`weakening/`). `state.py` is what a goal
remembers (an event per round in the session store, so `--resume` continues it), `prompts.py`
what each round is told. A budget is a seam (`BudgetCheck`): one more end status.
"""
