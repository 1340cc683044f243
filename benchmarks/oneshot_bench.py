"""The one-shot: `valarmind -p "say hi"` answered by a local model server, whole process.

Through the real path: the `valarmind` command in a fresh HOME and a small git project, real
HTTP to tests/fakes/model_server.py (OpenAI wire format) in its own process, LiteLLM in the
model daemon (providers/daemon/) or in the run itself. Three ways, alternated each round:
- `--no-daemon`: the run imports and calls LiteLLM itself (what every run did before);
- daemon cold: no daemon running; the run starts one and is served by it;
- daemon warm: a daemon from the run before serves it.
Each: wall time from spawn to exit, the run's CPU (user + system, from its rusage), and for the
daemon ways the daemon's CPU over the same run (/proc/PID/stat), so "whole process" stays honest.

Run alone: `.ci/with-env python benchmarks/oneshot_bench.py [--rounds N]`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from valarmind_tui.providers.daemon.protocol import build  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


class FakeServer:
    """tests/fakes/model_server.py in its own process, answering "Hi!" to every request."""

    def __init__(self, workdir: Path, answers: int = 500) -> None:
        script = workdir / "script.json"
        script.write_text(json.dumps([{"text": "Hi! How can I help?"}] * answers))
        port_file = workdir / "port"
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.model_server", "--script", str(script),
             "--port-file", str(port_file)], cwd=ROOT, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not port_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.port = int(port_file.read_text())

    def stop(self) -> None:
        self._proc.terminate()
        self._proc.wait(timeout=10)


def _command() -> list[str]:
    exe = Path(sys.executable).parent / "valarmind"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "valarmind_tui"]


def _setup(workdir: Path) -> tuple[Path, dict[str, str]]:
    home, project, runtime = workdir / "home", workdir / "project", workdir / "run"
    for folder in (home, project):
        folder.mkdir()
    runtime.mkdir(mode=0o700)
    (home / ".config/valarmind").mkdir(parents=True)
    (home / ".config/valarmind/config.toml").write_text('api_key_env = "BENCH_API_KEY"\n')
    (project / "README.md").write_text("# bench\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "XDG_RUNTIME_DIR": str(runtime), "BENCH_API_KEY": "sk-bench",
           "LANG": os.environ.get("LANG", "C.UTF-8")}
    return project, env


def daemon_pid(runtime: Path, env: dict[str, str]) -> int | None:
    """The daemon's pid from its greeting, greeted as the runs greet it (a greeting of another
    build would make it leave)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    try:
        sock.connect(str(runtime / "valarmind" / "model.sock"))
        sock.sendall(json.dumps({"hello": build(env)}).encode() + b"\n")
        return int(json.loads(sock.makefile("rb").readline())["pid"])
    except (OSError, ValueError, KeyError):
        return None
    finally:
        sock.close()


def _cpu_of(pid: int | None) -> float:
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def end_daemon(runtime: Path, env: dict[str, str]) -> None:
    pid = daemon_pid(runtime, env)
    if pid is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        time.sleep(0.05)


def one_run(project: Path, env: dict[str, str], port: int, *extra: str
            ) -> tuple[float, float, float]:
    """Wall, the run's CPU, the daemon's CPU over the run (seconds)."""
    runtime = Path(env["XDG_RUNTIME_DIR"])
    before_pid = daemon_pid(runtime, env) if "--no-daemon" not in extra else None
    daemon_before = _cpu_of(before_pid)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(
        [*_command(), "-p", "say hi", "--model", "openai/fake-model",
         "--api-base", f"http://127.0.0.1:{port}/v1", *extra],
        cwd=project, env=env, capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0 or "Hi!" not in out.stdout:
        raise RuntimeError(f"the run failed: {out.stderr[-500:]}")
    cpu = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
    daemon = 0.0
    if "--no-daemon" not in extra:
        pid = daemon_pid(runtime, env)
        daemon = _cpu_of(pid) - (daemon_before if pid == before_pid else 0.0)
    return wall, cpu, daemon


def run(rounds: int = 5) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="valarmind-oneshot-") as tmp:
        workdir = Path(tmp)
        project, env = _setup(workdir)
        runtime = Path(env["XDG_RUNTIME_DIR"])
        server = FakeServer(workdir)
        figures: dict[str, list[tuple[float, float, float]]] = {
            "--no-daemon": [], "daemon cold": [], "daemon warm": []}
        try:
            one_run(project, env, server.port, "--no-daemon")  # the OS file cache warmed
            for _ in range(rounds):
                figures["--no-daemon"].append(one_run(project, env, server.port, "--no-daemon"))
                end_daemon(runtime, env)
                figures["daemon cold"].append(one_run(project, env, server.port))
                figures["daemon warm"].append(one_run(project, env, server.port))
        finally:
            end_daemon(runtime, env)
            server.stop()
    rows = []
    for name, runs in figures.items():
        walls, cpus, daemons = zip(*runs, strict=True)
        rows += [
            {"name": f"-p say hi, {name}: wall (median)", "value": statistics.median(walls),
             "unit": "s", "target": "<= best peer (Codex exec 0.27 s)"},
            {"name": f"-p say hi, {name}: the run's CPU (median)",
             "value": statistics.median(cpus), "unit": "s"},
        ]
        if name != "--no-daemon":
            rows.append({"name": f"-p say hi, {name}: the daemon's CPU (median)",
                         "value": statistics.median(daemons), "unit": "s"})
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    for row in run(parser.parse_args().rounds):
        print(f"{row['name']:<55} {row['value']:.3f} {row['unit']}")
