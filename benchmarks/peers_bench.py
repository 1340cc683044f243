"""ValarMind's one-shot beside its peers': `-p "say hi"`-style runs answered by a local model
server on each tool's own wire format, in fresh HOMEs, alternating rounds, paired medians.

`--install` first installs the peers into the set-up folder (`--dir`, default
~/.cache/valarmind-peers): npm packages under `npm/`, Aider in a venv of its own. A peer that
does not install, whose wire format tests/fakes/model_server.py does not speak, or whose run
fails is reported as skipped with the reason, never silently. Nothing here needs the network
but the install.

Each round runs every peer once, then ValarMind (its run server and model daemon warm, as a
script calling `-p` in a loop meets them); the figure is the median over rounds of
ValarMind's wall time divided by the peer's in that round (below 1.0: ValarMind answers
sooner). Not run in CI: `.ci/with-env python benchmarks/peers_bench.py --install --rounds 5`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.oneshot_bench import FakeServer, end_daemon, end_run_server  # noqa: E402

KEY = "sk-bench-peers"
PROMPT = "say hi"


@dataclass(frozen=True)
class Peer:
    """One tool: how it installs, which wire format it speaks, how it is asked one thing."""

    name: str
    npm: str | None
    pypi: str | None
    wire: str
    """openai (chat completions), anthropic (messages), or a format the fake server lacks
    (Codex since 0.171 speaks only OpenAI's Responses API, Gemini CLI Google's)."""
    argv: Callable[[Path, str], list[str]]
    """(set-up folder, server URL) -> the command."""
    env: Callable[[str], dict[str, str]]
    """(server URL) -> what the command's environment adds."""


def _npm_bin(setup: Path, name: str) -> str:
    return str(setup / "npm" / "node_modules" / ".bin" / name)


def _codex_argv(setup: Path, url: str) -> list[str]:
    provider = (f'model_providers.fake={{name="fake",base_url="{url}/v1",env_key="BENCH_KEY",'
                'wire_api="responses"}')
    return [_npm_bin(setup, "codex"), "exec", "--skip-git-repo-check", "-c",
            "model_provider=fake", "-c", provider, "-m", "fake-model", PROMPT]


PEERS = (
    Peer("Claude Code", "@anthropic-ai/claude-code", None, "anthropic",
         lambda setup, url: [_npm_bin(setup, "claude"), "-p", PROMPT],
         lambda url: {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": KEY,
                      "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1"}),
    Peer("Codex CLI", "@openai/codex", None, "openai-responses", _codex_argv,
         lambda url: {"BENCH_KEY": KEY}),
    Peer("OpenCode", "opencode-ai", None, "openai",
         lambda setup, url: [_npm_bin(setup, "opencode"), "run", "-m", "fake/fake-model",
                             PROMPT],
         lambda url: {"OPENCODE_CONFIG_CONTENT": json.dumps({"provider": {"fake": {
             "npm": "@ai-sdk/openai-compatible", "options": {"baseURL": f"{url}/v1",
                                                             "apiKey": KEY},
             "models": {"fake-model": {}}}}})}),
    Peer("Gemini CLI", "@google/gemini-cli", None, "gemini",
         lambda setup, url: [_npm_bin(setup, "gemini"), "-p", PROMPT],
         lambda url: {"GEMINI_API_KEY": KEY}),
    Peer("Aider", None, "aider-chat", "openai",
         lambda setup, url: [str(setup / "aider-venv" / "bin" / "aider"), "--message", PROMPT,
                             "--model", "openai/fake-model", "--openai-api-base", f"{url}/v1",
                             "--openai-api-key", KEY, "--no-git", "--yes-always",
                             "--no-check-update", "--no-show-model-warnings",
                             "--analytics-disable", "--no-pretty"],
         lambda url: {}),
)
SERVED_WIRES = ("openai", "anthropic")


def install(setup: Path) -> dict[str, str]:
    """Install what installs; the reason for each peer that did not."""
    failed: dict[str, str] = {}
    setup.mkdir(parents=True, exist_ok=True)
    npm = [p for p in PEERS if p.npm]
    if npm and shutil.which("npm"):
        (setup / "npm").mkdir(exist_ok=True)
        for peer in npm:
            done = subprocess.run(["npm", "install", "--prefix", str(setup / "npm"),
                                   "--no-audit", "--no-fund", str(peer.npm)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                failed[peer.name] = f"npm install failed: {done.stderr.strip()[-200:]}"
    elif npm:
        failed.update({p.name: "npm is not installed" for p in npm})
    for peer in (p for p in PEERS if p.pypi):
        venv = setup / "aider-venv"
        done = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True)
        if done.returncode == 0:
            done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(peer.pypi)],
                                  capture_output=True)
        if done.returncode != 0:
            failed[peer.name] = f"pip install failed: {done.stderr.decode()[-200:]}"
    return failed


def _fresh(workdir: Path, name: str) -> tuple[Path, dict[str, str]]:
    """A fresh HOME and git project for one tool."""
    home = workdir / name.replace(" ", "-").lower()
    project = home / "project"
    project.mkdir(parents=True)
    (project / "README.md").write_text("# bench\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    runtime = home / "run"
    runtime.mkdir(mode=0o700)
    return project, {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
                     "XDG_RUNTIME_DIR": str(runtime), "LANG": "C.UTF-8", "TERM": "dumb",
                     "NO_COLOR": "1", "CI": "1"}


def timed(argv: list[str], project: Path, env: dict[str, str]) -> float | str:
    """Wall seconds of one answered run, or why it failed."""
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"did not run: {exc}"
    wall = time.perf_counter() - start
    if done.returncode != 0 or "Hi!" not in done.stdout + done.stderr:
        return f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[-200:]}"
    return wall


def valarmind_argv(url: str) -> list[str]:
    exe = Path(sys.executable).parent / "valarmind"
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "valarmind_tui"]
    return [*command, "-p", PROMPT, "--model", "openai/fake-model", "--api-base", f"{url}/v1"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--install", action="store_true", help="install the peers first")
    parser.add_argument("--dir", type=Path, default=Path.home() / ".cache" / "valarmind-peers")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    skipped = install(args.dir) if args.install else {}
    with tempfile.TemporaryDirectory(prefix="valarmind-peers-") as tmp:
        workdir = Path(tmp)
        server = FakeServer(workdir, answers=50 * args.rounds * (len(PEERS) + 1))
        url = f"http://127.0.0.1:{server.port}"
        ours_project, ours_env = _fresh(workdir, "valarmind")
        (Path(ours_env["HOME"]) / ".config/valarmind").mkdir(parents=True)
        (Path(ours_env["HOME"]) / ".config/valarmind/config.toml").write_text(
            'api_key_env = "BENCH_KEY"\n')
        ours_env["BENCH_KEY"] = KEY
        peers = []
        for peer in PEERS:
            if peer.name in skipped:
                continue
            if peer.wire not in SERVED_WIRES:
                skipped[peer.name] = f"the fake model server does not speak {peer.wire}'s API"
                continue
            if not Path(peer.argv(args.dir, url)[0]).exists():
                skipped[peer.name] = "not installed (run with --install)"
                continue
            project, env = _fresh(workdir, peer.name)
            peers.append((peer, project, {**env, **peer.env(url)}))
        rounds: dict[str, list[tuple[float, float]]] = {p.name: [] for p, _, _ in peers}
        try:
            timed(valarmind_argv(url), ours_project, ours_env)  # the daemon started
            for _ in range(args.rounds):
                theirs = {p.name: timed(p.argv(args.dir, url), project, env)
                          for p, project, env in peers}
                ours = timed(valarmind_argv(url), ours_project, ours_env)
                if isinstance(ours, str):
                    print(f"valarmind failed: {ours}")
                    return 1
                for name, wall in theirs.items():
                    if isinstance(wall, str):
                        skipped.setdefault(name, wall)
                    else:
                        rounds[name].append((ours, wall))
        finally:
            end_run_server(Path(ours_env["XDG_RUNTIME_DIR"]), ours_env)
            end_daemon(Path(ours_env["XDG_RUNTIME_DIR"]), ours_env)
            server.stop()
    for name, pairs in rounds.items():
        if name in skipped or not pairs:
            continue
        ratio = statistics.median(o / t for o, t in pairs)
        print(f"{name:<12} ValarMind {statistics.median(o for o, _ in pairs):.3f} s, "
              f"peer {statistics.median(t for _, t in pairs):.3f} s, paired-median ratio "
              f"{ratio:.2f}")
    for name, why in skipped.items():
        print(f"{name:<12} skipped: {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
