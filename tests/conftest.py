"""Shared fixtures: every test runs with its own config/data dirs and no provider keys."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.daemon_help import daemon_on, daemons_ended, end_daemons_started_in, runtime_folder
from valarmind_tui.safety.sandbox.wrap import Sandbox
from valarmind_tui.settings.config import KNOWN_KEYS, Settings, load_settings

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parents[1]
_BESIDE_REPO: list[str] = []


def _watch_reads_beside_the_repo(event: str, args: tuple) -> None:
    """A fresh clone has nothing beside it: record any test that opens or lists a sibling path."""
    if event not in ("open", "os.scandir", "os.listdir") or not args:
        return
    target = args[0]
    if not isinstance(target, str | os.PathLike) or isinstance(target, int):
        return
    path = os.path.abspath(os.fspath(target))
    if isinstance(path, bytes):
        return
    beside = path == _PARENT[:-1] or path.startswith(_PARENT)
    if beside and not (path + os.sep).startswith(_REPO_PREFIX):
        _BESIDE_REPO.append(path)


_PARENT = str(REPO.parent) + os.sep
_REPO_PREFIX = str(REPO) + os.sep
if REPO.parent != REPO.parent.parent:  # a clone at / has no "beside" to guard
    sys.addaudithook(_watch_reads_beside_the_repo)


@pytest.fixture(autouse=True)
def no_reads_beside_the_repo() -> None:
    """Fails a test that read a path outside the repository (a folder beside the clone)."""
    _BESIDE_REPO.clear()
    yield
    found, _BESIDE_REPO[:] = list(_BESIDE_REPO), []
    assert not found, f"the test read outside the repository: {sorted(set(found))[:5]}"


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """A throwaway HOME/XDG config and data dir; provider keys removed from the environment.
    At the end, the run server and model daemon a child started in that HOME are ended."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    # no child finds the user's runtime folder: a daemon a test did not place in a runtime
    # folder of its own (tests/daemon_help.py) is in this HOME's data dir, ended below
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    for name in list(os.environ):
        if name in KNOWN_KEYS or name.startswith("VALARMIND_"):
            monkeypatch.delenv(name, raising=False)
    # `-p` runs call litellm themselves: a model daemon would outlive the test (tests that want
    # one turn it on, with a runtime folder of their own: tests/providers/daemon_help.py)
    monkeypatch.setenv("VALARMIND_MODEL_DAEMON", "0")
    # basedpyright is on the venv's PATH: every session of every test would start one, and a
    # test that never closes its session left it running (tests/lsp turns them on)
    monkeypatch.setenv("VALARMIND_LSP__ENABLED", "0")
    yield home
    # a child run with an environment of its own (an MCP client's, `env={"HOME": ...}`) and a
    # command that may be a one-shot (`mcp serve`, `review` with stdout a pipe) starts a run
    # server here, which would wait out its idle time (600 s) after the suite
    data_run = home / ".local" / "share" / "valarmind" / "run"
    if data_run.is_dir():
        end_daemons_started_in(data_run)


@pytest.fixture(scope="module")
def module_warm_runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The runtime folder of the model daemon and run server a module's one-shots share
    (`warm_runs`); both ended with the module."""
    folder = runtime_folder(tmp_path_factory.mktemp("warm-runs"))
    with daemons_ended(folder):
        yield folder
    end_daemons_started_in(folder / "valarmind")  # one still starting had no socket to greet


@pytest.fixture
def warm_runs(module_warm_runtime: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`valarmind -p` children run as a user's do by default: the first starts the model
    daemon and the run server, the next are forked warm (docs/speed.md). For tests whose point
    is what a run does, not how a cold interpreter starts (a cold `-p` costs ~2 s of CPU)."""
    for name, value in daemon_on(module_warm_runtime).items():
        monkeypatch.setenv(name, value)
    return module_warm_runtime


def write_user_config(text: str) -> Path:
    """Write the isolated user's own config.toml (what a person sets; a repository cannot)."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "valarmind" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A real git repository with one commit."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True, env=env)
    (repo / "README.md").write_text("# demo\n")
    (repo / "app.py").write_text("def greet(name):\n    return 'Hello ' + name\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=repo, check=True, env=env)
    return repo


@pytest.fixture
def fake_model():
    """A started fake model server (tests/fakes/model_server.py), stopped after the test."""
    from tests.fakes.model_server import FakeModelServer

    server = FakeModelServer().start()
    try:
        yield server
    finally:
        server.stop()


# -- the attack suite's report (tests/security/: a passing test is a contained attack) --------
_ATTACKS: Counter[tuple[str, str]] = Counter()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path = Path(str(report.fspath))
    if path.parent.name != "security" or not path.name.startswith("test_"):
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        outcome = "contained" if report.passed else "leaked"
        _ATTACKS[(path.stem.removeprefix("test_"), outcome)] += 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _ATTACKS:
        return
    terminalreporter.section("security: attack attempts")
    for attack_class in sorted({c for c, _ in _ATTACKS}):
        contained = _ATTACKS[(attack_class, "contained")]
        leaked = _ATTACKS[(attack_class, "leaked")]
        terminalreporter.write_line(
            f"{attack_class:<28} {contained:>3} contained  {leaked:>3} got through")
    total_c = sum(n for (_, o), n in _ATTACKS.items() if o == "contained")
    total_l = sum(n for (_, o), n in _ATTACKS.items() if o == "leaked")
    terminalreporter.write_line(f"{'all':<28} {total_c:>3} contained  {total_l:>3} got through")


@pytest.fixture
def model_settings(fake_model: Any, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """Settings for a project root whose model is the fake server (OpenAI wire format)."""
    monkeypatch.setenv("FAKE_API_KEY", "sk-test")

    def make(root: Path, **flags: Any) -> Settings:
        return load_settings(
            root, model="openai/fake-model", api_base=fake_model.openai_base,
            api_key_env="FAKE_API_KEY", **flags,
        )

    return make


@pytest.fixture
def sandbox() -> Sandbox:
    """The real bubblewrap sandbox (the set-up installs it; a machine that cannot run it says
    why)."""
    box = Sandbox.detect("auto", False)
    if not box.active:
        pytest.skip(f"bubblewrap cannot run on this machine: {box.reason}")
    return box


@pytest.fixture
def encodings_asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The encodings anything asked `core.tokenizer` for (loading it, the first time)."""
    asked: list[str] = []
    from valarmind_tui.core import tokenizer

    real = tokenizer.encoding

    def recorded(name: str = "cl100k_base") -> Any:
        asked.append(name)
        return real(name)

    monkeypatch.setattr(tokenizer, "encoding", recorded)
    return asked
