"""Denials an agent may appeal once (tool-appeal), and the one-time passes an appeal wins.

Only a reviewer's denial and a deny rule's denial get an appeal id; a person's own denial (or
the headless policy's) never does. An OVERTURN grants a pass for the very same call (tool and
arguments), used once: after a reviewer's denial the call is allowed, after a deny rule's denial
the person is asked (a model never overrides the person's rules).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any, Literal

Source = Literal["reviewer", "rule"]


@dataclass(frozen=True)
class Appealable:
    """One denial that may be appealed."""

    denial_id: str
    agent_kind: str
    fingerprint: str
    summary: str
    """The call, in one line, for the appeal reviewer."""
    reason: str
    """Why it was denied."""
    source: Source


def fingerprint(tool: str, params: Any) -> str:
    """The call's identity: its tool and its arguments, canonically."""
    if hasattr(params, "model_dump"):
        params = params.model_dump(mode="json")
    return tool + " " + json.dumps(params, sort_keys=True, default=str)


class AppealBook:
    """Appealable denials by id (each taken at most once) and the passes appeals won."""

    def __init__(self) -> None:
        self._open: dict[str, Appealable] = {}
        self._passes: dict[tuple[str, str], Source] = {}

    def offer(self, agent_kind: str, tool: str, params: Any, reason: str,
              source: Source) -> Appealable:
        key = fingerprint(tool, params)
        entry = Appealable(f"denial-{uuid.uuid4().hex[:8]}", agent_kind, key,
                           f"{tool} {key.partition(' ')[2][:1500]}", reason, source)
        self._open[entry.denial_id] = entry
        return entry

    def take(self, denial_id: str, agent_kind: str) -> Appealable | None:
        """The denial to appeal, removed so it cannot be appealed twice; None when unknown,
        already appealed or another agent kind's."""
        entry = self._open.get(denial_id.strip())
        if entry is None or entry.agent_kind != agent_kind:
            return None
        del self._open[entry.denial_id]
        return entry

    def grant(self, entry: Appealable) -> None:
        self._passes[(entry.agent_kind, entry.fingerprint)] = entry.source

    def use_pass(self, agent_kind: str, tool: str, params: Any, source: Source) -> bool:
        """True (once) when an appeal overturned a denial of this very call from `source`."""
        key = (agent_kind, fingerprint(tool, params))
        if self._passes.get(key) != source:
            return False
        del self._passes[key]
        return True

    def clear(self) -> None:
        self._open.clear()
        self._passes.clear()
