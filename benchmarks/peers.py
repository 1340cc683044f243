"""The peers ValarMind is measured against (benchmarks/peers_bench.py): how each installs, the
files a first run would otherwise ask for (onboarding, key approval, folder trust), how it is
pointed at the local model server on its own wire format, how it is asked one thing (`-p`-style)
and how it starts in a terminal, and what its screen shows once it takes a prompt.

Installs go into one set-up folder (`--dir`): npm packages under `npm/`, Aider in `aider-venv/`,
OpenCode's provider packages cached in `opencode-cache/` (it installs them on first use, so a
fresh HOME does not fetch them again on every launch).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

KEY = "sk-ant-bench-peers-00000000000000000000"
MODEL = "fake-model"
"""The main model's name on the wire (benchmarks/e2e_server.py answers it in full)."""
SMALL = "fake-small"
"""The name given to a peer's title, summary or commit-message model: answered "ok" at once."""


@dataclass(frozen=True)
class Peer:
    """One tool: how it installs, which wire format it speaks, how it runs against `url`."""

    name: str
    npm: str | None
    pypi: str | None
    wire: str
    """openai (chat completions), anthropic (messages), responses (OpenAI's Responses API) or
    gemini (generateContent)."""
    oneshot: Callable[[Path, str, str], list[str]]
    """(set-up folder, server URL, prompt) -> the command that answers one prompt and exits."""
    tui: Callable[[Path, str], list[str]]
    """(set-up folder, server URL) -> the interactive command."""
    env: Callable[[str, Path], dict[str, str]]
    """(server URL, set-up folder) -> what the environment adds."""
    home: Callable[[Path, Path, str], None]
    """(HOME, project, server URL) -> writes what a first run would otherwise ask for."""
    ready: Callable[[list[str]], bool]
    """Whether the screen shows the tool waiting for its first prompt."""
    idle: Callable[[list[str]], bool] | None = None
    """Whether it shows the tool waiting for the next prompt, where that looks otherwise."""


def _bin(setup: Path, name: str) -> str:
    return str(setup / "npm" / "node_modules" / ".bin" / name)


def _write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _shows(text: str) -> Callable[[list[str]], bool]:
    return lambda lines: any(text in line for line in lines)


# --- Claude Code: Anthropic messages ----------------------------------------------------------

def _claude_home(home: Path, project: Path, url: str) -> None:
    _write_json(home / ".claude.json", {
        "hasCompletedOnboarding": True, "theme": "dark",
        "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True,
                                    "hasCompletedProjectOnboarding": True}}})


def _claude_env(url: str, setup: Path) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_SMALL_FAST_MODEL": SMALL, "ANTHROPIC_DEFAULT_HAIKU_MODEL": SMALL,
            "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}


# --- Codex CLI: the Responses API ---------------------------------------------------------------

def _codex_home(home: Path, project: Path, url: str) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'model = "{MODEL}"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n\n'
        f'[model_providers.fake]\nname = "fake"\nbase_url = "{url}/v1"\nenv_key = "BENCH_KEY"\n'
        f'wire_api = "responses"\n\n[projects."{project}"]\ntrust_level = "trusted"\n')


# --- Gemini CLI: Google's generateContent -----------------------------------------------------

def _gemini_home(home: Path, project: Path, url: str) -> None:
    _write_json(home / ".gemini" / "settings.json", {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "privacy": {"usageStatisticsEnabled": False},
        "ui": {"hideTips": True, "hideBanner": True}})


# --- OpenCode: OpenAI chat completions through @ai-sdk/openai-compatible ------------------------

def _opencode_env(url: str, setup: Path) -> dict[str, str]:
    config = {"provider": {"fake": {"npm": "@ai-sdk/openai-compatible",
                                    "options": {"baseURL": f"{url}/v1", "apiKey": KEY},
                                    "models": {MODEL: {}, SMALL: {}}}},
              "model": f"fake/{MODEL}", "small_model": f"fake/{SMALL}", "autoupdate": False,
              "share": "disabled"}
    return {"OPENCODE_CONFIG_CONTENT": json.dumps(config),
            "XDG_CACHE_HOME": str(setup / "opencode-cache")}


# --- Aider: OpenAI chat completions through LiteLLM ---------------------------------------------

def _aider(setup: Path, url: str) -> list[str]:
    return [str(setup / "aider-venv" / "bin" / "aider"), "--model", f"openai/{MODEL}",
            "--weak-model", f"openai/{SMALL}", "--openai-api-base", f"{url}/v1",
            "--openai-api-key", KEY, "--yes-always", "--no-check-update",
            "--no-show-model-warnings", "--analytics-disable", "--no-auto-commits",
            "--no-gitignore", "--no-show-release-notes"]


def _nothing(home: Path, project: Path, url: str) -> None:
    return None


PEERS = (
    Peer("Claude Code", "@anthropic-ai/claude-code", None, "anthropic",
         lambda setup, url, prompt: [_bin(setup, "claude"), "-p", prompt, "--model", MODEL],
         lambda setup, url: [_bin(setup, "claude"), "--model", MODEL],
         _claude_env, _claude_home, _shows("? for shortcuts")),
    Peer("Codex CLI", "@openai/codex", None, "responses",
         lambda setup, url, prompt: [_bin(setup, "codex"), "exec", "--skip-git-repo-check",
                                     prompt],
         lambda setup, url: [_bin(setup, "codex")],
         lambda url, setup: {"BENCH_KEY": KEY}, _codex_home, _shows("Ask Codex to do anything")),
    Peer("OpenCode", "opencode-ai", None, "openai",
         lambda setup, url, prompt: [_bin(setup, "opencode"), "run", prompt],
         lambda setup, url: [_bin(setup, "opencode")],
         _opencode_env, _nothing, _shows("Ask anything"),
         lambda lines: _shows("ctrl+p commands")(lines) and not _shows("esc interrupt")(lines)),
    Peer("Gemini CLI", "@google/gemini-cli", None, "gemini",
         lambda setup, url, prompt: [_bin(setup, "gemini"), "-p", prompt, "-m", MODEL],
         lambda setup, url: [_bin(setup, "gemini"), "-m", MODEL],
         lambda url, setup: {"GEMINI_API_KEY": KEY, "GOOGLE_GEMINI_BASE_URL": url},
         _gemini_home, _shows("Type your message")),
    Peer("Aider", None, "aider-chat", "openai",
         lambda setup, url, prompt: [*_aider(setup, url), "--no-git", "--no-pretty",
                                     "--message", prompt],
         # app.py in the chat from the start: the answers name it, and Aider would otherwise
         # stop to add it and send the prompt again
         lambda setup, url: [*_aider(setup, url), "app.py"],
         # LiteLLM's price list from the package, as ValarMind's benchmarks set it
         lambda url, setup: {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}, _nothing,
         lambda lines: [line for line in lines if line.strip()][-1:] == [">"]),
)


def install(setup: Path) -> dict[str, str]:
    """Install what installs; the reason for each peer that did not."""
    failed: dict[str, str] = {}
    setup.mkdir(parents=True, exist_ok=True)
    npm = [p for p in PEERS if p.npm]
    if npm and shutil.which("npm"):
        done = subprocess.run(["npm", "install", "--prefix", str(setup / "npm"), "--no-audit",
                               "--no-fund", *[str(p.npm) for p in npm]],
                              capture_output=True, text=True)
        if done.returncode != 0:  # one by one, to tell which
            for peer in npm:
                one = subprocess.run(["npm", "install", "--prefix", str(setup / "npm"),
                                      "--no-audit", "--no-fund", str(peer.npm)],
                                     capture_output=True, text=True)
                if one.returncode != 0:
                    failed[peer.name] = f"npm install failed: {one.stderr.strip()[-200:]}"
    elif npm:
        failed.update({p.name: "npm is not installed" for p in npm})
    for peer in (p for p in PEERS if p.pypi):
        venv = setup / "aider-venv"
        made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True)
        if made.returncode == 0:
            made = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(peer.pypi)],
                                  capture_output=True)
        if made.returncode != 0:
            failed[peer.name] = f"pip install failed: {made.stderr.decode()[-200:]}"
    return failed


def installed(peer: Peer, setup: Path) -> bool:
    return Path(peer.tui(setup, "http://127.0.0.1:1")[0]).exists()


def fresh(workdir: Path, peer: Peer, url: str, setup: Path) -> tuple[Path, dict[str, str]]:
    """A fresh HOME holding a small git project (benchmarks/e2e_bench.py's) for `peer`, and the
    environment to run it in."""
    from benchmarks.e2e_bench import _project

    home = workdir / peer.name.replace(" ", "-").lower()
    home.mkdir(parents=True)
    project = _project(home, int(url.rpartition(":")[2]))
    peer.home(home, project, url)
    runtime = home / "run"
    runtime.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TMUX", "VALARMIND_", "ANTHROPIC_", "OPENAI_", "GEMINI_",
                                "GOOGLE_", "OPENCODE_", "CODEX_", "AIDER_", "PYTHON",
                                "VIRTUAL_ENV"))}
    env.update(HOME=str(home), XDG_RUNTIME_DIR=str(runtime), XDG_CONFIG_HOME=str(home / "cfg"),
               XDG_DATA_HOME=str(home / "data"), LANG="C.UTF-8", TERM="xterm-256color",
               **peer.env(url, setup))
    return project, env


def end_left_behind(workdir: Path) -> list[int]:
    """End the processes a peer left running from `workdir` (Codex starts an app-server daemon
    under its fresh HOME that outlives `codex exec` and the TUI): those whose executable,
    first argument or working directory lies there. Returns their pids."""
    root = workdir.resolve()
    ended = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            places = [os.readlink(entry / "exe"), os.readlink(entry / "cwd"),
                      (entry / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")]
        except OSError:  # gone, or not ours
            continue
        if any(Path(place).is_relative_to(root) for place in places):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(entry.name), signal.SIGKILL)
                ended.append(int(entry.name))
    return ended
