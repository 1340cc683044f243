"""One connected MCP server, owned by one long-lived task.

anyio's cancel scopes must be entered and exited by the same task, so the transport and the
ClientSession live in `_own()`, a task of their own that waits for `stop()`. Callers use the
session from their own tasks (its streams are task-agnostic); only set-up and tear-down happen
in the owner task. What a server writes that is not JSON-RPC (or not UTF-8) is one warning
for it, never a dead reader or the SDK's tracebacks (server_output.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from valarmind_tui import __version__
from valarmind_tui.mcp_client.env import child_env
from valarmind_tui.mcp_client.limits import MESSAGE_CAP_CHARS, install_bounded_reader
from valarmind_tui.mcp_client.server_output import (
    REPORTER,
    OnceReporter,
    install_output_filter,
)
from valarmind_tui.settings.config import McpServerConfig

State = Literal["stopped", "starting", "ready", "failed", "crashed", "closed"]
STOP_TIMEOUT_S = 8.0


class StartError(Exception):
    """A server could not be started; the message says why in one line."""


def describe_error(exc: BaseException) -> str:
    """One readable line for an exception, unwrapping anyio's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0] if text.strip() else type(exc).__name__


class Connection:
    """A server's session plus what it offers (tools, prompts, resources)."""

    def __init__(
        self, name: str, config: McpServerConfig, project_root: Path, *,
        sampling_callback: Any = None,
        on_tools_changed: Callable[[], Awaitable[None]] | None = None,
        max_message_chars: int | None = None,
        on_bad_output: Callable[[str], None] | None = None,
    ) -> None:
        """`max_message_chars`: a longer line of a stdio server's output is dropped unread
        (limits.py). `on_bad_output`: told once per start, in one line, when the server writes
        what is not JSON-RPC."""
        self.name = name
        self.max_message_chars = max_message_chars
        self.config = config
        self.project_root = project_root
        self.session: Any = None
        self.state: State = "stopped"
        self.error: str | None = None
        self.tools: list[Any] = []
        self.prompts: list[Any] = []
        self.resources: list[Any] = []
        self.instructions: str = ""
        """What the server says about itself at initialize (instructions, else its title)."""
        self.restarts = 0
        self.started_s: float | None = None
        self._sampling_callback = sampling_callback
        self._on_tools_changed = on_tools_changed
        self._on_bad_output = on_bad_output
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._ready: asyncio.Future[None] | None = None
        self._errlog: Any = None

    @property
    def transport(self) -> str:
        return "http" if self.config.url else "stdio"

    def stderr_tail(self, limit: int = 400) -> str:
        """The last lines the server wrote to stderr (start failures often explain themselves)."""
        if self._errlog is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._errlog.flush()
            self._errlog.seek(0)
            text = self._errlog.read()[-limit:].strip()
            return " | ".join(line for line in text.splitlines() if line.strip())[-limit:]
        return ""

    async def start(self, timeout_s: float) -> None:
        """Connect, initialize, list; raises StartError (with a clear reason) on any failure."""
        loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._ready = loop.create_future()
        self.state = "starting"
        self.error = None
        started = loop.time()
        self._task = asyncio.create_task(self._own(), name=f"mcp-server:{self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), timeout_s)
        except TimeoutError:
            await self.stop()
            self._fail(f"did not start within {timeout_s:g} s")
        except StartError as exc:
            await self.stop()
            self._fail(str(exc))
        self.state = "ready"
        self.started_s = loop.time() - started

    def _fail(self, reason: str) -> None:
        tail = self.stderr_tail()
        self.state = "failed"
        self.error = reason + (f" (stderr: {tail})" if tail and tail not in reason else "")
        raise StartError(self.error)

    async def stop(self) -> None:
        """Disconnect (close stdin, then terminate the process tree); never raises."""
        task, self._task = self._task, None
        self._stop.set()
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), STOP_TIMEOUT_S)
            except (TimeoutError, Exception):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        self.session = None
        if self.state in ("ready", "starting"):
            self.state = "stopped"

    def mark_crashed(self, reason: str) -> None:
        self.state = "crashed"
        self.error = reason
        self._stop.set()

    async def _own(self) -> None:
        assert self._ready is not None
        ready = self._ready
        install_output_filter()
        REPORTER.set(OnceReporter(self.name, self._on_bad_output))  # this task's context only
        try:
            async with contextlib.AsyncExitStack() as stack:
                session = await self._open(stack)
                self.session = session
                if not ready.done():
                    ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:  # the owner must report, never propagate
            if not ready.done():
                reason = describe_error(exc)
                if reason == "Connection closed":
                    reason = "the server exited (or closed its output) during start-up"
                ready.set_exception(StartError(reason))
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self.session = None
            if not ready.done():
                ready.set_exception(StartError("the connection ended during start-up"))

    async def _open(self, stack: contextlib.AsyncExitStack) -> Any:
        import mcp_types as types
        from mcp import ClientSession

        read, write = await stack.enter_async_context(self._transport_cm())
        kwargs: dict[str, Any] = {}
        if self._sampling_callback is not None:
            kwargs["sampling_callback"] = self._sampling_callback
            kwargs["sampling_capabilities"] = types.SamplingCapability(
                tools=types.SamplingToolsCapability()
            )
        session = await stack.enter_async_context(ClientSession(
            read, write, message_handler=self._on_message,
            client_info=types.Implementation(name="valarmind", version=__version__), **kwargs,
        ))
        result = await session.initialize()
        info = result.server_info
        self.instructions = (result.instructions or getattr(info, "description", None)
                             or getattr(info, "title", None) or "")
        await self._load_lists(session, result.capabilities)
        return session

    def _transport_cm(self) -> Any:
        if self.config.url:
            from mcp.client.streamable_http import streamable_http_client

            return streamable_http_client(self.config.url)
        from mcp.client.stdio import StdioServerParameters, stdio_client

        if not self.config.command:
            raise StartError("neither command nor url is set")
        if self._errlog is None:
            # Closed in close_log() when the manager closes.
            self._errlog = tempfile.TemporaryFile(  # noqa: SIM115
                "w+", encoding="utf-8", errors="replace")
        else:
            self._errlog.seek(0)
            self._errlog.truncate()
        params = StdioServerParameters(
            command=self.config.command, args=list(self.config.args),
            env=child_env(self.config), cwd=str(self.project_root),
            encoding_error_handler="replace",  # one bad byte must not end the reader
        )
        return _stdio_with_exact_env(stdio_client, params, self._errlog,
                                     self.max_message_chars)

    async def _load_lists(self, session: Any, caps: Any) -> None:
        self.tools = (await session.list_tools()).tools if caps.tools is not None else []
        self.prompts = (await session.list_prompts()).prompts if caps.prompts is not None else []
        self.resources = []
        if caps.resources is not None:
            with contextlib.suppress(Exception):
                self.resources = (await session.list_resources()).resources

    async def refresh_tools(self) -> None:
        if self.session is not None:
            with contextlib.suppress(Exception):
                self.tools = (await self.session.list_tools()).tools

    async def _on_message(self, message: Any) -> None:
        import mcp_types as types

        root = getattr(message, "root", message)
        if isinstance(root, types.ToolListChangedNotification):
            asyncio.get_running_loop().create_task(self._tools_changed())

    async def _tools_changed(self) -> None:
        await self.refresh_tools()
        if self._on_tools_changed is not None:
            await self._on_tools_changed()

    def close_log(self) -> None:
        if self._errlog is not None:
            with contextlib.suppress(OSError):
                self._errlog.close()
            self._errlog = None


_EXACT_ENV: ContextVar[bool] = ContextVar("valarmind_mcp_exact_env", default=False)


def _install_exact_env_hook() -> None:
    """stdio_client merges the SDK's default variables (SHELL, TERM, LOGNAME) into `env`; in the
    owner tasks of our servers (marked by a ContextVar) that default set is empty, so a child
    gets exactly our allowlist. Other users of the SDK in this process are unaffected."""
    import mcp.client.stdio as stdio_module

    original = stdio_module.get_default_environment
    if getattr(original, "_valarmind_hook", False):
        return

    def default_environment() -> dict[str, str]:
        return {} if _EXACT_ENV.get() else original()

    # A mark on the function (functions take attributes; mypy does not model it), so a second
    # install sees the hook in place and does not wrap it again.
    # why the ignore below: a marker on the SDK's function
    default_environment._valarmind_hook = True  # type: ignore[attr-defined]  # why: above
    stdio_module.get_default_environment = default_environment


def _stdio_with_exact_env(stdio_client: Any, params: Any, errlog: Any,
                          max_message_chars: int | None) -> Any:
    _install_exact_env_hook()
    install_bounded_reader()
    _EXACT_ENV.set(True)  # the owner task's own context: only this server's spawn sees it
    MESSAGE_CAP_CHARS.set(max_message_chars)
    return stdio_client(params, errlog=errlog)
