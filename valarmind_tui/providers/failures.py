"""Classify LiteLLM exceptions: what the provider said, whether to retry, and how long to wait."""

from __future__ import annotations

import errno
import json
import re
import socket
import ssl
import time
from collections.abc import Iterator
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from valarmind_tui.core.errors import AuthError, ProviderError

_TRANSIENT_NAMES = {"InternalServerError", "ServiceUnavailableError", "APIConnectionError",
                    "Timeout", "APITimeoutError", "BadGatewayError"}
_QUOTA_MARKERS = ("insufficient_quota", "exceeded your current quota")


@dataclass(frozen=True)
class Failure:
    """One failed attempt, classified."""

    message: str
    status: int | None
    kind: str
    """"rate_limit", "transient", "auth", "mid_stream", "unreachable" (no server answered
    where the request went: refused, no such host, no route, a certificate refused),
    "incomplete" (the stream ended without the provider's finish), "stalled" (no data within
    a deadline), "malformed" (nothing in the wire format makes sense of it),
    "context_overflow" (the request is longer than the model's context window) or "fatal"."""
    retry_after_s: float | None = None

    @property
    def retryable(self) -> bool:
        """Worth another attempt, when nothing of this one was shown yet. A stall is not: the
        person has waited a whole deadline already and is told at once instead."""
        return self.kind in ("rate_limit", "transient", "incomplete")

    @property
    def falls_back(self) -> bool:
        """Worth another model once this one's retries are spent: overload (429, 529), a
        server error, or a context window too small. Never another 4xx (a bad request, a
        refused key, an unknown model): the next model would be sent the same."""
        if self.kind in ("rate_limit", "transient", "context_overflow"):
            return True
        # a server error it said not to retry (x-should-retry: false); a spent quota (429)
        # stays with its provider
        return self.kind == "fatal" and self.status is not None and self.status >= 500


class MalformedResponse(ValueError):
    """The provider sent something no reading of the wire format makes sense of."""


class StreamFault(Exception):
    """A stream that did not end as a stream must (`kind`: "incomplete" or "stalled"),
    raised by our own watch over the provider's stream."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def provider_message(exc: BaseException, secret: str | None = None) -> str:
    """The provider's own error message, without LiteLLM's prefixes (and never the key)."""
    text = str(getattr(exc, "message", "") or exc)
    text = text.split(" Original exception:", 1)[0]
    text = _TRACEBACK.split(text, 1)[0]
    prefix = re.match(r"^.*?(?:Exception|Error) - ", text, re.S)
    if prefix:
        text = text[prefix.end():]
    text = _LIBRARY_PREFIX.sub("", text)
    text = text.strip()
    literal = re.fullmatch(r"b'(.*)'", text, re.S)
    if literal:
        text = literal.group(1)
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            text = error["message"]
            kind = error.get("type") or error.get("code")
            if isinstance(kind, str) and kind not in text:
                text = f"{text} ({kind})"
        elif isinstance(error, str):
            text = error
    text = _LIBRARY_NOISE.sub("", text).strip()
    if secret:
        text = text.replace(secret, "***")
    return text or type(exc).__name__


_LIBRARY_NOISE = re.compile(r" ssl:<[^>]*>|\s*(?:Received Model Group=|Available Model Group "
                            r"Fallbacks=|LiteLLM Retried:|Handle with `litellm\.).*", re.S)
"""What LiteLLM and aiohttp add to a message that tells the person nothing (an SSL context's
address, LiteLLM's own advice to programmers)."""
_TRACEBACK = re.compile(r"\s*(?:Traceback \(most recent call last\)|\S*github\.com/BerriAI/)")
"""Where LiteLLM's wrapping of a stream error appends its traceback and a bug-report URL
(6 KB of both, in what the person read)."""
_LIBRARY_PREFIX = re.compile(r"^(?:litellm\.\w+: )+")
_NO_ROUTE = {errno.ENETUNREACH: "network unreachable", errno.EHOSTUNREACH: "no route to host",
             errno.ECONNREFUSED: "connection refused"}


def _chain(exc: BaseException, limit: int = 12) -> Iterator[BaseException]:
    """`exc`, then what caused it, and so on (`__cause__`, else `__context__`), at most `limit`."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen and len(seen) < limit:
        seen.add(id(link))
        yield link
        link = link.__cause__ or link.__context__


def _address(link: BaseException) -> str | None:
    """`host:port` from an HTTP library's exception (aiohttp's connector errors name them;
    httpx's and openai's carry the request); None for LiteLLM's own, whose URLs are docs."""
    module = type(link).__module__.split(".")[0]
    if module == "aiohttp" and isinstance(getattr(link, "host", None), str):
        return f"{link.host}:{getattr(link, 'port', '')}".rstrip(":")  # type: ignore[attr-defined]  # why: checked just above
    if module in ("httpx", "httpcore", "openai"):
        try:
            url = link.request.url  # type: ignore[attr-defined]  # why: httpx raises if unset
        except (AttributeError, RuntimeError):
            return None
        port = url.port or {"http": 80, "https": 443}.get(url.scheme, "")
        return f"{url.host}:{port}"
    return None


def unreachable(exc: BaseException) -> str | None:
    """Why no server answered, naming where ("cannot connect to 127.0.0.1:9: connection
    refused", "cannot resolve api.example.com"); None when something did answer or the cause
    may pass (a reset, a time-out), which a retry can fix."""
    where: str | None = None
    cause: str | None = None
    for link in _chain(exc):
        where = where or _address(link)
        if isinstance(link, socket.gaierror):
            cause = "resolve"
        elif isinstance(link, ssl.SSLCertVerificationError):
            cause = f"certificate refused: {link.verify_message or link}"
        elif isinstance(link, OSError) and link.errno in _NO_ROUTE:
            cause = _NO_ROUTE[link.errno]
    if cause is None:
        return None
    place = where or "the model's server"
    if cause == "resolve":
        return f"cannot resolve {place.rsplit(':', 1)[0]} (no such host, or no DNS)"
    return f"cannot connect to {place}: {cause}"


def _headers(exc: BaseException) -> Any:
    headers = getattr(exc, "litellm_response_headers", None)
    if headers:
        return headers
    response = getattr(exc, "response", None)
    return getattr(response, "headers", None) or {}


def retry_after(headers: Any, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait (Retry-After seconds or HTTP date, or -ms)."""
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            return max(0.0, float(millis) / 1000)
        value = headers.get("retry-after")
    except AttributeError:
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(str(value))
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _origin(exc: BaseException) -> BaseException:
    """The library exception behind `exc`: LiteLLM sometimes fails while wrapping an error
    (e.g. a Groq error code that is not a number), leaving the provider's error as context."""
    libraries = ("litellm", "openai", "httpx", "aiohttp")
    return next((link for link in _chain(exc, limit=5)
                 if type(link).__module__.split(".")[0] in libraries), exc)


def classify(exc: BaseException, secret: str | None = None, *, mid_stream: bool = False
             ) -> Failure:
    """What went wrong and whether waiting may help; errors inside a stream are never retried."""
    if isinstance(exc, StreamFault):
        return Failure(str(exc), None, exc.kind)
    if isinstance(exc, MalformedResponse):
        return Failure(str(exc), None, "malformed")
    exc = _origin(exc)
    names = _class_names(exc)
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    message = provider_message(exc, secret)
    headers = _headers(exc)
    should_retry = str(headers.get("x-should-retry", "")).lower() if headers else ""
    if mid_stream or "MidStreamFallbackError" in names:
        return Failure(message, None, "mid_stream")
    if (nobody := unreachable(exc)) is not None:
        return Failure(nobody, None, "unreachable")
    if status in (401, 403) or names & {"AuthenticationError", "PermissionDeniedError"}:
        return Failure(message, status, "auth")
    if "ContextWindowExceededError" in names:
        return Failure(message, status, "context_overflow")
    if should_retry == "false":
        return Failure(message, status, "fatal")
    if status == 429 or "RateLimitError" in names:
        if any(marker in message.lower() for marker in _QUOTA_MARKERS):
            return Failure(message, 429, "fatal")
        return Failure(message, 429, "rate_limit", retry_after(headers))
    if (status is not None and (status >= 500 or status == 408)) or names & _TRANSIENT_NAMES:
        return Failure(message, status, "transient", retry_after(headers))
    return Failure(message, status, "fatal")


def to_error(failure: Failure, model: str, env_var: str | None) -> ProviderError:
    """The exception to raise for a failure that is not (or no longer) retried."""
    status = f" {failure.status}" if failure.status else ""
    if failure.kind == "auth":
        where = f"; check the key in ${env_var}" if env_var else (
            "; set api_key_env to the environment variable holding the key")
        return AuthError(f"{model}: the provider rejected the API key ({failure.status}): "
                         f"{failure.message}{where}", env_var=env_var, status=failure.status)
    if failure.kind == "mid_stream":
        return ProviderError(f"{model}: the stream failed: {failure.message}")
    if failure.kind == "incomplete":
        return ProviderError(f"{model}: the answer was cut off: {failure.message}; the turn "
                             "did not finish", retryable=True)
    if failure.kind == "stalled":
        return ProviderError(f"{model}: {failure.message}", retryable=True)
    if failure.kind == "malformed":
        return ProviderError(f"{model}: the provider sent a response that cannot be read: "
                             f"{failure.message}")
    if failure.kind == "unreachable":
        return ProviderError(f"{model}: {failure.message}; check api_base (or --api-base) "
                             "and that the server runs")
    if failure.kind == "context_overflow":
        return ProviderError(f"{model}: the conversation is longer than its context window: "
                             f"{failure.message}", status=failure.status, falls_back=True)
    return ProviderError(f"{model}: error{status}: {failure.message}", status=failure.status,
                         retryable=failure.retryable, falls_back=failure.falls_back)
