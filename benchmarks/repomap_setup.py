"""Fetch the repo-map benchmark's real trees: source distributions from PyPI, unpacked into a
cache outside the repository (`$VALARMIND_BENCH_CACHE`, default ~/.cache/valarmind-bench), with
`pip download --no-binary :all: --no-deps`."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

CACHE = Path(os.environ.get("VALARMIND_BENCH_CACHE")
             or Path.home() / ".cache" / "valarmind-bench") / "repomap"
REPOS: dict[str, list[str]] = {
    "click": ["click==8.1.7"],
    "requests": ["requests==2.32.3"],
    "rich": ["rich==13.9.4"],
    "flask+werkzeug": ["flask==3.0.3", "werkzeug==3.0.3"],
    "sympy": ["sympy==1.13.3"],
}


def ensure(name: str) -> Path:
    """The unpacked tree of one benchmark repository (downloaded once)."""
    root = CACHE / name
    marker = root / ".complete"
    if marker.exists():
        return root
    downloads = CACHE.parent / "sdists"
    downloads.mkdir(parents=True, exist_ok=True)
    root.mkdir(parents=True, exist_ok=True)
    for requirement in REPOS[name]:
        package, version = requirement.split("==")
        archive = next(downloads.glob(f"{package}-{version}.tar.gz"), None)
        if archive is None:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:",
                            "--no-deps", "-q", requirement, "-d", str(downloads)], check=True)
            archive = next(downloads.glob(f"{package}-{version}.tar.gz"))
        with tarfile.open(archive) as tar:
            tar.extractall(root, filter="data")
    marker.touch()
    return root


if __name__ == "__main__":
    for repo in REPOS:
        print(repo, ensure(repo))
