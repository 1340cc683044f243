"""The terminal figures of issue #36's table for ValarMind and each peer, measured the same way:
the tool in tmux (120x40, a tmux server of its own: benchmarks/e2e_terminal.py), a fresh HOME
and a small git project, benchmarks/e2e_server.py answering on the tool's wire format.

One launch gives:
- ready: from Enter on the command line to the screen showing the tool waiting for a prompt;
- idle memory: PSS summed over the process tree (benchmarks/memory_bench.py), SETTLE_S later;
- the short turn: Enter -> the answer's last words drawn, for SHORT_TURNS prompts answered with
  ~20 tokens, the first left out (turn_bench.py's "later prompt"); and the lag from the server
  writing the last chunk to the screen showing it;
- then `prompts` prompts each answered with ~2,000 tokens at 20,000 tokens/s (memory_bench.py's),
  the lag of their final frame (median of the last five) and the CPU of the tree per prompt;
- memory after those prompts, and the keystroke echo then: ECHO_KEYS 'z's typed one by one at
  the idle prompt, each timed until the tool writes it to the terminal (tmux's `%output`, read
  as tmux reads the pane: e2e_terminal.OutputClock), then read on the screen.
Between prompts the tool is let finish: its ready screen again, unchanged for STILL_S.
"""

from __future__ import annotations

import random
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.e2e_bench import PacedServer, _command, _env, _project, _status  # noqa: E402
from benchmarks.e2e_server import END_MARKER, SHORT  # noqa: E402
from benchmarks.e2e_terminal import Terminal, cpu_seconds  # noqa: E402
from benchmarks.memory_bench import pss_kb, tree  # noqa: E402
from benchmarks.peers import Peer, fresh  # noqa: E402

ANSWER_TOKENS = 2000
RATE = 20_000
SHORT_TURNS = 4
SETTLE_S = 8.0
STILL_S = 0.8
ECHO_KEYS = 15
TYPED_PAUSE_S = 0.6
"""Between the typed prompt showing and Enter: Gemini CLI takes an Enter that closely follows a
burst of typed text as part of a paste and drops it."""
ECHO_KEY = "z"  # the answers never contain one
LONG = "explain app.py"


@dataclass(frozen=True)
class Launch:
    """A tool ready to start in a terminal."""

    name: str
    argv: list[str]
    cwd: Path
    env: dict[str, str]
    ready: Callable[[list[str]], bool]
    """The screen shows it waiting for a prompt (once started)."""
    idle: Callable[[list[str]], bool]
    """The screen shows it waiting for the next prompt (after a turn)."""


def valarmind(workdir: Path, port: int) -> Launch:
    home = workdir / "valarmind"
    home.mkdir()
    root = _project(home, port)

    def idle(lines: list[str]) -> bool:
        return "mode:" in _status(lines) and _status(lines).lstrip().startswith("○")

    return Launch("ValarMind", _command(), root, _env(home),
                  lambda lines: "mode:" in _status(lines), idle)


def peer(tool: Peer, workdir: Path, port: int, setup: Path) -> Launch:
    url = f"http://127.0.0.1:{port}"
    project, env = fresh(workdir, tool, url, setup)
    return Launch(tool.name, tool.tui(setup, url), project, env, tool.ready,
                  tool.idle or tool.ready)


def _pss_mb(pid: int) -> float:
    return sum(pss_kb(member) for member in tree(pid)) / 1024


def _shows(text: str) -> Callable[[list[str]], bool]:
    return lambda lines: any(text in line for line in lines)


def _settle(term: Terminal, launch: Launch) -> None:
    """Wait until the tool is idle again and its screen has stopped changing."""
    deadline = time.monotonic() + 60
    before, since = None, time.monotonic()
    while time.monotonic() < deadline:
        lines = term.screen()
        if lines != before or not launch.idle(lines):
            before, since = lines, time.monotonic()
        elif time.monotonic() - since >= STILL_S:
            return
        time.sleep(0.05)
    raise TimeoutError(f"{launch.name} never settled; screen:\n" + "\n".join(before or []))


def _turn(term: Terminal, launch: Launch, server: PacedServer, part: int, kind: str
          ) -> tuple[float, float]:
    """(Enter -> the answer's last words drawn, last chunk written -> drawn), in ms."""
    prompt = f"{kind}, part {part}"
    term.type(prompt)
    term.wait(_shows(prompt), 10, f"the typed prompt {prompt!r}")
    time.sleep(TYPED_PAUSE_S)
    enter = time.time()
    term.key("Enter")
    drawn = term.wait(_shows(f"{END_MARKER}-{part}"), 120, f"answer {part}")
    last = float(server.of("LAST", part, timeout=10)[0])
    _settle(term, launch)
    return (drawn - enter) * 1000, (drawn - last) * 1000


def _echo(term: Terminal) -> list[float]:
    """ms from each of ECHO_KEYS keys typed at the idle prompt to the pane writing it
    (e2e_terminal.OutputClock); each is then read on the screen before the next."""
    rng = random.Random(36)
    baseline = sum(line.count(ECHO_KEY) for line in term.screen())
    echoes = []
    clock = term.output_clock()
    try:
        for typed in range(1, ECHO_KEYS + 1):
            echoes.append(clock.type_until_shown(ECHO_KEY) * 1000)
            term.wait(lambda lines, want=baseline + typed: sum(
                line.count(ECHO_KEY) for line in lines) >= want, 10, f"echo of key {typed}")
            time.sleep(rng.uniform(0.05, 0.15))
    finally:
        clock.close()
    return echoes


def measure(launch: Launch, server: PacedServer, prompts: int, figures: dict[str, float]
            ) -> None:
    """The figures of one launch (module docstring), into `figures` as they are taken: a tool
    whose screen stops answering keeps those taken before."""
    shell = "read go && exec " + shlex.join(launch.argv)
    term = Terminal(["sh", "-c", shell], launch.cwd, launch.env)
    try:
        time.sleep(0.3)  # the shell is waiting on `read`
        start = time.time()
        term.key("Enter")
        figures["ready_ms"] = (term.wait(launch.ready, 180, "the ready screen") - start) * 1000
        time.sleep(SETTLE_S)
        pid = term.pid()
        figures["idle_mb"] = _pss_mb(pid)
        short = [_turn(term, launch, server, part, SHORT) for part in range(1, SHORT_TURNS + 1)]
        figures["short_turn_ms"] = statistics.median(drawn for drawn, _ in short[1:])
        figures["short_lag_ms"] = statistics.median(lag for _, lag in short[1:])
        cpu = cpu_seconds(pid)
        long = [_turn(term, launch, server, part, LONG)
                for part in range(SHORT_TURNS + 1, SHORT_TURNS + 1 + prompts)]
        if long:
            figures["cpu_per_prompt_ms"] = (cpu_seconds(pid) - cpu) / len(long) * 1000
            figures["long_lag_ms"] = statistics.median(lag for _, lag in long[-5:])
        time.sleep(2.0)
        figures["after_mb"] = _pss_mb(pid)
        figures["echo_ms"] = statistics.median(_echo(term))
    finally:
        term.quit()


def run(launch: Callable[[Path, int], Launch], workdir: Path, prompts: int
        ) -> tuple[dict[str, float], str | None]:
    """A fresh server and launch of one tool: its figures, and why the rest are missing."""
    server = PacedServer(RATE, ANSWER_TOKENS)
    figures: dict[str, float] = {}
    try:
        measure(launch(workdir, server.port), server, prompts, figures)
    except (OSError, RuntimeError, TimeoutError, subprocess.SubprocessError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return figures, f"{first} (after {len(figures)} figures)"
    finally:
        server.stop()
    return figures, None
