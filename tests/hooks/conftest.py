"""Sessions with real hook scripts in the user's config, LiteLLM against the fake model server."""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_user_config
from valarmind_tui.core.events import Event, HookRan, Notice
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.session.session import Session
from valarmind_tui.session.wiring import build_session
from valarmind_tui.settings.config import load_settings


@dataclass
class Live:
    session: Session
    events: list[Event] = field(default_factory=list)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def hook_runs(self, event: str | None = None) -> list[HookRan]:
        return [e for e in self.of(HookRan) if event is None or e.event == event]

    def warnings(self) -> list[str]:
        return [e.message for e in self.of(Notice) if e.level in ("warning", "error")]


def script(folder: Path, name: str, text: str) -> Path:
    """An executable hook script, as people keep them in ~/.claude/hooks/."""
    path = folder / name
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def toml_str(text: str | Path) -> str:
    """A TOML literal string (single quotes: no escapes), or a multi-line one."""
    text = str(text)
    return f"'''{text}'''" if "'" in text or "\n" in text else f"'{text}'"


def hook_table(event: str, command: str | Path, matcher: str = "", timeout: float | None = None
               ) -> str:
    extra = f"timeout = {timeout}\n" if timeout is not None else ""
    return (f"[[hooks.{event}]]\nmatcher = {toml_str(matcher)}\n"
            f"[[hooks.{event}.hooks]]\ntype = \"command\"\ncommand = {toml_str(command)}\n{extra}")


@pytest.fixture
def live(fake_model: Any, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """live(root, *hook_tables, extra_config="", allow_execute=True) -> Live, started."""
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")
    made: list[Session] = []

    async def make(root: Path, *tables: str, extra_config: str = "",
                   allow_execute: bool = True, trusted: bool = False) -> Live:
        write_user_config('api_key_env = "FAKE_API_KEY"\n' + extra_config + "\n"
                          + "\n".join(tables))
        settings = load_settings(root, trusted=trusted, model="openai/fake-model",
                                 api_base=fake_model.openai_base)
        approver = PolicyApprover(allow_writes=True, allow_execute=allow_execute)
        session = build_session(settings, root, approver=approver)
        result = Live(session)
        session.bus.add_listener(result.events.append)
        made.append(session)
        await session.start()
        return result

    yield make
    for session in made:
        session.cancel()
