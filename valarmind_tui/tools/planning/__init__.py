"""Tools about the work rather than the files: the orchestrator's task list (`task_tools.py`),
leaving plan mode with a plan (`exit_plan_mode.py`), appealing a denial once (`appeal_denial.py`).
"""
