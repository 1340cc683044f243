"""Metadata that workspaces and build backends hide from the root manifest: the members'
runtime dependencies (not the workspace's own crates or packages) and hatch's or setuptools'
dynamic dependencies (issue 31)."""

from __future__ import annotations

import json
from pathlib import Path

from valarmind_tui.context.manifests.read import read_manifests


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    return root


def test_a_cargo_workspace_depends_on_its_members_dependencies_not_its_crates(
        tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "Cargo.toml": ('[workspace]\nmembers = ["crates/*"]\n[workspace.dependencies]\n'
                       'lint_core = { path = "crates/lint_core" }\nserde = "1.0.200"\n'),
        "crates/lint_core/Cargo.toml": ('[package]\nname = "lint_core"\n[dependencies]\n'
                                        'regex = "1.10"\nserde = { workspace = true }\n'),
        "crates/lint_cli/Cargo.toml": ('[package]\nname = "lint_cli"\n[dependencies]\n'
                                       'clap = { version = "4.5", features = ["derive"] }\n'
                                       'lint_core = { path = "../lint_core" }\n'),
    })
    deps = read_manifests(root).dependencies
    assert {"serde", "regex", "clap"} <= set(deps)
    assert deps["clap"] == "4.5"
    assert "lint_core" not in deps and "lint_cli" not in deps


def test_uv_and_pnpm_workspace_members(tmp_path: Path) -> None:
    uv = _write(tmp_path / "uv", {
        "pyproject.toml": ('[project]\nname = "root"\ndependencies = ["shop-core"]\n'
                           '[tool.uv.workspace]\nmembers = ["packages/*"]\n'
                           '[tool.uv.sources]\nshop-core = { workspace = true }\n'),
        "packages/core/pyproject.toml": ('[project]\nname = "shop-core"\n'
                                         'dependencies = ["httpx>=0.27", "pydantic>=2"]\n'),
    })
    deps = read_manifests(uv).dependencies
    assert {"httpx", "pydantic"} <= set(deps) and "shop-core" not in deps
    pnpm = _write(tmp_path / "pnpm", {
        "package.json": json.dumps({"name": "mono", "private": True}),
        "pnpm-workspace.yaml": "packages:\n  - 'apps/*'\n  - 'packages/*'\n",
        "apps/web/package.json": json.dumps({"name": "@mono/web", "dependencies": {
            "react": "^18.3.1", "@mono/ui": "workspace:*"}}),
        "packages/ui/package.json": json.dumps({"name": "@mono/ui",
                                                "dependencies": {"clsx": "^2.1.0"}}),
    })
    deps = read_manifests(pnpm).dependencies
    assert {"react", "clsx"} <= set(deps) and "@mono/ui" not in deps


def test_hatch_dynamic_dependencies_from_requirement_files(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "pyproject.toml": ('[project]\nname = "dyn"\ndynamic = ["dependencies"]\n'
                           '[tool.hatch.metadata.hooks.requirements_txt]\n'
                           'files = ["deps/runtime.txt"]\n'),
        "deps/runtime.txt": "# runtime\nrequests>=2.31\nrich==13.7.1\n",
    })
    deps = read_manifests(root).dependencies
    assert deps.get("requests") == ">=2.31" and "rich" in deps


def test_a_member_glob_cannot_leave_the_project(tmp_path: Path) -> None:
    outside = _write(tmp_path / "outside", {"Cargo.toml": (
        '[package]\nname = "secret"\n[dependencies]\nleaked = "1"\n')})
    root = _write(tmp_path / "proj", {"Cargo.toml": (
        f'[workspace]\nmembers = ["../outside", "{outside}"]\n')})
    assert "leaked" not in read_manifests(root).dependencies
