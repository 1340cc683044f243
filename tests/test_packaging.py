"""What a pip, pipx or uv install gets: the wheel built from the checkout, installed outside it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel pip builds from a copy of the checkout's source (links kept, as git keeps
    them), so no build folder lands in the checkout."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("valarmind_tui", "themes"):
        shutil.copytree(ROOT / name, source / name, symlinks=True, ignore=ignore)
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--wheel-dir", str(out), str(source)],
                   check=True, capture_output=True, timeout=300)
    return next(out.glob("valarmind_tui-*.whl"))


def test_the_wheel_carries_the_themes(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    shipped = sorted(p.name for p in (ROOT / "themes").glob("*.yaml"))
    assert shipped, "the checkout has themes"
    assert sorted(n.rsplit("/", 1)[-1] for n in names
                  if n.startswith("valarmind_tui/themes/")) == shipped


def test_an_installed_package_finds_its_themes_by_their_file_names(
        wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--target", str(target), str(wheel)], check=True, capture_output=True,
                   timeout=300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = ("import valarmind_tui\n"
             "from valarmind_tui.faces.tui import theme_files, themes\n"
             "print(valarmind_tui.__file__)\n"
             "for t in themes.load_themes(theme_files.shipped_themes_dir()).themes:\n"
             "    print(t.name)\n")
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run([sys.executable, "-c", probe], cwd=elsewhere, env=env,
                          capture_output=True, text=True, check=True, timeout=60)
    where, *names = done.stdout.split()
    assert Path(where).is_relative_to(target), "the installed copy, not the checkout"
    assert sorted(names) == sorted(p.stem for p in (ROOT / "themes").glob("*.yaml"))
