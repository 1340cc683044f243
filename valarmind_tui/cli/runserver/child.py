"""A forked child of the run server: it takes the client's place, then runs `cli.main.main`
as the client would have in-process.

In order: the server's listening socket closed and the signal handlers as a new interpreter
has them; the hello answered (with `stale` when a module the server imported changed on disk);
a client confined otherwise (namespaces, root, credentials, seccomp: confinement.py) declined,
its resource limits and nice value taken; the client's working folder, umask and environment
(os.environ replaced whole) applied and its three descriptors put on 0, 1 and 2 with new
sys.stdin/stdout/stderr over them; the command line parsed. A run that may need a terminal
(the TUI, `--plain`, a question asked on a terminal) or anything but `-p`, `run` and `goal` is
declined before anything is done, and the client runs it itself. Else the run starts; a
watcher thread delivers the signals the client forwards and ends the run when the client is
gone (its connection closed). The exit code goes back to the client, and the child leaves
without the interpreter's teardown, as `entry` does.
"""

from __future__ import annotations

import contextlib
import io
import locale
import os
import signal
import socket
import sys
import tempfile
import threading
import time
from typing import Any, NoReturn

from valarmind_tui.cli.runserver.confinement import take_limits, unlike_client
from valarmind_tui.cli.runserver.protocol import build, peer_credentials, recv_frame, send_frame

HELLO_TIMEOUT_S = 10.0
GONE_GRACE_S = 5.0
"""After the client is gone: SIGTERM, then this long before SIGKILL."""
Stamps = list[tuple[str, int, int]]


def serve_one(conn: socket.socket, listener: socket.socket, stamps: Stamps) -> NoReturn:
    listener.close()
    _default_signals()
    code: int | None = 1
    finished = threading.Event()
    try:
        code = _take_place_and_run(conn, stamps, finished)
    except _Gone:
        code = None
    except SystemExit as exc:
        code = _exit_code(exc)
    except KeyboardInterrupt:  # before main() caught it: as an uncaught one ends a process
        code = 130
    except BaseException as exc:  # the run's own errors are main()'s; this is ours
        with contextlib.suppress(Exception):
            print(f"valarmind: run server: {exc!r}", file=sys.stderr)
    finally:
        finished.set()
        _leave(conn, code)


def _take_place_and_run(conn: socket.socket, stamps: Stamps, finished: threading.Event
                        ) -> int:
    conn.settimeout(HELLO_TIMEOUT_S)
    hello, _ = recv_frame(conn)
    if hello is None:
        raise _Gone
    stale = _stale(stamps)
    send_frame(conn, {"hello": build(), "server": os.getppid(),
                      **({"stale": True} if stale else {})})
    if hello.get("hello") != build() or stale:
        raise _Gone
    request, fds = recv_frame(conn, max_fds=3)
    if request is None or len(fds) != 3:
        raise _Gone
    conn.settimeout(None)
    client = peer_credentials(conn)[0]
    reason = unlike_client(client) or take_limits(client)
    if reason is not None:
        send_frame(conn, {"decline": reason})
        raise _Gone
    _take_place(request, fds)
    argv = [str(word) for word in request["argv"]]
    reason = _needs_in_process(argv[1:])
    if reason is not None:
        send_frame(conn, {"decline": reason})
        raise _Gone
    send_frame(conn, {"started": True})
    threading.Thread(target=_watch, args=(conn, finished), daemon=True,
                     name="run-server-client").start()
    sys.argv = argv
    from valarmind_tui.cli.main import main

    return main(argv[1:])


class _Gone(Exception):
    """Nothing to run: the client left, another build or stale code, or declined."""


def _default_signals() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as the interpreter sets it


def _stale(stamps: Stamps) -> bool:
    for path, mtime, size in stamps:
        try:
            info = os.stat(path)
        except OSError:
            return True
        if info.st_mtime_ns != mtime or info.st_size != size:
            return True
    return False


def _take_place(request: dict[str, Any], fds: list[int]) -> None:
    os.chdir(str(request["cwd"]))
    os.umask(int(request["umask"]) & 0o777)
    env = request["env"]
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in env.items()})
    time.tzset()
    tempfile.tempdir = None
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    with contextlib.suppress(locale.Error):
        locale.setlocale(locale.LC_CTYPE, "")
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    _new_stdio()


def _new_stdio() -> None:
    """sys.stdin/stdout/stderr over the client's descriptors, made as the interpreter makes
    them: its encoding (PYTHONIOENCODING, else the locale's), stdout line-buffered on a
    terminal, stderr always, nothing buffered with PYTHONUNBUFFERED."""
    given = os.environ.get("PYTHONIOENCODING", "")
    encoding, _, errors = given.partition(":")
    if not encoding:
        encoding = "utf-8" if sys.flags.utf8_mode else locale.getpreferredencoding(False)
    strict = errors or ("surrogateescape" if sys.flags.utf8_mode
                        or locale.setlocale(locale.LC_CTYPE) in ("C", "POSIX") else "strict")
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    sys.stdin = _stream(0, "r", encoding, strict, False, False)
    sys.stdout = _stream(1, "w", encoding, strict, os.isatty(1), unbuffered)
    sys.stderr = _stream(2, "w", encoding, "backslashreplace", True, unbuffered)
    # what a new interpreter's sys.__stdout__ & co. are (Final in typeshed, plain here)
    vars(sys).update(__stdin__=sys.stdin, __stdout__=sys.stdout, __stderr__=sys.stderr)


def _stream(fd: int, mode: str, encoding: str, errors: str, line_buffering: bool,
            unbuffered: bool) -> io.TextIOWrapper:
    binary = open(fd, mode + "b", buffering=0 if unbuffered else -1, closefd=False)  # noqa: SIM115
    return io.TextIOWrapper(binary, encoding=encoding, errors=errors,
                            line_buffering=line_buffering, write_through=unbuffered)


def _needs_in_process(argv: list[str]) -> str | None:
    """Why this command line is not served here (None: it is a one-shot that needs no
    terminal). Parsing may print usage and exit 2, as it would in-process."""
    from valarmind_tui.cli.parser import bare_task, build_parser

    parser = build_parser()
    rest, task = bare_task(parser, argv)
    args = parser.parse_args(rest)
    if getattr(args, "best_of", None):
        return "--best-of"
    if args.command not in (None, "run", "goal"):
        return f"the {args.command} command"
    if args.command is None and args.prompt is None and (
            task is None or args.plain or sys.stdout.isatty()):
        return "the TUI or the plain REPL"
    if sys.stdin.isatty() and sys.stdout.isatty():
        return "a run that may ask its questions in the terminal"
    return None


def _watch(conn: socket.socket, finished: threading.Event) -> None:
    """Deliver the signals the client forwards; when the client is gone, end the run (SIGTERM,
    then SIGKILL): it must not go on with no one to answer."""
    while True:
        try:
            message, _ = recv_frame(conn)
        except (OSError, ValueError):
            message = None
        if message is None:
            break
        signum = message.get("signal")
        if isinstance(signum, int) and signum in (signal.SIGINT, signal.SIGTERM,
                                                  signal.SIGHUP):
            os.kill(os.getpid(), signum)
    if finished.is_set():
        return
    os.kill(os.getpid(), signal.SIGTERM)
    if not finished.wait(GONE_GRACE_S):
        os.kill(os.getpid(), signal.SIGKILL)


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    with contextlib.suppress(Exception):
        print(exc.code, file=sys.stderr)
    return 1


def _leave(conn: socket.socket, code: int | None) -> NoReturn:
    """As core/fast_exit.py: threads joined, exit handlers run, output flushed; then the code
    to the client and out. None: nothing ran (the client runs it itself)."""
    if code is None:
        os._exit(0)
    join_threads = getattr(threading, "_shutdown", None)
    with contextlib.suppress(BaseException):
        if join_threads is not None:
            join_threads()
        import atexit

        atexit._run_exitfuncs()
    with contextlib.suppress(BaseException):
        sys.stdout.flush()
    with contextlib.suppress(BaseException):
        sys.stderr.flush()
    with contextlib.suppress(OSError):
        send_frame(conn, {"exit": code})
    os._exit(code)
