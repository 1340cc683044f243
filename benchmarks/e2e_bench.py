"""End to end, as a person meets it: `valarmind` in tmux (120x40), a model server on 127.0.0.1
streaming OpenAI-style SSE through LiteLLM over HTTP, and keys typed while it streams.

Per launch (a fresh process, a fresh HOME and a small git project):
- first frame: from the command starting to the first screen with the status bar (the frame
  ui.skeleton draws before Textual loads); then Textual's first frame (its status bar names the
  git branch) and the session ready (the status bar names the model);
- Enter -> first request on the wire, for a prompt typed 3 s after launch, or at the first frame;
- keystroke echo p50/p95 from Enter until the last chunk (a 'z' typed every 50-150 ms, the screen
  read until it shows), for the session's first prompt and for a later one;
- CPU share of the valarmind process and its children (the model process) while the answer
  streams, and of the UI process alone;
- lag of the final frame: from the server writing the last chunk to the screen showing it.
at 100 and 1,000 tokens/s, each answer ~6 s long in chunks of 1-4 tokens.

With Aider installed (for example in a throwaway venv: `AIDER=/tmp/aider-venv/bin/aider`), its
launch -> prompt and Enter -> request are measured the same way beside ours.

Run alone: `.ci/with-env python benchmarks/e2e_bench.py` (or `benchmarks/run.py e2e_bench`).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.e2e_server import END_MARKER  # noqa: E402
from benchmarks.e2e_terminal import Terminal, cpu_seconds, own_cpu_seconds  # noqa: E402

SECONDS_OF_ANSWER = 6
TYPED_AFTER_S = 3.0
ECHO_KEY = "z"  # the answers never contain one
KEYS_PER_LINE = 30
"""The prompt is emptied after this many keys (a notification could cover a longer line)."""


class PacedServer:
    """benchmarks/e2e_server.py in its own process; its stamped lines as they come."""

    def __init__(self, rate: float, tokens: int, *flags: str) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.e2e_server", "--rate", str(rate),
             "--tokens", str(tokens), *flags], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        self._lines: list[list[str]] = []
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.port = int(self.wait("PORT", 1)[0])

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            with self._changed:
                self._lines.append(line.split())
                self._changed.notify_all()

    def _nth(self, kind: str, n: int) -> list[str] | None:
        found = [fields[1:] for fields in self._lines if fields[0] == kind]
        return found[n - 1] if len(found) >= n else None

    def seen(self, kind: str, n: int) -> list[str] | None:
        with self._changed:
            return self._nth(kind, n)

    def wait(self, kind: str, n: int, timeout: float = 60) -> list[str]:
        with self._changed:
            if not self._changed.wait_for(lambda: self._nth(kind, n) is not None, timeout):
                raise TimeoutError(f"the model server never said {kind} #{n}")
            return self._nth(kind, n)  # type: ignore[return-value]

    def _of(self, kind: str, number: int) -> list[str] | None:
        found = [f[1:] for f in self._lines if f[0] == kind and f[-1] == str(number)]
        return found[0] if found else None

    def of(self, kind: str, number: int, timeout: float = 60) -> list[str]:
        """The first `kind` line of answer `number` (the "part N" of its prompt)."""
        with self._changed:
            if not self._changed.wait_for(lambda: self._of(kind, number) is not None, timeout):
                raise TimeoutError(f"the model server never said {kind} of answer {number}")
            return self._of(kind, number)  # type: ignore[return-value]

    def within(self, kind: str, n: int, seconds: float) -> bool:
        """Wait up to `seconds` for `kind` #n; True once it came."""
        with self._changed:
            return self._changed.wait_for(lambda: self._nth(kind, n) is not None, seconds)

    def stop(self) -> None:
        self._proc.terminate()
        self._proc.wait(timeout=10)


def _command() -> list[str]:
    exe = Path(sys.executable).parent / "valarmind"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "valarmind_tui"]


def _project(home: Path, port: int) -> Path:
    root = home / "project"
    (root / "src").mkdir(parents=True)
    for n in range(20):
        (root / "src" / f"mod{n}.py").write_text(
            f"def work{n}(x):\n    return x + {n}\n\n\nclass Thing{n}:\n    pass\n")
    (root / "app.py").write_text("from src.mod1 import work1\n\nprint(work1(1))\n")
    git = ["git", "-c", "user.email=b@b", "-c", "user.name=bench"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=root, check=True)
    config = home / "cfg" / "valarmind" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'model = "openai/fake-model"\napi_base = "http://127.0.0.1:{port}/v1"\n')
    return root


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TMUX", "VALARMIND_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "cfg"),
               XDG_DATA_HOME=str(home / "data"), TERM="xterm-256color", PYTHONPATH=str(ROOT),
               LITELLM_LOCAL_MODEL_COST_MAP="True")
    # A user's Python caches bytecode; this sandbox may set PYTHONDONTWRITEBYTECODE.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


@contextlib.contextmanager
def ready_session(server: PacedServer, home: Path, *, command: list[str] | None = None,
                  env: dict[str, str] | None = None, settle_s: float = 1.0,
                  ) -> Iterator[Terminal]:
    """`valarmind` (or `command`) in tmux with `home` as its HOME and a small git project there
    answered by `server`, once its session is ready and the warm-up (litellm's import in the
    model process) had `settle_s` to settle. The app is left and the server stopped at the
    end (what the app wrote in `home` is still there)."""
    term: Terminal | None = None
    try:
        root = _project(home, server.port)
        term = Terminal(command or _command(), root, {**_env(home), **(env or {})})
        term.wait(lambda lines: "mode:" in _status(lines), 60, "the session")
        time.sleep(settle_s)
        yield term
    finally:
        if term is not None:
            term.quit()
        server.stop()


def _echoes(lines: list[str]) -> int:
    return sum(line.count(ECHO_KEY) for line in lines)


def _status(lines: list[str]) -> str:
    return lines[-1] if lines else ""


class _Watch:
    """Reads the screen for a keystroke's echo and notes when the final marker first shows."""

    def __init__(self, term: Terminal, marker: str) -> None:
        self.term, self.marker, self.final_seen = term, marker, 0.0

    def until(self, condition: Callable[[list[str]], bool], timeout: float, what: str) -> float:
        def check(lines: list[str]) -> bool:
            if not self.final_seen and any(self.marker in line for line in lines):
                self.final_seen = time.time()
            return condition(lines)
        return self.term.wait(check, timeout, what)


def _stream(term: Terminal, server: PacedServer, n: int, prompt: str) -> dict[str, float]:
    """Type `prompt`, press Enter, then type and time keystrokes until the answer's last chunk;
    then time the final frame."""
    rng = random.Random(n)
    baseline = _echoes(term.screen())
    term.type(prompt)
    term.wait(lambda lines: any(prompt in line for line in lines), 10, "the typed prompt")
    pid = term.pid()
    watch = _Watch(term, f"{END_MARKER}-{n}")
    enter = time.time()
    term.key("Enter")
    echoes: list[float] = []
    cpu_start: tuple[float, float, float] | None = None
    typed = 0
    while server.seen("LAST", n) is None:
        if cpu_start is None and server.seen("FIRST", n) is not None:
            cpu_start = (cpu_seconds(pid), time.time(), own_cpu_seconds(pid))
        if typed == KEYS_PER_LINE:
            term.key("C-u")
            watch.until(lambda lines: _echoes(lines) <= baseline, 10, "the prompt emptied")
            typed = 0
        typed += 1
        sent = time.time()
        term.type(ECHO_KEY)
        want = baseline + typed
        echoes.append(watch.until(lambda lines, want=want: _echoes(lines) >= want, 60,
                                  f"echo of keystroke {typed}") - sent)
        # between keys, but the screen is read again as soon as the last chunk is written (a
        # sleep here put up to 150 ms of the harness's own into "final frame")
        server.within("LAST", n, rng.uniform(0.05, 0.15))
    cpu_end = (cpu_seconds(pid), time.time(), own_cpu_seconds(pid))
    last_stamp, achieved = (float(x) for x in server.wait("LAST", n)[:2])
    if not watch.final_seen:
        watch.until(lambda lines: bool(watch.final_seen), 20, "the final frame")
    request = float(server.wait("REQUEST", n)[0])
    cpu_start = cpu_start or cpu_end
    window = max(1e-6, cpu_end[1] - cpu_start[1])
    term.key("C-u")  # empty the prompt for the next one
    term.wait(lambda lines: _echoes(lines) <= baseline, 10, "the prompt emptied")
    echoes.sort()
    return {
        "enter_to_request": (request - enter) * 1000,
        "echo_p50": statistics.median(echoes) * 1000,
        "echo_p95": echoes[min(len(echoes) - 1, round(0.95 * (len(echoes) - 1)))] * 1000,
        "echo_max": echoes[-1] * 1000, "keys": len(echoes),
        "cpu": (cpu_end[0] - cpu_start[0]) / window * 100,
        "ui_cpu": (cpu_end[2] - cpu_start[2]) / window * 100,
        "final": (watch.final_seen - last_stamp) * 1000, "rate": achieved,
    }


def launch(rate: float, typed_after_s: float | None, prompts: int) -> dict[str, object]:
    """One fresh `valarmind`: first frame, then `prompts` prompts answered at `rate` tokens/s.
    The first prompt is typed `typed_after_s` after launch (None: at the first frame)."""
    with tempfile.TemporaryDirectory(prefix="valarmind-e2e-") as tmp:
        home = Path(tmp)
        server = PacedServer(rate, int(rate * SECONDS_OF_ANSWER))
        term: Terminal | None = None
        try:
            root = _project(home, server.port)
            shell = "read go && exec " + " ".join(_command())
            term = Terminal(["sh", "-c", shell], root, _env(home))
            assert term.size() == "120x40", term.size()
            time.sleep(0.3)  # the shell is waiting on `read`
            start = time.time()
            term.key("Enter")
            frame = term.wait(lambda lines: "starting" in _status(lines)
                              or "mode:" in _status(lines), 30, "the first frame")
            figures: dict[str, object] = {"first_frame": (frame - start) * 1000}
            if typed_after_s is not None:
                # Textual's own frame names the branch in the status bar; the skeleton's does not
                app_frame = term.wait(lambda lines: "⎇" in _status(lines), 30, "Textual's frame")
                ready = term.wait(lambda lines: "mode:" in _status(lines), 30, "the session")
                figures.update(app_frame=(app_frame - start) * 1000, ready=(ready - start) * 1000)
                time.sleep(max(0.0, start + typed_after_s - time.time()))
            streams = []
            for n in range(1, prompts + 1):
                if n > 1:  # the previous turn has finished (status bar idle)
                    term.wait(lambda lines: _status(lines).lstrip().startswith("○")
                              and "mode:" in _status(lines), 30, "the turn to finish")
                streams.append(_stream(term, server, n, f"explain app.py, part {n}"))
            figures["streams"] = streams
            return figures
        finally:
            if term is not None:
                term.quit()
            server.stop()


def aider_launch(aider: str) -> tuple[float, float]:
    """Aider (its own install, named by $AIDER or found on PATH) in the same terminal against
    the same server: ms from launch to its `>` prompt, and Enter -> request for a prompt typed
    3 s after launch. Aider reads no keys while it streams, so echo is not comparable."""
    with tempfile.TemporaryDirectory(prefix="valarmind-e2e-aider-") as tmp:
        home = Path(tmp)
        server = PacedServer(1000, 300)
        term: Terminal | None = None
        try:
            root = _project(home, server.port)
            flags = (f"--model openai/fake-model --openai-api-base http://127.0.0.1:{server.port}"
                     "/v1 --openai-api-key sk-bench --no-check-update --no-show-model-warnings "
                     "--analytics-disable --no-auto-commits --no-gitignore --yes-always "
                     "--no-show-release-notes")
            term = Terminal(["sh", "-c", f"read go && exec {aider} {flags}"], root, _env(home))
            time.sleep(0.3)
            start = time.time()
            term.key("Enter")
            frame = term.wait(lambda lines: any(x.startswith(">") for x in lines), 120,
                              "Aider's prompt")
            time.sleep(max(0.0, start + TYPED_AFTER_S - time.time()))
            term.type("explain app.py")
            enter = time.time()
            term.key("Enter")
            request = float(server.wait("REQUEST", 1, timeout=120)[0])
            server.wait("LAST", 1)
            return (frame - start) * 1000, (request - enter) * 1000
        finally:
            if term is not None:
                term.close()
            server.stop()


def _aider_rows() -> list[dict]:
    aider = os.environ.get("AIDER") or shutil.which("aider")
    if not aider:
        print("(e2e_bench: no Aider: set AIDER=/path/to/aider for its figures)", file=sys.stderr)
        return []
    aider_launch(aider)  # its bytecode is written on a first launch
    frame, request = aider_launch(aider)
    return [
        {"name": "Aider in tmux: launch -> prompt", "value": frame, "unit": "ms", "target": "-"},
        {"name": "Aider in tmux: Enter -> request, typed 3 s after launch", "value": request,
         "unit": "ms", "target": "-"},
    ]


def _rows(label: str, stream: dict[str, float]) -> list[dict]:
    return [
        {"name": f"{label}: keystroke echo p50", "value": stream["echo_p50"], "unit": "ms",
         "target": "<= 50"},
        {"name": f"{label}: keystroke echo p95", "value": stream["echo_p95"], "unit": "ms",
         "target": "<= 50"},
        {"name": f"{label}: keystroke echo max ({stream['keys']} keys)",
         "value": stream["echo_max"], "unit": "ms", "target": "-"},
        {"name": f"{label}: CPU while streaming", "value": stream["cpu"], "unit": "% core",
         "target": "<= 50"},
        {"name": f"{label}: CPU of the UI process alone", "value": stream["ui_cpu"],
         "unit": "% core", "target": "-"},
        {"name": f"{label}: final frame after last chunk", "value": stream["final"],
         "unit": "ms", "target": "<= 100"},
        {"name": f"{label}: server rate achieved", "value": stream["rate"], "unit": "tok/s",
         "target": "-"},
    ]


def run() -> list[dict]:
    rows: list[dict] = []
    for rate in (1000, 100):
        got = launch(rate, TYPED_AFTER_S, prompts=2)
        first, later = got["streams"]  # type: ignore[misc]
        if rate == 1000:
            rows += [
                {"name": "e2e tmux: first frame from launch (drawn before Textual)",
                 "value": got["first_frame"], "unit": "ms", "target": "<= 300"},
                {"name": "e2e tmux: Textual's first frame from launch",
                 "value": got["app_frame"], "unit": "ms", "target": "-"},
                {"name": "e2e tmux: session ready from launch (status shows the model)",
                 "value": got["ready"], "unit": "ms", "target": "-"},
                {"name": "e2e tmux: Enter -> request, typed 3 s after launch",
                 "value": first["enter_to_request"], "unit": "ms", "target": "<= 300"},
                {"name": "e2e tmux: Enter -> request, later prompt",
                 "value": later["enter_to_request"], "unit": "ms", "target": "<= 300"},
            ]
        rows += _rows(f"e2e tmux {rate:,} tok/s, first prompt", first)
        rows += _rows(f"e2e tmux {rate:,} tok/s, later prompt", later)
    soon = launch(1000, None, prompts=1)
    first = soon["streams"][0]  # type: ignore[index]
    rows += [
        {"name": "e2e tmux: Enter -> request, typed at the first frame",
         "value": first["enter_to_request"], "unit": "ms", "target": "<= rest of warm-up"},
    ]
    rows += _rows("e2e tmux 1,000 tok/s, typed at the first frame", first)
    return rows + _aider_rows()


if __name__ == "__main__":
    for row in run():
        value = row["value"]
        shown = f"{value:,.1f}" if isinstance(value, float) else str(value)
        print(f"{row['name']:<66} {shown:>10} {row['unit']:<7} target {row['target']}")
