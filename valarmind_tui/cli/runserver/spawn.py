"""Starting the run server: detached (its own session, working folder `/`, no terminal), with
an environment that holds no key (the model daemon's allowlist), the package found without the
working folder (`-P`). A failure is logged, never raised: the run goes on in-process."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from valarmind_tui.cli.runserver.protocol import user_config_value
from valarmind_tui.providers.daemon.place import UnsafePlace, private_folder
from valarmind_tui.providers.daemon.protocol import daemon_env

_log = logging.getLogger(__name__)


def idle_seconds(environ: Mapping[str, str]) -> str:
    """The run server's idle time: the model daemon's (`VALARMIND_MODEL_DAEMON_IDLE_S`, else
    `model_daemon_idle_s` in the user's config.toml, else 600 s)."""
    for value in (environ.get("VALARMIND_MODEL_DAEMON_IDLE_S"),
                  user_config_value(environ, "model_daemon_idle_s")):
        if isinstance(value, (int, float, str)) and not isinstance(value, bool):
            try:
                seconds = float(value)
            except ValueError:
                continue
            if seconds > 0:
                return str(seconds)
    return "600"


def spawn(path: Path) -> None:
    try:
        folder = private_folder(path)
        log = os.open(folder / "run-server.log",
                      os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    except (UnsafePlace, OSError) as exc:
        _log.info("run server not started: %s", exc)
        return
    try:
        subprocess.Popen(
            [sys.executable, "-P", "-m", "valarmind_tui.cli.runserver.server",
             "--socket", str(path), "--idle-s", idle_seconds(os.environ)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd="/", env=daemon_env(),
            start_new_session=True, close_fds=True)
    except OSError as exc:
        _log.info("run server not started: %s", exc)
    finally:
        os.close(log)
