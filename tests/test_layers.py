"""The core must stay importable without the UI libraries (only faces/tui/ imports textual)."""

import subprocess
import sys

CORE = [
    "valarmind_tui.settings.config", "valarmind_tui.core.events", "valarmind_tui.core.bus",
    "valarmind_tui.session.session",
    "valarmind_tui.commands.registry", "valarmind_tui.commands.router",
    "valarmind_tui.tools.registry", "valarmind_tui.providers.base",
]


HEAVY = ("textual", "litellm", "rich", "mcp", "tree_sitter", "acp")


def test_core_imports_without_textual_or_litellm() -> None:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in CORE)
        + f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_version_is_fast_path() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "valarmind_tui", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert out.stdout.startswith("valarmind ")
