"""The short turn, as a person meets it after a few prompts: `valarmind` in tmux (120x40), a model
server on 127.0.0.1 streaming a short OpenAI-style answer (~20 tokens) through LiteLLM over HTTP.

Per later prompt (the 2nd to the 5th of one launch, each typed once the last one finished):
- Enter -> request: from Enter until the model server reads the request;
- last chunk -> screen: from the server writing the answer's last chunk until the screen shows it;
- Enter -> answer drawn: from Enter until the screen shows the answer's last words (issue #36's
  "short turn": 461 ms before this was measured, Claude Code 147 ms on the same machine).
and the CPU seconds the process tree (UI and model process) spent per turn.

`--eager`: a person who types the next prompt while the answer streams and presses Enter the
moment its last words show (the run is still finishing: the checkpoint, a Stop hook). Such an
Enter was taken as a message for the finishing run, dropped, and given back to the prompt: if
nothing is drawn within RETRY_S the person presses Enter again. Reports how many prompts needed
that second Enter and Enter -> answer drawn from the first Enter: before such a message became
the next prompt, 0-2 of 10 later prompts (each drawn 530-590 ms after the first Enter); after,
none (docs/turn-speed.md).

Options: `--each` prints every prompt's figures; `--prompts N`, `--tokens N` (answer length),
`--read S` (seconds between an answer and the next prompt, the time a person reads).

Run alone: `.ci/with-env python benchmarks/turn_bench.py` (or `benchmarks/run.py turn_bench`).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.e2e_bench import PacedServer, _command, _status, ready_session  # noqa: E402
from benchmarks.e2e_server import END_MARKER  # noqa: E402
from benchmarks.e2e_terminal import Terminal, cpu_seconds  # noqa: E402

TOKENS = 20
RATE = 1000
PROMPTS = 5
RETRY_S = 0.4


def _idle(lines: list[str]) -> bool:
    return _status(lines).lstrip().startswith("○") and "mode:" in _status(lines)


def _turn(term: Terminal, server: PacedServer, n: int, read_s: float = 0.0
          ) -> dict[str, float]:
    time.sleep(read_s)
    prompt = f"explain app.py, part {n}"
    term.type(prompt)
    term.wait(lambda lines: any(prompt in line for line in lines), 10, "the typed prompt")
    marker = f"{END_MARKER}-{n}"
    pid = term.pid()
    cpu = cpu_seconds(pid)
    enter = time.time()
    term.key("Enter")
    drawn = term.wait(lambda lines: any(marker in line for line in lines), 30, "the answer")
    idle = term.wait(_idle, 30, "the turn to finish")
    request = float(server.wait("REQUEST", n)[0])
    last = float(server.wait("LAST", n)[0])
    return {"enter_to_request": (request - enter) * 1000, "last_to_screen": (drawn - last) * 1000,
            "enter_to_drawn": (drawn - enter) * 1000,
            "enter_to_idle": (idle - enter) * 1000, "cpu": cpu_seconds(pid) - cpu}


def launch(prompts: int = PROMPTS, read_s: float = 0.0, tokens: int = TOKENS
           ) -> list[dict[str, float]]:
    """One fresh `valarmind` (fresh HOME, small git project); the figures of each prompt."""
    server = PacedServer(RATE, tokens)
    with (tempfile.TemporaryDirectory(prefix="valarmind-turn-") as tmp,
          ready_session(server, Path(tmp), command=_command()) as term):
        return [_turn(term, server, n, read_s) for n in range(1, prompts + 1)]


def eager(prompts: int = 11) -> tuple[int, list[float]]:
    """`--eager`: (later prompts that needed a second Enter, Enter -> answer drawn in ms of
    each later prompt)."""
    server = PacedServer(RATE, TOKENS)
    with (tempfile.TemporaryDirectory(prefix="valarmind-turn-") as tmp,
          ready_session(server, Path(tmp), command=_command()) as term):
        term.type("explain app.py, part 1")
        retried, drawn_ms = 0, []
        for n in range(1, prompts + 1):
            marker = f"{END_MARKER}-{n}"
            enter = time.time()
            term.key("Enter")
            term.type(f"explain app.py, part {n + 1}")  # typed while the answer streams
            try:
                drawn = term.wait(lambda lines, m=marker: any(m in x for x in lines),
                                  RETRY_S if n > 1 else 30, "the answer")
            except TimeoutError:
                retried += 1
                term.key("C-u")  # what came back to the prompt, before the typed text
                term.type(f"explain app.py, part {n}")
                term.key("Enter")
                term.type(f"explain app.py, part {n + 1}")
                drawn = term.wait(lambda lines, m=marker: any(m in x for x in lines), 30,
                                  "the answer after a second Enter")
            if n > 1:
                drawn_ms.append((drawn - enter) * 1000)
        return retried, drawn_ms


def run() -> list[dict]:
    later = launch()[1:]

    def median(key: str) -> float:
        return statistics.median(t[key] for t in later)

    return [
        {"name": "short turn, later prompt: Enter -> request", "value": median("enter_to_request"),
         "unit": "ms", "target": "-"},
        {"name": "short turn, later prompt: last chunk -> screen",
         "value": median("last_to_screen"), "unit": "ms", "target": "<= 19 (Gemini CLI)"},
        {"name": "short turn, later prompt: Enter -> answer drawn",
         "value": median("enter_to_drawn"), "unit": "ms", "target": "<= 147 (Claude Code)"},
        {"name": "short turn, later prompt: CPU of the process tree", "value": median("cpu") * 1000,
         "unit": "ms", "target": "-"},
    ]


if __name__ == "__main__":
    def option(name: str, default: float) -> float:
        return float(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default

    if "--eager" in sys.argv:
        count = int(option("--prompts", 11))
        retried, drawn_ms = eager(count)
        print(f"eager: {retried} of {count - 1} later prompts needed a second Enter; "
              "Enter -> answer "
              f"drawn, median of the later ones: {statistics.median(drawn_ms):.1f} ms, "
              f"max {max(drawn_ms):.1f} ms")
    elif "--each" in sys.argv:
        each = launch(int(option("--prompts", PROMPTS)), option("--read", 0.0),
                      int(option("--tokens", TOKENS)))
        for i, figures in enumerate(each, 1):
            print(i, {k: round(v, 1) for k, v in figures.items()})
        print("median of the later prompts",
              {k: round(statistics.median(f[k] for f in each[1:]), 1) for k in each[0]})
    else:
        for row in run():
            print(f"{row['name']:<56} {row['value']:>9.1f} {row['unit']:<4} target {row['target']}")
