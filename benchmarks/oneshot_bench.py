"""The one-shot: `valarmind -p "say hi"` answered by a local model server, whole process.

Through the real path: the `valarmind` command in a fresh HOME and a small git project, real
HTTP to tests/fakes/model_server.py (OpenAI wire format) in its own process, LiteLLM in the
model daemon (providers/daemon/) or in the run itself. Three ways, alternated each round:
- `--no-daemon`: the run imports and calls LiteLLM itself (what every run did before);
- daemon cold: no daemon running; the run starts one and is served by it;
- daemon warm: a daemon from the run before serves it (the run server off:
  VALARMIND_RUN_SERVER=0, so the run imports its own modules);
- run server warm: the run server (cli/runserver/) forks the run from its warm modules, the
  daemon makes the call; the CPU counted is the client's, the forked child's (the server's
  reaped children) and the daemon's; "fresh HOME run server warm" the same in a new HOME
  (the first run there starts both servers, the second is timed);
- fresh HOME warm: as the held-out harness runs each tool, a HOME of its own and no
  XDG_RUNTIME_DIR (the daemon's socket then lives in the data dir under HOME): a first run
  there starts the daemon (not counted), the second is timed (the run server off);
Each: wall time from spawn to exit, the run's CPU (user + system, from its rusage), and for the
daemon ways the daemon's CPU over the same run (/proc/PID/stat), so "whole process" stays honest.

Run alone: `.ci/with-env python benchmarks/oneshot_bench.py [--rounds N] [--ways warm,...]`.
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

from valarmind_tui.cli.runserver.protocol import build as run_build  # noqa: E402
from valarmind_tui.cli.runserver.protocol import recv_frame, send_frame  # noqa: E402
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
    project, runtime = workdir / "project", workdir / "run"
    project.mkdir()
    runtime.mkdir(mode=0o700)
    (project / "README.md").write_text("# bench\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    env = {**_home(workdir / "home"), "XDG_RUNTIME_DIR": str(runtime)}
    return project, env


def _home(home: Path) -> dict[str, str]:
    """A new HOME with the key's variable named in its config; the run's environment there."""
    (home / ".config/valarmind").mkdir(parents=True)
    (home / ".config/valarmind/config.toml").write_text('api_key_env = "BENCH_API_KEY"\n')
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "BENCH_API_KEY": "sk-bench", "LANG": os.environ.get("LANG", "C.UTF-8")}


def _runtime(env: dict[str, str]) -> Path | None:
    return Path(env["XDG_RUNTIME_DIR"]) if "XDG_RUNTIME_DIR" in env else None


def _socket(runtime: Path | None, env: dict[str, str]) -> Path:
    """Where the runs in `env` find the daemon (providers/daemon/place.py): under `runtime`
    (their XDG_RUNTIME_DIR), or without one in the data dir under their HOME."""
    if runtime is not None:
        return runtime / "valarmind" / "model.sock"
    return Path(env["HOME"]) / ".local/share/valarmind/run/model.sock"


def daemon_pid(runtime: Path | None, env: dict[str, str]) -> int | None:
    """The daemon's pid from its greeting, greeted as the runs greet it (a greeting of another
    build would make it leave)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    try:
        sock.connect(str(_socket(runtime, env)))
        sock.sendall(json.dumps({"hello": build(env)}).encode() + b"\n")
        return int(json.loads(sock.makefile("rb").readline())["pid"])
    except (OSError, ValueError, KeyError):
        return None
    finally:
        sock.close()


def _cpu_of(pid: int | None, children: bool = False) -> float:
    """A process's CPU (with `children`: and that of its children it reaped)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    own = int(fields[11]) + int(fields[12])
    return (own + (int(fields[13]) + int(fields[14]) if children else 0)) / TICKS


def run_server_pid(runtime: Path | None, env: dict[str, str]) -> int | None:
    """The run server's pid, from a child's greeting (the child then leaves: nothing sent)."""
    path = _socket(runtime, env).with_name("run.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    try:
        sock.connect(str(path))
        send_frame(sock, {"hello": run_build()})
        hello, _ = recv_frame(sock)
        return int(hello["server"]) if hello else None
    except (OSError, ValueError, KeyError):
        return None
    finally:
        sock.close()


def served_cpu(server: int | None, before: float) -> float:
    """The run server's CPU and its reaped children's since `before`, once the last child is
    reaped (the server reaps each second)."""
    time.sleep(1.2)
    return _cpu_of(server, children=True) - before


def end_daemon(runtime: Path | None, env: dict[str, str]) -> None:
    pid = daemon_pid(runtime, env)
    if pid is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        time.sleep(0.05)


def end_run_server(runtime: Path | None, env: dict[str, str]) -> None:
    pid = run_server_pid(runtime, env)
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


def one_run(project: Path, env: dict[str, str], port: int, *extra: str
            ) -> tuple[float, float, float]:
    """Wall, the run's CPU, the daemon's CPU over the run (seconds)."""
    runtime = _runtime(env)
    before_pid = daemon_pid(runtime, env) if "--no-daemon" not in extra else None
    daemon_before = _cpu_of(before_pid)
    server = run_server_pid(runtime, env) if env.get("VALARMIND_RUN_SERVER") != "0" else None
    server_before = _cpu_of(server, children=True) if server else 0.0
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
    if server is not None:
        daemon += served_cpu(server, server_before)
    return wall, cpu, daemon


WAYS = ("--no-daemon", "daemon cold", "daemon warm", "fresh HOME warm", "run server warm",
        "fresh HOME run server warm")
NO_RUN_SERVER = {"VALARMIND_RUN_SERVER": "0"}


def run(rounds: int = 5, ways: tuple[str, ...] = WAYS) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="valarmind-oneshot-") as tmp:
        workdir = Path(tmp)
        project, served = _setup(workdir)
        env = {**served, **NO_RUN_SERVER}
        server = FakeServer(workdir)
        figures: dict[str, list[tuple[float, float, float]]] = {way: [] for way in ways}
        try:
            one_run(project, env, server.port, "--no-daemon")  # the OS file cache warmed
            one_run(project, env, server.port)  # a daemon for the first warm round
            for number in range(rounds):
                if "--no-daemon" in ways:
                    figures["--no-daemon"].append(
                        one_run(project, env, server.port, "--no-daemon"))
                if "daemon cold" in ways:
                    end_daemon(_runtime(env), env)
                    figures["daemon cold"].append(one_run(project, env, server.port))
                if "daemon warm" in ways:
                    figures["daemon warm"].append(one_run(project, env, server.port))
                if "run server warm" in ways:
                    one_run(project, served, server.port)  # a server, if the last one left
                    figures["run server warm"].append(one_run(project, served, server.port))
                if "fresh HOME run server warm" in ways:
                    fresh = _home(workdir / f"home-served-{number}")
                    try:
                        one_run(project, fresh, server.port)  # starts both servers
                        figures["fresh HOME run server warm"].append(
                            one_run(project, fresh, server.port))
                    finally:
                        end_run_server(None, fresh)
                        end_daemon(None, fresh)
                if "fresh HOME warm" in ways:
                    fresh = {**_home(workdir / f"home-{number}"), **NO_RUN_SERVER}
                    try:
                        one_run(project, fresh, server.port)  # starts this HOME's daemon
                        figures["fresh HOME warm"].append(one_run(project, fresh, server.port))
                    finally:
                        end_daemon(None, fresh)
        finally:
            end_run_server(_runtime(served), served)
            end_daemon(_runtime(env), env)
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
            rows.append({"name": f"-p say hi, {name}: the daemons' CPU (median)",
                         "value": statistics.median(daemons), "unit": "s"})
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ways", default=",".join(WAYS),
                        help=f"comma-separated, of: {', '.join(WAYS)}")
    args = parser.parse_args()
    chosen = tuple(w.strip() for w in args.ways.split(",") if w.strip())
    if unknown := [w for w in chosen if w not in WAYS]:
        parser.error(f"unknown ways {unknown}; known: {', '.join(WAYS)}")
    for row in run(args.rounds, chosen):
        print(f"{row['name']:<55} {row['value']:.3f} {row['unit']}")
