"""Whether a Gemini stream carried the model's own finish.

LiteLLM's Gemini parser gives every chunk of a stream `finish_reason="stop"` (its default when
the candidate has no `finishReason`), and never sets the stream wrapper's
`received_finish_reason`: a stream cut by a dropped connection looked exactly like a whole
answer. So the parser's raw chunks are watched, and the stream counts as finished only once a
candidate named its `finishReason` (stream_watch.py reads it).
"""

from __future__ import annotations

from typing import Any

GEMINI_PARSER_MODULE = "litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini"
FINISHED = "_valarmind_native_finish"
"""The response's attribute: False until a raw chunk carried a finishReason, then True."""


def watch_native_finish(response: Any) -> None:
    """Record on `response` whether its Gemini stream sends a finishReason (other providers'
    streams are left alone). LiteLLM opens a Gemini stream at the first read (`make_call`),
    so the parser is watched from there."""
    if getattr(response, "completion_stream", None) is not None:
        _watch(response, response.completion_stream)
        return
    make_call = getattr(response, "make_call", None)
    if make_call is None:
        return

    async def made(*args: Any, **kwargs: Any) -> Any:
        stream = await make_call(*args, **kwargs)
        _watch(response, stream)
        return stream

    response.make_call = made


def _watch(response: Any, stream: Any) -> None:
    if type(stream).__module__ != GEMINI_PARSER_MODULE:
        return
    parse = getattr(stream, "chunk_parser", None)
    if parse is None:
        return
    setattr(response, FINISHED, False)

    def watched(chunk: Any) -> Any:
        candidates = chunk.get("candidates") if isinstance(chunk, dict) else None
        if isinstance(candidates, list) and any(
                isinstance(c, dict) and c.get("finishReason") for c in candidates):
            setattr(response, FINISHED, True)
        return parse(chunk=chunk)

    stream.chunk_parser = watched


def native_finish(response: Any) -> bool | None:
    """True or False when the stream was watched (a Gemini stream), else None."""
    value = getattr(response, FINISHED, None)
    return value if isinstance(value, bool) else None
