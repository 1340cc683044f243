"""The permission gate: every tool call passes one pipeline before it runs (seed 002).

`pipeline.py` is the gate; `call.py` the call as the gate sees it; `rules.py`, `call_rules.py`,
`mode.py` and `permissions.py` what rules, the permission mode and an agent's permissions say;
`asking.py` the "ask" step; `approval.py` the Approver protocol; `denials.py` and `appeals.py`
what a denial leaves; `oversight.py` and `oversight_points.py` where the model reviewers speak;
`hook_points.py` where the person's hooks do; `verdict.py` what a step may say (allow < ask <
deny: the strictest of several is their `max`).
"""
