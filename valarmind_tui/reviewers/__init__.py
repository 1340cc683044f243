"""The model reviewers of seed 002: tool-approve, tool-appeal, intent-check, plan-validate and
error-acknowledge, each off by default (config `[reviewers]`).

Between hooks and agents in the layers: they call models through providers and answer the gate
and the agent loop through safety.review_points.GateReviewers.
"""

from valarmind_tui.reviewers.model_call import ModelReviewer, ReviewerUsage, parse_verdict
from valarmind_tui.reviewers.panel import Reviewers

__all__ = ["ModelReviewer", "ReviewerUsage", "Reviewers", "parse_verdict"]
