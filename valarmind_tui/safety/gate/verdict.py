"""What a step of the gate may say about a call, ordered from the most to the least permissive.

`ALLOW < ASK < DENY`: when several say something about one call (the handlers of one hook
event, say), the strictest wins, and that is their `max`. A step that has no opinion says None,
not a verdict.
"""

from __future__ import annotations

from enum import Enum
from functools import total_ordering


@total_ordering
class Verdict(Enum):
    """allow < ask < deny (the order of the members is the order of strictness)."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"

    @property
    def strictness(self) -> int:
        return _ORDER.index(self)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.strictness < other.strictness

    @classmethod
    def spelled(cls, value: object) -> Verdict | None:
        """The verdict a string spells ("allow", "ask", "deny"); None for anything else (a
        hook's output is untrusted JSON: a list, a number or an unknown word is no verdict)."""
        return next((v for v in cls if v.value == value), None)


_ORDER: tuple[Verdict, ...] = tuple(Verdict)
