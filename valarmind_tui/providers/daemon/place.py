"""Where the model daemon's socket lives, and whether what is there may be trusted.

One socket per user: `$XDG_RUNTIME_DIR/valarmind/model.sock` when the runtime folder is the
user's own and private, else `<data dir>/run/model.sock`. The folder is made 0700 and must stay
the user's own and closed to others; the socket must be a socket (never a symbolic link), the
user's own, and closed to others (0600). The sandbox hides both places whole (HOME, /run and
`$XDG_RUNTIME_DIR` are empty tmpfs in it: safety/sandbox/home.py), so a sandboxed command
cannot reach the daemon, though it runs as the same user.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
from pathlib import Path

from valarmind_tui.core.user_dirs import user_data_dir

SOCKET_NAME = "model.sock"
MAX_SOCKET_PATH = 107
"""sun_path holds 108 bytes with the final NUL."""


class UnsafePlace(Exception):
    """The socket's folder or file is not the user's own and private; the reason says why."""


def socket_path() -> Path:
    """The daemon's socket path for this user (its folder is not made here)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime) and _private_folder(runtime):
        return Path(runtime) / "valarmind" / SOCKET_NAME
    return user_data_dir() / "run" / SOCKET_NAME


def _private_folder(folder: str) -> bool:
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & 0o077)


def private_folder(path: Path) -> Path:
    """Make the socket's folder (0700) when missing; raise UnsafePlace unless it is a real
    folder, the user's own, closed to group and others."""
    folder = path.parent
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise UnsafePlace(f"{path}: longer than a socket path may be")
    folder.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafePlace(f"{folder}: not a folder (a link or a file)")
    if info.st_uid != os.getuid():
        raise UnsafePlace(f"{folder}: owned by user {info.st_uid}, not this one")
    if info.st_mode & 0o077:
        raise UnsafePlace(f"{folder}: others may enter it (mode {oct(info.st_mode & 0o777)})")
    return folder


def socket_problem(path: Path) -> str | None:
    """Why the file at `path` is not a daemon to connect to (None: it may be). "missing" when
    there is nothing there."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "a symbolic link"
    if not stat.S_ISSOCK(info.st_mode):
        return "not a socket"
    if info.st_uid != os.getuid():
        return f"owned by user {info.st_uid}"
    if info.st_mode & 0o077:
        return f"open to others (mode {oct(info.st_mode & 0o777)})"
    return None


def listen_private(path: Path, prefix: str = ".") -> tuple[socket.socket, int]:
    """Listen on a temporary name beside `path` (`prefix` and the pid), 0600, then rename it
    over `path` (an atomic replace that never follows a link); the socket and its inode."""
    # no longer than the socket's own name (a pid has at most 7 digits): a path that fits
    # sun_path must not become one that does not (AF_UNIX path too long)
    temporary = path.with_name(f"{prefix}{os.getpid()}"[:len(path.name)])
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        sock.bind(str(temporary))
    finally:
        os.umask(old_umask)
    os.chmod(temporary, 0o600)
    sock.listen(64)
    inode = os.lstat(temporary).st_ino
    os.replace(temporary, path)
    return sock, inode


def replaced(path: Path, inode: int) -> bool:
    """The socket `listen_private` put at `path` is there no longer (another server took its
    place, or it was removed)."""
    try:
        return os.lstat(path).st_ino != inode
    except OSError:
        return True
