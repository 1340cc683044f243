"""Oversight: the model reviewers of seed 002 (tool-approve, tool-appeal, intent-check,
plan-validate, error-acknowledge), each off by default (config `[reviewers]`). They watch tool
calls; code review is `agents/review/`.

Between hooks and agents in the layers: they call models through providers and answer the gate
and the agent loop through safety.gate.oversight_points.GateReviewers.
"""

from valarmind_tui.oversight.model_call import ModelReviewer, ReviewerUsage, parse_verdict
from valarmind_tui.oversight.panel import Reviewers

__all__ = ["ModelReviewer", "ReviewerUsage", "Reviewers", "parse_verdict"]
