"""A real terminal for the end-to-end benchmark: a private tmux server, one 120x40 pane, and one
control-mode client (`tmux -C`) through which keys are sent and the screen is read.

A control-mode client takes commands on a pipe, so reading the screen every few milliseconds costs
a round trip, not a new tmux process per look (which would take a core of this machine).
"""

from __future__ import annotations

import os
import select
import subprocess
import time
import uuid
from pathlib import Path

WIDTH, HEIGHT = 120, 40


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


class Terminal:
    """tmux running `command` in a 120x40 pane; `screen()` is what a person sees."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str]) -> None:
        self._base = ["tmux", "-L", f"valarmind-bench-{uuid.uuid4().hex[:8]}", "-f", "/dev/null"]
        self._env = env
        subprocess.run([*self._base, "new-session", "-d", "-s", "b", "-x", str(WIDTH),
                        "-y", str(HEIGHT), "-c", str(cwd), *command], env=env, check=True,
                       timeout=10)
        subprocess.run([*self._base, "set", "-g", "window-size", "manual"], env=env, check=True,
                       timeout=10)
        self._client = subprocess.Popen(
            [*self._base, "-C", "attach", "-t", "b"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, env=env, text=True, bufsize=1)
        assert self._client.stdout is not None
        for row in self._client.stdout:  # attached once tmux says which session it shows
            if row.startswith("%session-changed"):
                break
        self._command("refresh-client -f no-output")

    def _command(self, line: str) -> list[str]:
        """Run one tmux command through the control client; its output lines."""
        assert self._client.stdin is not None and self._client.stdout is not None
        self._client.stdin.write(line + "\n")
        self._client.stdin.flush()
        out: list[str] = []
        inside = False
        while True:
            row = self._client.stdout.readline()
            if not row:
                raise RuntimeError(f"tmux control client ended during {line!r}")
            row = row.rstrip("\n")
            if not inside:  # flags 1: the reply to a command of this client (0: attach's own)
                inside = row.startswith("%begin ") and row.split()[-1] == "1"
                continue
            if row.startswith(("%end ", "%error ")) and len(row.split()) == 4:
                if row.startswith("%error "):
                    raise RuntimeError(f"tmux: {line!r} failed: {out}")
                return out
            out.append(row)

    def screen(self) -> list[str]:
        return self._command("capture-pane -p -t b")

    def type(self, text: str) -> None:
        self._command(f"send-keys -t b -l {_quote(text)}")

    def key(self, name: str) -> None:
        self._command(f"send-keys -t b {name}")

    def size(self) -> str:
        return self._command("display -p -t b '#{pane_width}x#{pane_height}'")[0]

    def pid(self) -> int:
        return int(self._command("display -p -t b '#{pane_pid}'")[0])

    def wait(self, until: object, timeout: float, what: str) -> float:
        """Read the screen until `until(lines)` holds; the wall-clock time it was first seen."""
        deadline = time.monotonic() + timeout
        while True:
            lines = self.screen()
            seen = time.time()
            if until(lines):  # type: ignore[operator]
                return seen
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {what} after {timeout} s; screen:\n" + "\n".join(lines))
            time.sleep(0.002)

    def output_clock(self) -> OutputClock:
        """A second control client that sees the pane's output as it is written (close it)."""
        return OutputClock(self._base, self._env)

    def quit(self) -> None:
        """Ctrl+C twice (the app asks once, then leaves), a moment to restore the screen, then
        close the terminal."""
        self.key("C-c")
        self.key("C-c")
        time.sleep(0.3)
        self.close()

    def close(self) -> None:
        try:
            if self._client.stdin is not None:
                self._client.stdin.close()
            self._client.wait(timeout=5)
        finally:
            subprocess.run([*self._base, "kill-server"], env=self._env, capture_output=True,
                           timeout=10)


class OutputClock:
    """Times keys by the pane's output, not by reading the screen.

    Reading the screen every 2 ms puts a floor of ~2.5 ms under any echo (a raw echo loop reads
    2.5 there, `cat`, echoed by the kernel, 0.4): tmux tells a control client with output on
    what the pane wrote as it reads it (`%output`), so the time from sending a key to the first
    output holding it is the tool's echo plus tmux's own ~0.35 ms, alike for every tool.
    """

    def __init__(self, base: list[str], env: dict[str, str]) -> None:
        self._client = subprocess.Popen([*base, "-C", "attach", "-t", "b"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        assert self._client.stdout is not None
        self._out = self._client.stdout.fileno()
        self._pending = b""
        while not self._line(10.0).startswith(b"%session-changed"):
            pass

    def _line(self, timeout: float) -> bytes:
        """The client's next line, or b"" when none came within `timeout` seconds."""
        deadline = time.perf_counter() + timeout
        while b"\n" not in self._pending:
            left = deadline - time.perf_counter()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                return b""
            chunk = os.read(self._out, 65536)
            if not chunk:
                raise RuntimeError("tmux control client ended")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line

    def type_until_shown(self, text: str, timeout: float = 10.0) -> float:
        """Types `text` (literally) once the pane has been quiet for 30 ms (or after 1 s);
        seconds until the pane writes it."""
        assert self._client.stdin is not None
        quiet_by = time.perf_counter() + 1.0  # a pane that never goes quiet is timed as it is
        while self._line(0.03) and time.perf_counter() < quiet_by:
            pass
        sent = time.perf_counter()
        self._client.stdin.write(f"send-keys -t b -l {_quote(text)}\n".encode())
        self._client.stdin.flush()
        wanted = text.encode()
        while (left := sent + timeout - time.perf_counter()) > 0:
            line = self._line(left)
            # "%output %PANE DATA", DATA's control bytes and backslashes written as octal escapes
            if line.startswith(b"%output ") and wanted in line.split(b" ", 2)[2]:
                return time.perf_counter() - sent
        raise TimeoutError(f"the pane never wrote {text!r}")

    def close(self) -> None:
        if self._client.stdin is not None:
            self._client.stdin.close()
        self._client.wait(timeout=5)


def own_cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` alone (its threads, not its children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` and its descendants (threads included)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rpartition(")")[2].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total
