"""TUI memory, as the system counts it: `valarmind` in tmux (120x40) with a fresh HOME and a
small git project, a model server on 127.0.0.1 (OpenAI-style SSE through LiteLLM over HTTP).

PSS (proportional set size: shared pages divided among the processes sharing them) summed over
the whole process tree from /proc/PID/smaps_rollup:
- idle: once the session is ready and the model process has imported LiteLLM;
- after 30 prompts, each answered with ~2,000 tokens (issue #36: 356 MB; Aider 281 MB).
Each process's own figure is printed beside the sum (the UI process, the model process: named by
its command line, or by its comm `valarmind-model` when it is the UI forked), and, after the 30
prompts, Enter -> answer drawn for the last five (a later prompt of a long session) and
keystroke echo in the idle prompt (issue #36: 6.7 ms; Aider 3.4 ms): a 'z' typed every
50-150 ms, timed until the screen shows it. Measured 4.7-10 ms p50 at load 2-9 on the 2 shared
cores, of which ~2.5 ms is the harness itself (a raw Python echo loop in the same tmux) and
~2.8 ms Textual's path inside the app (docs/turn-speed.md).

Session 41, one sitting alternating main and the branch, load 2-3 (docs/memory.md): idle 277.7
/ 271.0 -> 225.0 / 212.4 MB (UI 94.7 -> 55.5, model 183.0 -> 169.4); after 30 prompts 317.4 ->
286.6 MB (UI 122.9 -> 108.2, model 194.5 -> 178.4; 275.6-286.8 in four runs).
Session 42, the history measured by the tokens its server reports (`--count-prompt`), six
alternating pairs at load 4-11: after 30 prompts 280.3-301.8 -> 260.4-280.7 MB (UI 103.2-126.1
-> 83.4-103.7: tiktoken no longer loaded in the UI).
Session 42, `--import-all` (providers/import_less.py off) alternated with it on, load 5-6:
idle 216.8-218.4 -> 191.9-193.8 MB (model 167.7-168.7 -> 142.9-143.8); after 30 prompts
305.5 -> 273.4 MB (model 177.0 -> 151.9). Another sitting, with LiteLLM's claude_json_str
also dropped (both ways), load 7-12: idle 206.0-206.7 -> 179.9-181.3 MB, after 30 prompts
297.0 -> 276.7 MB.

Session 43, `--resumed` (the count the provider reported kept with the stored session), four
alternating pairs at load 4.5-7: the UI after the resumed session's first prompt, PSS 95.5-97.3
-> 66.8-69.3 MB, RSS 111.8-114.0 -> 82.5-83.9 MB (tiktoken no longer loaded).

Run alone: `.ci/with-env python benchmarks/memory_bench.py [--idle] [--import-all] [--resumed]`
(`--import-all`: every package imported whole, providers/import_less.py turned off;
`--resumed`: 30 prompts, the app left, `valarmind --continue`, one prompt: the UI's figures)
(or `benchmarks/run.py memory_bench`, which measures idle only).
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.e2e_bench import (  # noqa: E402
    ECHO_KEY,
    KEYS_PER_LINE,
    PacedServer,
    _command,
    _echoes,
    _env,
    _status,
    ready_session,
)
from benchmarks.e2e_server import END_MARKER  # noqa: E402
from benchmarks.e2e_terminal import Terminal  # noqa: E402

ANSWER_TOKENS = 2000
RATE = 20_000
PROMPTS = 30
ECHO_KEYS = 60
SETTLE_S = 8.0
"""After the session is ready: LiteLLM's import in the model process and the warm-up end."""


def tree(pid: int) -> list[int]:
    """`pid` and its descendants."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return found


def pss_kb(pid: int) -> int:
    """The PSS of one process in kB (0 once it has gone)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def _name(pid: int) -> str:
    """The role of a process of the tree: a forked model process is named by its comm (its
    command line is the UI's), one started afresh by its command line."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
    except FileNotFoundError:
        return "?"
    if comm == "valarmind-model" or b"valarmind_tui.providers.process.worker" in argv:
        return "model process"
    return "UI" if any(b"valarmind" in a for a in argv) else argv[0].decode(errors="replace")


def rss_mb(pid: int) -> float:
    """The resident set of one process in MB, shared pages counted whole (0 once gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0.0


def tiktoken_mapped(pid: int) -> bool:
    """Whether tiktoken's Rust extension is mapped into the process (an encoding was loaded)."""
    try:
        return "_tiktoken" in Path(f"/proc/{pid}/maps").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False


def measure(pid: int) -> dict[str, float]:
    """MB of PSS per process of the tree (by role), and "total"."""
    figures: dict[str, float] = {}
    for member in tree(pid):
        name = _name(member)
        figures[name] = figures.get(name, 0.0) + pss_kb(member) / 1024
    figures["total"] = sum(figures.values())
    return figures


def idle_echo(term: Terminal, keys: int = ECHO_KEYS) -> list[float]:
    """Seconds from each typed key to the screen showing it, in the idle prompt (sorted)."""
    rng = random.Random(keys)
    baseline, typed, echoes = _echoes(term.screen()), 0, []
    for _ in range(keys):
        if typed == KEYS_PER_LINE:
            term.key("C-u")
            term.wait(lambda lines: _echoes(lines) <= baseline, 10, "the prompt emptied")
            typed = 0
        time.sleep(rng.uniform(0.05, 0.15))
        typed += 1
        sent = time.time()
        term.type(ECHO_KEY)
        echoes.append(term.wait(lambda lines, want=baseline + typed: _echoes(lines) >= want, 10,
                                f"echo of key {typed}") - sent)
    term.key("C-u")
    return sorted(echoes)


def launch(prompts: int) -> list[dict[str, float]]:
    """Idle figures, then (with `prompts`) the figures after that many answered prompts."""
    with tempfile.TemporaryDirectory(prefix="valarmind-memory-") as tmp:
        home = Path(tmp)
        # the usage a real provider reports: the session measures its history by it
        server = PacedServer(RATE, ANSWER_TOKENS, "--count-prompt")
        # --import-all: providers/import_less.py off, the figure before
        env = {"VALARMIND_IMPORT_ALL": "1"} if "--import-all" in sys.argv else {}
        with ready_session(server, home, env=env, settle_s=SETTLE_S) as term:
            pid = term.pid()
            results = [measure(pid)]
            if prompts:
                drawn = [answered(term, n) for n in range(1, prompts + 1)]
                time.sleep(2.0)
                results.append(measure(pid))
                results[-1]["tokenizer_in_ui"] = float(tiktoken_mapped(pid))
                results[-1]["enter_to_drawn_last5_ms"] = statistics.median(drawn[-5:]) * 1000
                echoes = idle_echo(term)
                results[-1]["echo_p50_ms"] = statistics.median(echoes) * 1000
                results[-1]["echo_p95_ms"] = echoes[round(0.95 * (len(echoes) - 1))] * 1000
            return results


def answered(term: Terminal, n: int) -> float:
    """Prompt `n` typed and sent: seconds from Enter to its answer drawn, once it finished."""
    prompt = f"explain app.py, part {n}"
    term.type(prompt)
    term.wait(lambda lines: any(prompt in line for line in lines), 10, "the typed prompt")
    enter = time.time()
    term.key("Enter")
    marker = f"{END_MARKER}-{n}"
    drawn = term.wait(lambda lines: any(marker in line for line in lines), 60, f"answer {n}")
    term.wait(lambda lines: _status(lines).lstrip().startswith("○"), 30, "the turn to finish")
    return drawn - enter


def resumed(prompts: int) -> list[dict[str, float]]:
    """The UI after `prompts` answered, the app left, then `valarmind --continue`: its figures
    once ready, then once the resumed session's first prompt is answered (its history passes
    the window's threshold by its bytes, not by the tokens the server reported)."""
    with tempfile.TemporaryDirectory(prefix="valarmind-memory-") as tmp:
        home = Path(tmp)
        with ready_session(PacedServer(RATE, ANSWER_TOKENS, "--count-prompt"), home,
                           settle_s=SETTLE_S) as term:
            for n in range(1, prompts + 1):
                answered(term, n)
            time.sleep(2.0)  # the last messages stored
        server = PacedServer(RATE, ANSWER_TOKENS, "--count-prompt")
        config = home / "cfg" / "valarmind" / "config.toml"
        config.write_text(f'model = "openai/fake-model"\n'
                          f'api_base = "http://127.0.0.1:{server.port}/v1"\n')
        term = Terminal([*_command(), "--continue"], home / "project", _env(home))
        try:
            term.wait(lambda lines: "mode:" in _status(lines), 60, "the resumed session")
            time.sleep(SETTLE_S)
            pid = term.pid()
            results = []
            for step in range(2):
                if step:
                    answered(term, prompts + 1)
                    time.sleep(2.0)
                results.append({**measure(pid), "ui_rss": rss_mb(pid),
                                "tokenizer_in_ui": float(tiktoken_mapped(pid))})
            return results
        finally:
            term.quit()
            server.stop()


_TIMES = ("total", "enter_to_drawn_last5_ms", "echo_p50_ms", "echo_p95_ms", "tokenizer_in_ui",
          "ui_rss")


def _rows(label: str, figures: dict[str, float]) -> list[dict]:
    rows = [{"name": f"TUI memory {label}: PSS of the process tree", "value": figures["total"],
             "unit": "MB", "target": "<= 186 (Aider)" if label == "idle" else "<= 281 (Aider)"}]
    rows += [{"name": f"TUI memory {label}: PSS of {name}", "value": value, "unit": "MB",
              "target": "-"} for name, value in figures.items()
             if name not in _TIMES]
    if "enter_to_drawn_last5_ms" in figures:
        rows += [
            {"name": f"{label}: Enter -> answer drawn, median of the last 5",
             "value": figures["enter_to_drawn_last5_ms"], "unit": "ms", "target": "-"},
            {"name": f"{label}: keystroke echo p50 ({ECHO_KEYS} keys, idle prompt)",
             "value": figures["echo_p50_ms"], "unit": "ms", "target": "<= 3.4 (Aider)"},
            {"name": f"{label}: keystroke echo p95", "value": figures["echo_p95_ms"],
             "unit": "ms", "target": "-"},
            {"name": f"{label}: tiktoken loaded in the UI (1 yes, 0 no)",
             "value": figures["tokenizer_in_ui"], "unit": "", "target": "0"},
        ]
    return rows


def run(prompts: int = 0) -> list[dict]:
    got = launch(prompts)
    rows = _rows("idle", got[0])
    if prompts:
        rows += _rows(f"after {prompts} prompts of ~{ANSWER_TOKENS:,} tokens", got[1])
    return rows


def run_resumed(prompts: int = PROMPTS) -> list[dict]:
    rows = []
    for label, figures in zip(("resumed, ready", "resumed, first prompt answered"),
                              resumed(prompts), strict=True):
        rows += [{"name": f"{label}: PSS of {name}", "value": value, "unit": "MB",
                  "target": "-"} for name, value in figures.items() if name not in _TIMES]
        rows += [{"name": f"{label}: PSS of the process tree", "value": figures["total"],
                  "unit": "MB", "target": "-"},
                 {"name": f"{label}: RSS of UI", "value": figures["ui_rss"], "unit": "MB",
                  "target": "-"},
                 {"name": f"{label}: tiktoken loaded in the UI (1 yes, 0 no)",
                  "value": figures["tokenizer_in_ui"], "unit": "", "target": "0"}]
    return rows


if __name__ == "__main__":
    chosen = (run_resumed() if "--resumed" in sys.argv
              else run(0 if "--idle" in sys.argv else PROMPTS))
    for row in chosen:
        print(f"{row['name']:<64} {row['value']:>8.1f} {row['unit']:<3} target {row['target']}")
