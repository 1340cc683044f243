"""Reading what is not a regular file: a FIFO blocks a read forever, /dev/zero never ends.

Every attempt runs in a daemon thread with its own event loop under a 5 s guard (a blocked read
cannot be cancelled, and would stop the test's loop), so a regression fails instead of hanging
the suite; contained = a quick, clear refusal (or the file skipped), never a hang.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest

from valarmind_tui.core.errors import UsageError
from valarmind_tui.safety.content import NotRegularFile, check_regular, read_regular_bytes
from valarmind_tui.session.session import Session
from valarmind_tui.tools.base import ToolContext, ToolResult
from valarmind_tui.tools.catalog import builtin_tools
from valarmind_tui.tools.files.grep import Grep

GUARD_S = 5.0
T = TypeVar("T")


def quickly(make: Callable[[], Awaitable[T] | T]) -> T:
    """`make()` (awaited when it is a coroutine) within GUARD_S seconds, or the test fails."""
    box: dict[str, Any] = {}

    def target() -> None:
        async def main() -> Any:
            value = make()
            return await value if asyncio.iscoroutine(value) else value

        try:
            box["value"] = asyncio.run(main())
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(GUARD_S)
    if thread.is_alive():
        pytest.fail(f"still blocked after {GUARD_S} s: the read hung")
    if "error" in box:
        raise box["error"]
    return box["value"]


def tool(repo: Path, name: str, **arguments: Any) -> ToolResult:
    found = builtin_tools().get(name)
    assert found is not None
    return quickly(lambda: found.run(found.parse(arguments), ToolContext(project_root=repo)))


@pytest.fixture
def fifo(git_repo: Path) -> Path:
    path = git_repo / "pipe.txt"
    os.mkfifo(path)
    return path


@pytest.fixture
def unix_socket(git_repo: Path) -> Iterator[Path]:
    path = git_repo / "daemon.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        sock.listen(1)
        yield path


def test_read_file_refuses_a_fifo(fifo: Path) -> None:
    result = tool(fifo.parent, "read_file", path="pipe.txt")
    assert result.is_error and "pipe.txt is a FIFO, not a regular file; not read" in result.output


def test_read_file_refuses_a_symlink_to_a_fifo(fifo: Path) -> None:
    os.symlink("pipe.txt", fifo.parent / "innocent.md")
    result = tool(fifo.parent, "read_file", path="innocent.md")
    assert result.is_error and "is a FIFO" in result.output


def test_read_file_refuses_a_socket(unix_socket: Path) -> None:
    result = tool(unix_socket.parent, "read_file", path="daemon.sock")
    assert result.is_error and "is a socket" in result.output


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/stdin", "/dev/urandom"])
def test_read_file_of_a_device(git_repo: Path, device: str) -> None:
    result = tool(git_repo, "read_file", path=device)
    assert result.is_error  # outside the project, and not a regular file either


def test_read_file_through_a_symlink_to_dev_zero(git_repo: Path) -> None:
    os.symlink("/dev/zero", git_repo / "zeros.bin")
    result = tool(git_repo, "read_file", path="zeros.bin")
    assert result.is_error


def test_devices_are_not_regular_files() -> None:
    for device, kind in (("/dev/zero", "character device"), ("/dev/null", "character device")):
        with pytest.raises(NotRegularFile, match=kind):
            read_regular_bytes(Path(device))
    with pytest.raises(NotRegularFile, match="a directory"):
        check_regular(Path("/"))


def test_read_many_files_named_fifo(fifo: Path) -> None:
    result = tool(fifo.parent, "read_many_files", paths=["pipe.txt", "README.md"])
    assert "pipe.txt is a FIFO" in result.output and "# demo" in result.output


def test_read_many_files_glob_over_a_fifo(fifo: Path) -> None:
    result = tool(fifo.parent, "read_many_files", paths=["*.txt", "*.md"])
    assert "# demo" in result.output


@pytest.mark.parametrize("backend", ["rg", "python"])
def test_grep_on_a_fifo(fifo: Path, backend: str) -> None:
    grep = Grep(backend)  # type: ignore[arg-type]
    params = grep.parse({"pattern": "x", "path": "pipe.txt"})
    result = quickly(lambda: grep.run(params, ToolContext(project_root=fifo.parent)))
    assert result.is_error and "is a FIFO" in result.output


@pytest.mark.parametrize("backend", ["rg", "python"])
def test_grep_across_a_tree_with_a_fifo_and_a_socket(
    fifo: Path, unix_socket: Path, backend: str
) -> None:
    grep = Grep(backend)  # type: ignore[arg-type]
    result = quickly(lambda: grep.run(grep.parse({"pattern": "greet"}),
                                      ToolContext(project_root=fifo.parent)))
    assert "app.py:1:def greet(name):" in result.output


def test_grep_with_a_fifo_named_gitignore(git_repo: Path) -> None:
    (git_repo / "sub").mkdir()
    os.mkfifo(git_repo / "sub" / ".gitignore")
    (git_repo / "sub" / "x.py").write_text("greet = 1\n")
    grep = Grep("python")
    result = quickly(lambda: grep.run(grep.parse({"pattern": "greet"}),
                                      ToolContext(project_root=git_repo)))
    assert "sub/x.py:1:greet = 1" in result.output


def test_edit_file_on_a_fifo(fifo: Path) -> None:
    result = tool(fifo.parent, "edit_file", path="pipe.txt", old_string="a",
                        new_string="b")
    assert result.is_error and "FIFO" in result.output


def test_write_file_preview_of_a_fifo_does_not_hang(fifo: Path) -> None:
    write = builtin_tools().get("write_file")
    assert write is not None
    params = write.parse({"path": "pipe.txt", "content": "x"})
    with pytest.raises(NotRegularFile):
        quickly(lambda: write.preview(params, ToolContext(project_root=fifo.parent)))


def test_attach_of_a_fifo(fifo: Path) -> None:
    owner = SimpleNamespace(project_root=fifo.parent)

    def attach() -> str:
        return Session.attach(owner, "pipe.txt")  # type: ignore[arg-type]

    with pytest.raises(UsageError, match="pipe.txt is a FIFO, not a regular file"):
        quickly(attach)


def test_fifos_where_valarmind_reads_at_start_never_hang(git_repo: Path) -> None:
    """A cloned repository whose config, agent, ignore and source files are FIFOs: start-up,
    /help and the repo map still finish (the FIFOs are skipped or named, never opened)."""
    import os
    import subprocess
    import sys

    (git_repo / ".valarmind" / "agents").mkdir(parents=True)
    for rel in (".valarmind/config.toml", ".valarmind/agents/spy.md", ".gitignore", "mod.py",
                "VALARMIND.md", ".mcp.json", "external-agents.json", "Makefile"):
        os.mkfifo(git_repo / rel)
    # no model: /init drafts from the signals (the FIFOs among them) instead of calling one
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    for args in (["-p", "/help", "--trust-project"], ["map"], ["-p", "/init"]):
        out = subprocess.run([sys.executable, "-m", "valarmind_tui", *args], cwd=git_repo,
                             capture_output=True, text=True, env=env, timeout=60)
        assert "Traceback" not in out.stderr, out.stderr
