"""What the run server, its children and its clients agree on: where the socket is, which
build answers, when a run may be served, and the frames exchanged.

Frames are a 4-byte length and a JSON object. The client sends `{"hello": BUILD}`; the
forked child answers `{"hello": BUILD, "server": PID}` (plus `"stale": true` when the
server's code changed on disk since it imported it); the client then sends `{"argv", "cwd",
"env", "umask"}` with its stdin, stdout and stderr attached (SCM_RIGHTS); the child answers
`{"started": true}`, or `{"decline": REASON}` (the client runs in-process), and at the end
`{"exit": CODE}`. While the run goes on the client may send `{"signal": N}`.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from valarmind_tui import __version__
from valarmind_tui.providers.daemon.place import socket_path as model_socket_path

PROTOCOL = 1
"""Raised whenever the frames exchanged change meaning."""
SOCKET_NAME = "run.sock"
MAX_FRAME = 1 << 24
OFF_VALUES = frozenset({"0", "false", "f", "no", "n", "off"})
"""`VALARMIND_MODEL_DAEMON` values that turn the daemons off (pydantic's false strings)."""
HANDLED_PYTHON_ENV = frozenset({"PYTHONUNBUFFERED", "PYTHONIOENCODING",
                                "PYTHONDONTWRITEBYTECODE"})
"""`PYTHON*` variables a forked run honours; any other one changes how the interpreter starts
(PYTHONPATH, PYTHONUTF8, PYTHONPROFILEIMPORTTIME...), which a fork cannot redo: in-process."""


def socket_path() -> Path:
    """The run server's socket: beside the model daemon's, under the same rules."""
    return model_socket_path().with_name(SOCKET_NAME)


def build() -> str:
    """This build's identity: version, protocol, this installation, its environment and the
    interpreter (two checkouts of one version must not serve each other's runs)."""
    here = Path(__file__).resolve().parents[3]
    return f"{__version__}/{PROTOCOL}/{here}\0{sys.prefix}\0{sys.version}"


def turned_off(argv: Sequence[str], environ: Mapping[str, str]) -> bool:
    """`--no-daemon`, `VALARMIND_MODEL_DAEMON=0` or `model_daemon = false` in the user's
    config.toml (a repository's config cannot set it): the run server is not used either.
    `VALARMIND_RUN_SERVER=0` turns off the run server alone (the model daemon stays)."""
    if "--no-daemon" in argv:
        return True
    for name in ("VALARMIND_MODEL_DAEMON", "VALARMIND_RUN_SERVER"):
        if environ.get(name, "").strip().lower() in OFF_VALUES:
            return True
    value = user_config_value(environ, "model_daemon")
    return value is False or value is BROKEN  # a broken config: the in-process run reports it


BROKEN = object()
"""`user_config_value` of a config.toml that does not parse."""


def user_config_value(environ: Mapping[str, str], key: str) -> object:
    """`key` of the user's config.toml, read only when the file names it (the client does not
    load Settings); None when absent, BROKEN when the file does not parse."""
    config = Path(environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    try:
        text = (config / "valarmind" / "config.toml").read_bytes()
    except OSError:
        return None
    if key.encode() not in text:
        return None
    import tomllib

    try:
        return tomllib.loads(text.decode()).get(key)
    except (ValueError, UnicodeDecodeError):
        return BROKEN


def interpreter_env_set(environ: Mapping[str, str]) -> bool:
    """A `PYTHON*` variable a forked run could not honour (HANDLED_PYTHON_ENV aside)."""
    return any(name.startswith("PYTHON") and name not in HANDLED_PYTHON_ENV
               for name in environ)


def peer_uid(sock: socket.socket) -> int:
    """The user id of the process at the other end of a Unix socket (SO_PEERCRED)."""
    return peer_credentials(sock)[1]


def peer_credentials(sock: socket.socket) -> tuple[int, int, int]:
    """pid, uid, gid of the process at the other end when it connected (SO_PEERCRED; pid 0
    when it is in a pid namespace this process cannot see)."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", creds)
    return int(pid), int(uid), int(gid)


def send_frame(sock: socket.socket, message: Mapping[str, Any], fds: Sequence[int] = ()
               ) -> None:
    data = json.dumps(message).encode()
    frame = struct.pack("!I", len(data)) + data
    if fds:
        sent = socket.send_fds(sock, [frame], list(fds))
        frame = frame[sent:]
    if frame:
        sock.sendall(frame)


def recv_frame(sock: socket.socket, max_fds: int = 0) -> tuple[dict[str, Any] | None,
                                                                list[int]]:
    """The next frame and the descriptors that came with it; (None, []) at the end."""
    fds: list[int] = []
    if max_fds:
        head, fds, _flags, _addr = socket.recv_fds(sock, 4, max_fds, socket.MSG_CMSG_CLOEXEC)
    else:
        head = sock.recv(4)
    head += _exactly(sock, 4 - len(head)) if head else b""
    if len(head) < 4:
        _close(fds)
        return None, []
    size = struct.unpack("!I", head)[0]
    if size > MAX_FRAME:
        _close(fds)
        raise ValueError(f"a frame of {size} bytes")
    data = _exactly(sock, size)
    if len(data) < size:
        _close(fds)
        return None, []
    message = json.loads(data)
    if not isinstance(message, dict):
        _close(fds)
        raise ValueError("a frame that is not an object")
    return message, fds


def _exactly(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left > 0:
        chunk = sock.recv(left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _close(fds: Sequence[int]) -> None:
    for fd in fds:
        os.close(fd)
