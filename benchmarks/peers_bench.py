"""ValarMind beside its peers (issue #36's table), each tool on its own wire format against a
local model server, in fresh HOMEs, alternating rounds, paired medians.

The peers (benchmarks/peers.py): Claude Code (Anthropic messages), Codex CLI (OpenAI's Responses
API), OpenCode and Aider (OpenAI chat completions), Gemini CLI (Gemini's generateContent).
`--install` first installs them into the set-up folder (`--dir`): npm packages under `npm/`,
Aider in a venv of its own. A peer that does not install or whose run fails is reported as
skipped with the reason, never silently; so is a figure a peer's screen did not give.
Nothing here needs the network but the install (OpenCode may fetch its provider package once).

- one-shot: `-p "say hi"`-style runs answered by tests/fakes/model_server.py; each round runs
  every peer once, then ValarMind (its run server and model daemon warm, as a script calling `-p`
  in a loop meets them);
- terminal (benchmarks/peers_tui.py): each tool in tmux 120x40 against benchmarks/e2e_server.py:
  ready for a prompt, idle memory (PSS of the process tree), memory after N prompts of ~2,000
  tokens, keystroke echo after them, the lag from the last chunk to the last words on screen,
  the short turn (Enter -> answer drawn) after a few prompts, CPU per long prompt.
Per figure: ValarMind's paired-median ratio to each peer (its figure over the peer's, round by
round; below 1.0 ValarMind is faster or smaller) and to the best peer (the lowest median).

`.ci/with-env python benchmarks/peers_bench.py --install --dir /work/peers [--rounds 5]
[--tui-rounds 1] [--prompts 30] [--only oneshot|tui] [--peers "Claude Code,Aider"]`. Not in CI.

A run on 2026-11-28 (main at 99608a1; --rounds 5 --tui-rounds 2 --prompts 30; 2 cores shared
with four engineers, 1-minute load 0.7-3.4): ValarMind's figure and its paired-median ratio to the
best peer (docs/peers.md has every peer's column):
    one-shot                            0.38 s   x1.16 (Codex CLI 0.33 s)
    ready for a prompt                 1,538 ms  x2.97 (Codex CLI 524 ms)
    idle memory, PSS of the tree         275 MB  x1.55 (Aider 178 MB)
    memory after 30 ~2,000-token prompts 317 MB  x1.10 (Aider 289 MB)
    keystroke echo after them            5.0 ms  x1.02 (Aider 4.9 ms)
    last chunk -> screen, short answer  29.8 ms  x2.15 (Codex CLI 13.9 ms)
    last chunk -> screen, 2,000 tokens   270 ms  x3.03 (Claude Code 117 ms)
    short turn, Enter -> answer drawn   50.0 ms  x0.77 (Codex CLI 65.4 ms)
    CPU per ~2,000-token prompt          416 ms  x1.35 (Claude Code 312 ms)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import peers_tui  # noqa: E402
from benchmarks.oneshot_bench import FakeServer, end_daemon, end_run_server  # noqa: E402
from benchmarks.peers import (  # noqa: E402
    PEERS,
    Peer,
    end_left_behind,
    fresh,
    install,
    installed,
)

KEY = "sk-bench-peers"
PROMPT = "say hi"
FIGURES = (
    ("oneshot_s", "one-shot `-p \"say hi\"`", "s"),
    ("ready_ms", "ready for a prompt", "ms"),
    ("idle_mb", "idle memory (PSS of the tree)", "MB"),
    ("after_mb", "memory after N prompts of ~2,000 tokens", "MB"),
    ("echo_ms", "keystroke echo after those prompts", "ms"),
    ("short_lag_ms", "last chunk -> last words on screen (short answer)", "ms"),
    ("long_lag_ms", "last chunk -> last words on screen (~2,000 tokens)", "ms"),
    ("short_turn_ms", "short turn: Enter -> answer drawn", "ms"),
    ("cpu_per_prompt_ms", "CPU of the tree per ~2,000-token prompt", "ms"),
)
Rounds = dict[str, list[dict[str, float]]]
"""Tool name -> one dict of figures per round."""


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


def _valarmind_oneshot_home(workdir: Path) -> tuple[Path, dict[str, str]]:
    home, project = workdir / "valarmind", workdir / "valarmind" / "project"
    project.mkdir(parents=True)
    (project / "README.md").write_text("# bench\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    runtime = home / "run"
    runtime.mkdir(mode=0o700)
    (home / ".config/valarmind").mkdir(parents=True)
    (home / ".config/valarmind/config.toml").write_text('api_key_env = "BENCH_KEY"\n')
    return project, {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
                     "XDG_RUNTIME_DIR": str(runtime), "LANG": "C.UTF-8", "TERM": "dumb",
                     "NO_COLOR": "1", "CI": "1", "BENCH_KEY": KEY}


def oneshot(peers: list[Peer], setup: Path, rounds: int, skipped: dict[str, str]) -> Rounds:
    """Wall seconds of the one-shot, per tool and round."""
    got: Rounds = {p.name: [] for p in peers}
    got["ValarMind"] = []
    with tempfile.TemporaryDirectory(prefix="valarmind-peers-") as tmp:
        workdir = Path(tmp)
        server = FakeServer(workdir, answers=50 * rounds * (len(peers) + 1))
        url = f"http://127.0.0.1:{server.port}"
        ours_project, ours_env = _valarmind_oneshot_home(workdir)
        runs = []
        for peer in peers:
            project, env = fresh(workdir, peer, url, setup)
            env.update(TERM="dumb", NO_COLOR="1", CI="1")
            runs.append((peer, project, env))
        try:
            timed(valarmind_argv(url), ours_project, ours_env)  # the daemon started
            for _ in range(rounds):
                for peer, project, env in runs:
                    wall = timed(peer.oneshot(setup, url, PROMPT), project, env)
                    if isinstance(wall, str):
                        skipped.setdefault(f"{peer.name}: one-shot", wall)
                    got[peer.name].append({} if isinstance(wall, str) else {"oneshot_s": wall})
                ours = timed(valarmind_argv(url), ours_project, ours_env)
                if isinstance(ours, str):
                    skipped.setdefault("ValarMind: one-shot", ours)
                got["ValarMind"].append({} if isinstance(ours, str) else {"oneshot_s": ours})
        finally:
            end_run_server(Path(ours_env["XDG_RUNTIME_DIR"]), ours_env)
            end_daemon(Path(ours_env["XDG_RUNTIME_DIR"]), ours_env)
            server.stop()
            end_left_behind(workdir)
    return got


def terminal(peers: list[Peer], setup: Path, rounds: int, prompts: int,
             skipped: dict[str, str]) -> Rounds:
    """The terminal figures, per tool and round (peers_tui.py)."""
    got: Rounds = {p.name: [] for p in peers}
    got["ValarMind"] = []
    launches: list[tuple[str, Callable[[Path, int], peers_tui.Launch]]] = [
        (p.name, lambda w, port, p=p: peers_tui.peer(p, w, port, setup)) for p in peers]
    launches.append(("ValarMind", peers_tui.valarmind))
    for n in range(rounds):
        for name, launch in launches:
            with tempfile.TemporaryDirectory(prefix="valarmind-peers-tui-") as tmp:
                try:
                    figures, why = peers_tui.run(launch, Path(tmp), prompts)
                finally:
                    end_left_behind(Path(tmp))
            print(f"  round {n + 1} {name}: " + ", ".join(
                f"{k} {v:.1f}" for k, v in figures.items()) + (f"; stopped: {why}" if why
                                                               else ""), flush=True)
            if why:
                skipped.setdefault(f"{name}: terminal figures after the first {len(figures)}",
                                   why)
            got[name].append(figures)
    return got


def paired_ratio(ours: list[dict[str, float]], theirs: list[dict[str, float]], key: str
                 ) -> float | None:
    pairs = [(o[key], t[key]) for o, t in zip(ours, theirs, strict=False)
             if key in o and key in t and t[key] > 0]
    return statistics.median(o / t for o, t in pairs) if pairs else None


def _median(rounds: list[dict[str, float]], key: str) -> float | None:
    values = [r[key] for r in rounds if key in r]
    return statistics.median(values) if values else None


def table(got: Rounds, prompts: int) -> list[str]:
    """Markdown rows: per figure ValarMind's median, each peer's median with ValarMind's
    paired-median ratio to it, and the ratio to the best peer."""
    names = [n for n in got if n != "ValarMind"]
    rows = ["| figure | ValarMind | " + " | ".join(names) + " | ValarMind / best peer |",
            "|---" * (len(names) + 3) + "|"]
    for key, label, unit in FIGURES:
        ours = _median(got["ValarMind"], key)
        if ours is None and all(_median(got[n], key) is None for n in names):
            continue
        cells, best = [], None
        for name in names:
            theirs, ratio = _median(got[name], key), paired_ratio(got["ValarMind"], got[name],
                                                                   key)
            if theirs is None:
                cells.append("skipped")
                continue
            cells.append(f"{_shown(theirs, unit)} (×{ratio:.2f})" if ratio is not None
                         else _shown(theirs, unit))
            if best is None or theirs < best[1]:
                best = (name, theirs, ratio)
        label = label.replace("N prompts", f"{prompts} prompts")
        vs_best = f"×{best[2]:.2f} ({best[0]})" if best and best[2] is not None else "-"
        shown = _shown(ours, unit) if ours is not None else "failed"
        rows.append(f"| {label} ({unit}) | {shown} | " + " | ".join(cells) + f" | {vs_best} |")
    return rows


def _shown(value: float, unit: str) -> str:
    digits = 2 if unit == "s" else 0 if value >= 100 else 1
    return f"{value:,.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--install", action="store_true", help="install the peers first")
    parser.add_argument("--dir", type=Path, default=Path.home() / ".cache" / "valarmind-peers")
    parser.add_argument("--rounds", type=int, default=5, help="one-shot rounds")
    parser.add_argument("--tui-rounds", type=int, default=1, help="terminal rounds")
    parser.add_argument("--prompts", type=int, default=30,
                        help="prompts of ~2,000 tokens before memory and echo are measured")
    parser.add_argument("--only", choices=("oneshot", "tui"), help="one part alone")
    parser.add_argument("--peers", help="comma-separated peer names (default: all)")
    args = parser.parse_args(argv)
    skipped = install(args.dir) if args.install else {}
    wanted = set(args.peers.split(",")) if args.peers else {p.name for p in PEERS}
    peers = []
    for peer in PEERS:
        if peer.name not in wanted or peer.name in skipped:
            continue
        if not installed(peer, args.dir):
            skipped[peer.name] = "not installed (run with --install)"
            continue
        peers.append(peer)
    got: Rounds = {p.name: [] for p in peers}
    got["ValarMind"] = []
    parts = []
    if args.only != "tui":
        parts.append(oneshot(peers, args.dir, args.rounds, skipped))
    if args.only != "oneshot":
        parts.append(terminal(peers, args.dir, args.tui_rounds, args.prompts, skipped))
    for part in parts:  # one round index per part: a tool's figures of round n merged
        for name, rounds in part.items():
            for n, figures in enumerate(rounds):
                if n == len(got[name]):
                    got[name].append({})
                got[name][n].update(figures)
    print("\n".join(table(got, args.prompts)))
    for name, why in skipped.items():
        print(f"skipped: {name}: {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
