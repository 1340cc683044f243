"""provider_from_settings, Retry-After parsing, lazy import, and the fake server as a process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from tests.fakes.model_server import FakeModelServer
from valarmind_tui.core.errors import AuthError, ProviderError
from valarmind_tui.providers.base import ModelRequest, TurnComplete
from valarmind_tui.providers.failures import retry_after
from valarmind_tui.providers.litellm_provider import LiteLLMProvider, provider_from_settings
from valarmind_tui.settings.config import load_settings

ROOT = Path(__file__).resolve().parents[2]


def test_missing_key_names_the_variable_before_any_request(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, model="anthropic/claude-sonnet-4-5")
    with pytest.raises(AuthError, match="ANTHROPIC_API_KEY") as info:
        provider_from_settings(settings)
    assert info.value.env_var == "ANTHROPIC_API_KEY"


def test_configured_key_env_is_named_even_for_a_local_endpoint(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, model="openai/fake-model",
                             api_base="http://127.0.0.1:9/v1", api_key_env="FAKE_API_KEY")
    with pytest.raises(AuthError, match="FAKE_API_KEY"):
        provider_from_settings(settings)


def test_key_alias_and_base_are_resolved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "sk-from-env")
    settings = load_settings(tmp_path, model="smart", api_base="http://127.0.0.1:9/v1",
                             api_key_env="FAKE_API_KEY", aliases={"smart": "openai/big-model"})
    provider = provider_from_settings(settings)
    assert provider.model == "openai/big-model"
    assert provider.config.api_base == "http://127.0.0.1:9/v1"
    assert provider.config.resolved_key() == "sk-from-env"
    assert "sk-from-env" not in repr(provider.config)


@pytest.mark.parametrize(("model", "base"), [("ollama/qwen3", None),
                                              ("openai/local", "http://localhost:8080/v1")])
def test_local_endpoints_need_no_key(tmp_path: Path, model: str, base: str | None) -> None:
    settings = load_settings(tmp_path, model=model, api_base=base)
    assert provider_from_settings(settings).model == model


def test_no_model_at_all_is_a_provider_error(tmp_path: Path) -> None:
    with pytest.raises(ProviderError, match="no model configured"):
        provider_from_settings(load_settings(tmp_path))


def test_retry_after_accepts_seconds_dates_and_milliseconds() -> None:
    now = time.time()
    later = format_datetime(datetime.fromtimestamp(now, UTC) + timedelta(seconds=40),
                            usegmt=True)
    assert retry_after({"retry-after": "12"}) == 12
    assert retry_after({"retry-after": later}, now=now) == pytest.approx(40, abs=1)
    assert retry_after({"retry-after-ms": "1500"}) == 1.5
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None


def test_importing_the_provider_does_not_import_litellm() -> None:
    code = ("import sys, valarmind_tui.providers.litellm_provider, "
            "valarmind_tui.providers.normalize; print('litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=60, check=True)
    assert out.stdout.strip() == "False"


async def test_fake_server_runs_as_a_separate_process(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "from another process"}]))
    port_file, log = tmp_path / "port", tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.model_server", "--script", str(script),
         "--port-file", str(port_file), "--requests-log", str(log)],
        cwd=ROOT, stdout=subprocess.DEVNULL, env={**os.environ})
    try:
        deadline = time.monotonic() + 20
        while not port_file.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
            time.sleep(0.02)
        from valarmind_tui.providers.litellm_provider import ProviderConfig

        provider = LiteLLMProvider(ProviderConfig(
            model="openai/fake-model", api_key="k",
            api_base=f"http://127.0.0.1:{port_file.read_text()}/v1"))
        pieces = [p async for p in provider.stream(
            ModelRequest(messages=[{"role": "user", "content": "ping"}]))]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert isinstance(pieces[-1], TurnComplete)
    assert pieces[-1].turn.text == "from another process"
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert logged[0]["body"]["messages"] == [{"role": "user", "content": "ping"}]


def test_server_context_manager_releases_the_port() -> None:
    with FakeModelServer() as server:
        port = server.port
    import socket

    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0
