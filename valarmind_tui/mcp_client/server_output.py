"""A server whose output is not JSON-RPC: one warning line for it, never the SDK's tracebacks.

The SDK logs every line it cannot parse with `logger.exception` (a traceback per line, three
for one line of ASCII garbage once the session and the handler have had their say) and reads
stdout as strict UTF-8, so one non-UTF-8 byte killed its reader and left the call waiting.
Our stdio servers are read with `encoding_error_handler="replace"` (connection.py), and in a
server's owner task (REPORTER set there, inherited by the SDK's reader and session tasks) the
SDK's warnings and errors are handed to that server's reporter instead of being printed: the
first one becomes a Notice naming the server, the rest are dropped. Elsewhere the SDK logs as
it always did.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextvars import ContextVar

REPORTER: ContextVar[Callable[[str], None] | None] = ContextVar(
    "valarmind_mcp_output_reporter", default=None)
"""Set in a server's owner task: what to do with the SDK's complaint about that server."""
SDK_LOGGERS = ("mcp.client.stdio", "mcp.client.session", "mcp.shared.session")


class _ToReporter(logging.Filter):
    """Inside a server's owner task: warnings and errors go to its reporter, not the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        report = REPORTER.get()
        if report is None or record.levelno < logging.WARNING:
            return True
        report(_reason(record))
        return False


def _reason(record: logging.LogRecord) -> str:
    """The SDK's message in one line, with the exception's first line when there is one."""
    try:
        text = record.getMessage()
    except (TypeError, ValueError):
        text = str(record.msg)
    if record.exc_info and record.exc_info[1] is not None:
        detail = str(record.exc_info[1]).strip().splitlines()
        if detail:
            text = f"{text}: {detail[0]}"
    return text.splitlines()[0][:200] if text.strip() else "unreadable output"


_FILTER = _ToReporter()


def install_output_filter() -> None:
    """Route the SDK's complaints in our servers' tasks to their reporters (once per process)."""
    for name in SDK_LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


class OnceReporter:
    """A server's reporter: the first complaint is told (with the server's name), later ones
    are counted only, until the connection starts again."""

    def __init__(self, server: str, tell: Callable[[str], None] | None) -> None:
        self.server = server
        self._tell = tell
        self.count = 0

    def __call__(self, reason: str) -> None:
        self.count += 1
        if self.count == 1 and self._tell is not None:
            self._tell(f"MCP server {self.server!r} wrote output that is not valid JSON-RPC "
                       f"({reason}); ignored. Further bad output from it is not reported.")
