"""A repository that ships a `litellm` (or any module the model process imports) must not get it
run: the model process starts in the project folder, and `python -m` would put that folder
first on its import path."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from valarmind_tui.providers import model_process
from valarmind_tui.providers.base import ModelRequest, TurnComplete
from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig

PLANTED = ("litellm", "openai", "httpx", "valarmind_tui")


def _plant(project: Path, marker: Path) -> None:
    for name in PLANTED:
        package = project / name
        package.mkdir()
        (package / "__init__.py").write_text(
            f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\n"
            "raise SystemExit('planted module ran')\n")


async def test_the_model_process_never_imports_the_projects_modules(
        tmp_path: Path, fake_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    project, marker = tmp_path / "repo", tmp_path / "ran.txt"
    project.mkdir()
    _plant(project, marker)
    monkeypatch.chdir(project)
    fake_model.script(ScriptedTurn(text="answered by the real litellm"))
    process = model_process.start()  # started here, in the project folder, as the TUI does
    assert process is not None
    try:
        provider = LiteLLMProvider(ProviderConfig(
            model="openai/fake-model", api_base=fake_model.openai_base, api_key="sk-test",
            max_retries=0, timeout_s=30))
        pieces = [p async for p in provider.stream(
            ModelRequest(messages=[{"role": "user", "content": "hi"}]))]
        assert model_process.running() is process
    finally:
        model_process.stop()
    assert not marker.exists(), marker.read_text()
    assert isinstance(pieces[-1], TurnComplete)
    assert pieces[-1].turn.text == "answered by the real litellm"
