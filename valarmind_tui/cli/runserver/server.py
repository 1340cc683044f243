"""The run server: the one-shot's modules imported once, a child forked for each run
(`python -P -m valarmind_tui.cli.runserver.server --socket PATH --idle-s N`).

Started detached by a run that found none (client.py, spawn.py), in `/`, with an environment
that holds no key. It binds its socket under a temporary name, 0600, and renames it over the
path (a stale socket or a server of another build is replaced in one step, a link is replaced,
never followed). It imports what `-p` imports (not LiteLLM: that is the model daemon's), freezes
what lives, and then only accepts: a peer of another user id is dropped, any other connection
is handed to a forked child (child.py) and closed here. The server reads nothing a client
sends: each child starts from the same pristine process, and nothing of one run reaches the
next. It leaves after `--idle-s` without a connection, or as soon as its socket was replaced.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
import threading
import time
from pathlib import Path

from valarmind_tui.cli.runserver.protocol import peer_uid
from valarmind_tui.providers.daemon.place import listen_private, replaced

IDLE_CHECK_S = 1.0
PRELOADED = (
    "valarmind_tui.cli.main", "valarmind_tui.core.left_writes", "valarmind_tui.core.fast_exit",
    "valarmind_tui.setup.context_files", "valarmind_tui.settings.config",
    "valarmind_tui.settings.trust.decision", "valarmind_tui.providers.daemon.link",
    "valarmind_tui.safety.sandbox.wrap", "valarmind_tui.faces.headless",
    "valarmind_tui.cli.runserver.child", "pydantic_settings",
)
"""What `valarmind -p` imports on its way to the answer (cli/main.py's imports on that path;
pydantic-settings whenever a VALARMIND_* variable names a setting)."""

Stamps = list[tuple[str, int, int]]


def preload() -> Stamps:
    """Import PRELOADED; what each loaded module's file was (path, mtime, size), so a child can
    tell that the code on disk changed since."""
    for name in PRELOADED:
        importlib.import_module(name)
    _build_tool_models()
    stamps = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if path:
            with contextlib.suppress(OSError):
                info = os.stat(path)
                stamps.append((path, info.st_mtime_ns, info.st_size))
    return stamps


def _build_tool_models() -> None:
    """Build the built-in tools' argument models and schemas, as every run's first request
    does (`defer_build` saves that at import; here it is paid once for all children)."""
    from valarmind_tui.tools.catalog import builtin_tools

    for tool in builtin_tools():
        tool.schema()


def serve(path: Path, idle_s: float) -> int:
    # first: a run meanwhile waits rather than starting another
    sock, inode = listen_private(path, ".r")
    stamps = preload()
    if threading.active_count() > 1:  # a fork would copy a thread's locks, not the thread
        print("run server: a thread started at import; not serving", file=sys.stderr)
        return 1
    gc.collect()
    gc.freeze()  # the children's collections leave the server's objects (and pages) alone
    sock.settimeout(IDLE_CHECK_S)
    last_active = time.monotonic()
    while not replaced(path, inode) and time.monotonic() - last_active < idle_s:
        _reap()
        try:
            conn, _ = sock.accept()
        except TimeoutError:
            continue
        last_active = time.monotonic()
        with conn:
            try:
                if peer_uid(conn) != os.getuid():
                    continue
                child = os.fork()
            except OSError:  # a client gone already, or no process to be had: it falls back
                continue
            if child == 0:
                from valarmind_tui.cli.runserver.child import serve_one

                serve_one(conn, sock, stamps)
    sock.close()  # the file stays: the next client finds it refused and replaces it
    return 0


def _reap() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="valarmind run server")
    parser.add_argument("--socket", type=Path, required=True)
    parser.add_argument("--idle-s", type=float, default=600.0)
    args = parser.parse_args(argv)
    return serve(args.socket, args.idle_s)


if __name__ == "__main__":
    from valarmind_tui.core.fast_exit import exit_without_teardown

    exit_without_teardown(main())
