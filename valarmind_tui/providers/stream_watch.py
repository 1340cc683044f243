"""The deadlines of one stream, and whether it ended as the provider meant it to.

LiteLLM's stream wrapper fills in `finish_reason="stop"` when a stream ends without one, so a
stream cut by a dropped connection, an empty 200, or a JSON body to a streamed request read as a
whole answer. What the provider itself sent is the wrapper's `received_finish_reason`; a stream
without it is a StreamFault ("incomplete"), retried while nothing of it was shown. A stream that
sends nothing within its deadline is one too ("stalled"), reported as what it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from valarmind_tui.providers.failures import StreamFault
from valarmind_tui.providers.native_finish import native_finish


@dataclass(frozen=True)
class Deadlines:
    """How long a stream may keep the person waiting (settings' first_byte_timeout_s and
    stream_idle_timeout_s). `request_timeout_s` alone is a per-read timeout: a server sending
    a byte a second, or an answer that never came, stayed within it for half an hour."""

    first_byte_s: float = 120.0
    """From sending the request to the stream's first chunk (a reasoning model thinks first)."""
    idle_s: float = 60.0
    """Between two chunks once the stream has begun."""


class StreamWatch:
    """One stream's clock (loop time) and its count of chunks."""

    def __init__(self, deadlines: Deadlines, started: float) -> None:
        self.deadlines = deadlines
        self.started = started
        self.chunks = 0
        self.due = started + deadlines.first_byte_s
        """When the stream stalls unless a chunk arrives first."""

    def arrived(self, now: float) -> float:
        """A chunk came at `now`; returns the new deadline."""
        self.chunks += 1
        self.due = now + self.deadlines.idle_s
        return self.due

    def stalled(self) -> StreamFault:
        if self.chunks == 0:
            waited = _seconds(self.deadlines.first_byte_s)
            return StreamFault(f"no answer from the model within {waited} of the request "
                               "(first_byte_timeout_s)", "stalled")
        return StreamFault(f"no data from the model for {_seconds(self.deadlines.idle_s)} after "
                           f"{self.chunks} chunks (stream_idle_timeout_s)", "stalled")

    def ended(self, response: Any) -> None:
        """The stream ended: raise StreamFault unless the provider sent its finish reason."""
        if _provider_finished(response):
            return
        raise StreamFault("the stream ended without the model's finish (a dropped "
                          "connection, or a response that was not a stream)", "incomplete")


def provider_finish(response: Any, finish_reason: str | None) -> str | None:
    """`finish_reason` of a chunk when the provider sent one; None for LiteLLM's stand-in (its
    last chunk says "stop" whether or not the provider finished)."""
    return finish_reason if finish_reason and _provider_finished(response) else None


def _provider_finished(response: Any) -> bool:
    """Whether the provider itself sent a finish reason. A wrapper without the attributes
    (another LiteLLM) is trusted, as before."""
    native = native_finish(response)
    if native is not None:  # Gemini's: LiteLLM's own flags cannot tell (native_finish.py)
        return native
    if not hasattr(response, "received_finish_reason"):
        return True
    return bool(response.received_finish_reason
                or getattr(response, "intermittent_finish_reason", None))


def _seconds(value: float) -> str:
    return f"{value:g} s"
