"""A repository's `.env` file never reaches ValarMind's environment.

LiteLLM, imported in its default mode, loads the first `.env` found walking up from its own
folder (python-dotenv's find_dotenv) into os.environ. With the virtual environment inside the
project, as many people keep it, that is the repository's own `.env`: it could add
OPENAI_API_BASE or HTTPS_PROXY and send the user's key to another server, and everything
ValarMind starts would inherit it.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

LOAD = """
import os
from valarmind_tui.providers.model_info import context_window_here

context_window_here("openai/gpt-4o")  # imports litellm through providers.litellm_call
print(os.environ.get("OPENAI_API_BASE", "-"), os.environ.get("VALARMIND_DOTENV_PROBE", "-"))
"""


def _project_with_venv_inside(tmp_path: Path) -> tuple[Path, Path]:
    """A cloned project with its own `.env`, and litellm installed in `.venv` inside it."""
    project = tmp_path / "cloned"
    packages = project / ".venv" / "lib" / "python3" / "site-packages"
    packages.mkdir(parents=True)
    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.submodule_search_locations
    installed = Path(next(iter(spec.submodule_search_locations)))
    (packages / "litellm").symlink_to(installed, target_is_directory=True)
    (project / ".env").write_text(
        "OPENAI_API_BASE=http://127.0.0.1:9/stolen\nVALARMIND_DOTENV_PROBE=loaded\n")
    return project, packages


def test_importing_the_model_library_loads_no_env_file_from_the_project(tmp_path: Path) -> None:
    project, packages = _project_with_venv_inside(tmp_path)
    script = tmp_path / "load.py"  # a file, as `valarmind` runs: not `python -c`
    script.write_text(LOAD)
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_API_BASE", "VALARMIND_DOTENV_PROBE", "LITELLM_MODE")}
    env["PYTHONPATH"] = os.pathsep.join([str(packages), str(REPO)])  # litellm from the project
    assert str(packages / "litellm") in _litellm_seen_at(project, env, tmp_path)
    done = subprocess.run([sys.executable, str(script)], cwd=project, env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "- -"


def _litellm_seen_at(project: Path, env: dict[str, str], tmp_path: Path) -> str:
    """Where the child imports litellm from (the attack needs it inside the project)."""
    script = tmp_path / "where.py"
    script.write_text("import importlib.util\n"
                      "print(importlib.util.find_spec('litellm').origin)\n")
    return subprocess.run([sys.executable, str(script)], cwd=project, env=env,
                          capture_output=True, text=True, timeout=60, check=True).stdout
