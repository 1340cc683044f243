"""Drive `python -m valarmind_tui acp` with the ACP Python SDK's own client side."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

from tests.conftest import write_user_config

KEY_ENV = {"FAKE_API_KEY": "sk-test"}


def configure_model(fake_model: Any) -> None:
    """The person's own config names the fake server (the cwd is untrusted, as in an editor)."""
    write_user_config(f'model = "openai/fake-model"\napi_base = "{fake_model.openai_base}"\n'
                      'api_key_env = "FAKE_API_KEY"\n')


@dataclass
class RecordingClient:
    """An ACP client that records every update and answers permission requests from a list
    of option ids ("allow_once", "deny"...; None cancels)."""

    answers: list[str | None] = field(default_factory=list)
    updates: list[tuple[str, Any]] = field(default_factory=list)
    permissions: list[Any] = field(default_factory=list)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **kwargs: Any) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        answer = self.answers.pop(0) if self.answers else None
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer))

    def on_connect(self, conn: Any) -> None:
        pass

    def kinds(self) -> list[str]:
        return [u.session_update for _, u in self.updates]

    def of(self, kind: str) -> list[Any]:
        return [u for _, u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))


@asynccontextmanager
async def acp_agent(client: RecordingClient, cwd: Path, log: Path,
                    *args: str) -> AsyncIterator[Any]:
    """The agent subprocess, initialized; yields the client-side connection."""
    env = {**os.environ, **KEY_ENV}
    with log.open("wb") as stderr:
        async with spawn_agent_process(
            client, sys.executable, "-m", "valarmind_tui", "acp", *args, env=env, cwd=cwd,
            transport_kwargs={"stderr": stderr},
        ) as (conn, _process):
            init = await asyncio.wait_for(
                conn.initialize(protocol_version=PROTOCOL_VERSION), 30)
            conn.init_response = init
            yield conn


async def new_session(conn: Any, cwd: Path) -> str:
    response = await asyncio.wait_for(conn.new_session(cwd=str(cwd), mcp_servers=[]), 30)
    return response.session_id


async def until(condition: Callable[[], object], timeout: float = 30) -> None:
    """Wait for `condition` to hold (the timeout is only reached when it never does)."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


async def ask(conn: Any, session_id: str, text: str, timeout: float = 60) -> Any:
    return await asyncio.wait_for(
        conn.prompt(session_id=session_id, prompt=[text_block(text)]), timeout)


@pytest.fixture
def agent_log(tmp_path: Path) -> Path:
    return tmp_path / "agent-stderr.log"
