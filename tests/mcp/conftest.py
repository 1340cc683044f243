"""Real MCP servers for the MCP tests, installed once and cached between runs.

npm servers go to benchmarks/.cache/mcp-npm (gitignored; MCP_TEST_NPM_DIR overrides). When npm
is missing or the install fails, the tests that need them FAIL with the reason: never a skip.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NPM_PACKAGES = (
    "@modelcontextprotocol/server-filesystem", "@modelcontextprotocol/server-everything",
)
VENV_BIN = Path(sys.executable).parent
VALARMIND = str(VENV_BIN / "valarmind")


def npm_dir() -> Path:
    return Path(os.environ.get("MCP_TEST_NPM_DIR") or REPO / "benchmarks" / ".cache" / "mcp-npm")


def _bins(prefix: Path) -> dict[str, Path]:
    bin_dir = prefix / "node_modules" / ".bin"
    return {"filesystem": bin_dir / "mcp-server-filesystem",
            "everything": bin_dir / "mcp-server-everything"}


def install_npm_servers() -> dict[str, Path]:
    """Paths of the npm servers' executables, installing them when missing (bounded to 5 min)."""
    prefix = npm_dir()
    bins = _bins(prefix)
    if all(p.exists() for p in bins.values()):
        return bins
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.fail("node/npm not found on PATH: the MCP interop tests need them to install "
                    f"{', '.join(NPM_PACKAGES)}", pytrace=False)
    prefix.mkdir(parents=True, exist_ok=True)
    try:
        out = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), *NPM_PACKAGES],
            capture_output=True, text=True, timeout=300,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("npm install of the MCP test servers took more than 5 minutes", pytrace=False)
    if out.returncode != 0 or not all(p.exists() for p in bins.values()):
        pytest.fail(f"npm install of {NPM_PACKAGES} failed:\n{out.stderr[-2000:]}", pytrace=False)
    return bins


@pytest.fixture(scope="session")
def npm_servers() -> dict[str, Path]:
    return install_npm_servers()


@pytest.fixture(scope="session")
def git_server_cmd() -> str:
    path = VENV_BIN / "mcp-server-git"
    if not path.exists():
        pytest.fail("mcp-server-git is not installed in the venv (dev dependency)", pytrace=False)
    return str(path)


ENV_SERVER = textwrap.dedent('''
    """A tiny MCP server for tests: reports its environment and pid; can hang."""
    import asyncio, os, sys
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("probe")

    @app.tool()
    def env() -> dict:
        """The server's environment variables."""
        return dict(os.environ)

    @app.tool()
    def pid() -> int:
        """The server's process id."""
        return os.getpid()

    @app.tool()
    async def hang(seconds: float = 30.0) -> str:
        """Sleep (to be killed mid-call)."""
        await asyncio.sleep(seconds)
        return "woke"

    @app.prompt()
    def greet(name: str) -> str:
        """Greet someone."""
        return f"Please greet {name} warmly."

    app.run()
''')


@pytest.fixture
def probe_server(tmp_path: Path) -> list[str]:
    """Command line of the tiny Python MCP server."""
    script = tmp_path / "probe_server.py"
    script.write_text(ENV_SERVER)
    return [sys.executable, str(script)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port} after {timeout_s} s")


@pytest.fixture
def http_process() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts; terminated afterwards."""
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


INSPECTOR_VERSION = "0.15.0"
"""The newest @modelcontextprotocol/inspector that runs on the machine's Node 20 (0.16 and later
declare node >= 22.7.5, so npm picks this one anyway)."""


def inspector_dir() -> Path:
    return npm_dir().parent / "mcp-inspector"


def install_inspector() -> Path:
    """The MCP Inspector's executable, installed once under benchmarks/.cache (what `npx -y
    @modelcontextprotocol/inspector` would fetch each time). A lock keeps xdist workers from
    installing it twice at once."""
    import fcntl

    prefix = inspector_dir()
    binary = prefix / "node_modules" / ".bin" / "mcp-inspector"
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if binary.exists():
            return binary
        npm = shutil.which("npm")
        if npm is None or shutil.which("node") is None:
            pytest.fail("node/npm not found on PATH: the Inspector tests need them",
                        pytrace=False)
        try:
            out = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix),
                 f"@modelcontextprotocol/inspector@{INSPECTOR_VERSION}"],
                capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            pytest.fail("npm install of the MCP Inspector took more than 5 minutes",
                        pytrace=False)
        if out.returncode != 0 or not binary.exists():
            pytest.fail(f"npm install of the MCP Inspector failed:\n{out.stderr[-2000:]}",
                        pytrace=False)
    return binary


@pytest.fixture(scope="session")
def inspector() -> Path:
    return install_inspector()
