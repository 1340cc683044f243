"""Where the plain REPL's lines come from: prompt-toolkit on a terminal (history, /command
completion, Shift+Tab cycles the mode), plain lines from a pipe (so it can be scripted)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from valarmind_tui.core.user_dirs import user_data_dir
from valarmind_tui.core.visible_text import visible

if TYPE_CHECKING:
    from valarmind_tui.session.session import Session


class LineReader(Protocol):
    """Where the REPL's lines come from; None means end of input."""

    async def read(self, prompt: str) -> str | None: ...

    async def edit(self, prompt: str, text: str) -> str | None:
        """`text` to edit (/commit's message); None cancels."""
        ...


class PipeReader:
    """Lines from a non-interactive stream (stdin piped), read off the event loop."""

    def __init__(self, stream: TextIO, out: TextIO) -> None:
        self._stream, self._out = stream, out

    async def read(self, prompt: str) -> str | None:
        self._out.write(visible(prompt))
        self._out.flush()
        line = await asyncio.get_running_loop().run_in_executor(None, self._stream.readline)
        if line == "":
            self._out.write("\n")
            return None
        line = line.rstrip("\n")
        self._out.write(visible(line) + "\n")  # echo: piped input is not shown by a terminal
        self._out.flush()
        return line

    async def edit(self, prompt: str, text: str) -> str | None:
        """One line replaces `text`; an empty line keeps it."""
        self._out.write(visible(f"{prompt}\n{text}\n"))
        line = await self.read("(enter keeps it, or type a new message): ")
        return None if line is None else (line or text)


class PromptToolkitReader:
    """prompt-toolkit line editing: persistent history, /command completion, Shift+Tab mode."""

    def __init__(self, session: Session, **prompt_kwargs: Any) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.completion import Completer, Completion
        from prompt_toolkit.history import FileHistory
        from prompt_toolkit.key_binding import KeyBindings

        commands = session.commands

        class SlashCompleter(Completer):
            def get_completions(self, document: Any, complete_event: Any) -> Iterable[Any]:
                text = document.text_before_cursor
                if not text.startswith("/") or " " in text:
                    return
                for cmd in commands.complete(text):
                    yield Completion("/" + cmd.name, start_position=-len(text),
                                     display_meta=cmd.help)

        bindings = KeyBindings()

        @bindings.add("s-tab")
        def _cycle_mode(event: Any) -> None:
            session.set_mode(session.mode.next())
            event.app.invalidate()

        history_file = user_data_dir() / "repl_history"
        with contextlib.suppress(OSError):
            history_file.parent.mkdir(parents=True, exist_ok=True)
        self._prompt: PromptSession[str] = PromptSession(
            history=FileHistory(str(history_file)), completer=SlashCompleter(),
            key_bindings=bindings, vi_mode=session.settings.editor_mode == "vim",
            **prompt_kwargs,
        )
        self._interrupts = 0
        self._prompt_kwargs = prompt_kwargs

    async def read(self, prompt: str) -> str | None:
        while True:
            try:
                line = await self._prompt.prompt_async(prompt)
            except EOFError:
                return None
            except KeyboardInterrupt:
                self._interrupts += 1
                if self._interrupts >= 2:
                    return None
                print("(Press Ctrl+C again or Ctrl+D to quit.)")
                continue
            self._interrupts = 0
            return line

    async def edit(self, prompt: str, text: str) -> str | None:
        """`text` in a multi-line editor (Esc then Enter accepts); Ctrl+C or Ctrl+D cancels."""
        from prompt_toolkit import PromptSession

        editor: PromptSession[str] = PromptSession(multiline=True, **self._prompt_kwargs)
        label = f"{prompt} (Esc then Enter accepts, Ctrl+C cancels)\n"
        try:
            return await editor.prompt_async(label, default=text)
        except (EOFError, KeyboardInterrupt):
            return None
