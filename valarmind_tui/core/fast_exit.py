"""Leaving a process without the interpreter's teardown.

At exit CPython frees every module and object one at a time: ~0.5 s after the last line of
`valarmind -p` (litellm's ~2,800 modules are loaded there) and longer in the model process. What
a normal exit does before that is done the same way and in the same order: non-daemon threads
are joined (thread pools are told to finish first), the exit handlers run (logging's flush,
multiprocessing's finalizers, weakref finalizers, the model process's stop), and stdout and
stderr are flushed.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def exit_without_teardown(code: int) -> NoReturn:
    """Exit with `code`; see the module's docstring for what still runs."""
    # what Py_FinalizeEx calls first; private, so looked up (a Python without it exits normally)
    join_threads = getattr(threading, "_shutdown", None)
    if join_threads is None:
        sys.exit(code)
    join_threads()
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: let the normal exit report it as it does
        sys.exit(code)
    os._exit(code)
