"""A repository that ships a `litellm` (or any module the model process imports) must not get it
run: the model process starts in the project folder, and `python -m` would put that folder
first on its import path."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.model_server import FakeModelServer, ScriptedTurn
from valarmind_tui.providers.base import ModelRequest, TurnComplete
from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig
from valarmind_tui.providers.process import client as model_process

PLANTED = ("litellm", "openai", "httpx", "valarmind_tui")


def _plant(project: Path, marker: Path, names: tuple[str, ...] = PLANTED) -> None:
    for name in names:
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


@pytest.mark.parametrize("draft", [False, True], ids=["exact", "draft"])
def test_a_map_built_beside_other_threads_never_imports_the_projects_modules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, draft: bool) -> None:
    """The TUI builds the repo map in a thread with the project as its working directory. A
    process pool started from there through a forkserver ran `python -c ...`, which puts the
    working directory first on the import path: the project's `multiprocessing/` ran in the
    forkserver and its resource tracker."""
    import threading

    from valarmind_tui.repomap import RepoMap

    project, marker = tmp_path / "repo", tmp_path / "ran.txt"
    project.mkdir()
    for name in ("multiprocessing", "valarmind_tui"):
        (project / name).mkdir()
        (project / name / "__init__.py").write_text(
            f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\n")
    body = "".join(f"def helper_{i}(x):\n    return make_engine()\n\n\n" for i in range(1_000))
    for n in range(60):  # ~2.4 MB of Python: enough for a pool of either kind
        (project / f"bulk{n}.py").write_text(f"from core import make_engine\n\n\n{body}")
    (project / "core.py").write_text("def make_engine():\n    return 1\n")
    monkeypatch.chdir(project)
    found: list[object] = []

    def build() -> None:
        repo_map = RepoMap(project, tmp_path / "cache", workers=2, draft_above=0)
        found.append(repo_map.build(draft=draft))

    builder = threading.Thread(target=build)  # another thread runs, as in the app
    builder.start()
    builder.join(120)
    assert not marker.exists(), marker.read_text()
    assert found and "core.py" in found[0].files  # type: ignore[attr-defined]


def test_the_forked_model_process_never_imports_the_projects_modules(
        tmp_path: Path, fake_model: FakeModelServer) -> None:
    """The TUI's first model process is the face forked, with the face's import path: started
    as `python -m` (or `-c`) in the project, that path begins with the project folder. The
    child drops it, as `python -P` would have."""
    import json
    import os
    import subprocess
    import sys
    import textwrap

    project, marker = tmp_path / "repo", tmp_path / "ran.txt"
    project.mkdir()
    _plant(project, marker, ("litellm", "openai", "httpx"))  # what only the child imports
    root = Path(__file__).resolve().parents[2]
    face = textwrap.dedent("""
        import asyncio, json, sys
        sys.path.insert(1, sys.argv[2])  # ValarMind itself, after the project ('' first)
        from valarmind_tui.providers.process import client
        process = client.start()
        from valarmind_tui.providers.base import ModelRequest, TurnComplete
        from valarmind_tui.providers.litellm_provider import LiteLLMProvider, ProviderConfig

        async def ask():
            provider = LiteLLMProvider(ProviderConfig(
                model="openai/fake-model", api_base=sys.argv[1], api_key="sk-test",
                max_retries=0, timeout_s=30))
            return [p async for p in provider.stream(
                ModelRequest(messages=[{"role": "user", "content": "hi"}]))][-1]

        last = asyncio.run(ask())
        print(json.dumps([type(process._proc).__name__, sys.path[0],
                          last.turn.text if isinstance(last, TurnComplete) else repr(last)]))
        client.stop()
    """)
    fake_model.script(ScriptedTurn(text="answered by the real litellm"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", face, fake_model.openai_base, str(root)],
                          cwd=project, env={**env, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
                          capture_output=True, text=True, timeout=300, check=False)
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 0, done.stderr[-3000:]
    kind, first_on_path, answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert kind == "ForkedWorker" and first_on_path == ""  # the face's path began with it
    assert answer == "answered by the real litellm"
