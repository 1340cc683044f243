"""`valarmind acp` on the command line: listed in --help, the SDK loaded only when it runs."""

from __future__ import annotations

import subprocess
import sys


def test_version_and_help_do_not_load_the_acp_sdk() -> None:
    code = (
        "import contextlib, io, sys\n"
        "from valarmind_tui.cli.main import main\n"
        "for argv in (['--version'], ['acp', '--help']):\n"
        "    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "        main(argv)\n"
        "print('acp' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_help_lists_the_acp_face() -> None:
    out = subprocess.run([sys.executable, "-m", "valarmind_tui", "--help"], capture_output=True,
                         text=True, check=True)
    assert "acp" in out.stdout and "Agent Client Protocol" in out.stdout
