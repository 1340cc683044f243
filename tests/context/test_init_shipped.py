"""/init says what the project ships: its language, Project Core and Endpoints from its own
packages (not its tests, fixtures or examples), its Objective from the README's first real
paragraph, its commands one per role with their source (issue 31)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from valarmind_tui.context.init.readme import readme_summary
from valarmind_tui.context.init.write import generate_valarmind_md

FIXTURES = Path(__file__).parent.parent / "fixtures" / "init_projects"


def _section(text: str, heading: str) -> str:
    m = re.search(rf"(?ms)^## {re.escape(heading)}\n(.*?)<!-- /valarmind:generated -->", text)
    return m.group(1) if m else ""


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    return root


async def test_a_rust_linter_with_python_fixtures_is_a_rust_project(tmp_path: Path) -> None:
    files = {
        "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
        "pyproject.toml": ('[build-system]\nrequires = ["maturin>=1"]\nbuild-backend = "maturin"\n'
                           '[project]\nname = "lintrs"\ndescription = "A fast linter."\n'),
        "crates/lint_core/Cargo.toml": '[package]\nname = "lint_core"\n',
    }
    for i in range(40):
        files[f"crates/lint_core/src/rule_{i}.rs"] = f"pub fn rule_{i}() -> u32 {{ {i} }}\n"
    for i in range(120):  # the lint rules' fixtures: Python, and web routes among them
        files[f"crates/lint_core/resources/test/fixtures/flake8_{i}.py"] = (
            f'@app.get("/fixture{i}")\ndef handler():\n    return 1\n')
    root = _write(tmp_path / "lintrs", files)
    text = (await generate_valarmind_md(root)).text
    stack = _section(text, "Stack")
    assert stack.index("Rust code") < stack.index("Manifests")
    assert "Python code" not in stack
    commands = _section(text, "Commands")
    assert "| test | `cargo test` | Cargo.toml |" in commands
    assert "pytest" not in commands and "ruff" not in commands
    assert "## Endpoints" not in text and "/fixture" not in text
    core = re.findall(r"`([^`]+)`", _section(text, "Project Core"))
    assert core and all(f.startswith("crates/lint_core/src/") for f in core)


async def test_flask_endpoints_and_core_leave_its_examples_out(tmp_path: Path) -> None:
    root = tmp_path / "flask"
    shutil.copytree(FIXTURES / "flask-3.0.3", root)
    text = (await generate_valarmind_md(root)).text
    assert "/register" not in text and "/login" not in text  # the tutorial's routes
    core = re.findall(r"`([^`]+)`", _section(text, "Project Core"))
    assert core and all(f.startswith("src/flask/") for f in core)
    commands = _section(text, "Commands")
    assert "| test | `tox` | tox.ini |" in commands
    assert "| lint | `tox -e style` | tox.ini |" in commands
    also = commands.split("Also: ", 1)[1]
    assert "`pytest` (test)" in also and "pytest -q" not in also


async def test_commands_are_one_row_per_role_not_every_script(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURES / "ws-8.17.0", root)
    text = (await generate_valarmind_md(root)).text
    commands = _section(text, "Commands")
    rows = [ln for ln in commands.splitlines() if ln.startswith("| ") and "Task" not in ln]
    assert rows == ["| lint | `npm run lint` | package.json |",
                    "| test | `npm run test` | package.json |"]
    assert "integration" not in commands
    assert _section(text, "Objective").strip().startswith("Simple to use, blazing fast")


def test_the_objective_is_the_first_real_readme_paragraph() -> None:
    def summary(name: str) -> str:
        return readme_summary({"README.md": (FIXTURES / name).read_text()[:4000]})

    # ws opens with badges, minimist with badges, link definitions and a three-word line
    assert summary("ws-8.17.0/README.md") == (
        "ws is a simple to use, blazing fast, and thoroughly tested WebSocket client and "
        "server implementation.")
    assert summary("minimist-1.2.8/README.md") == (
        "This module is the guts of optimist's argument parser without all the fanciful "
        "decoration.")
    assert summary("requests-2.32.3/README.md") == (
        "Requests is a simple, yet elegant, HTTP library.")
    navigation = ("# Shop\n\n[Docs](https://x/docs) | [Blog](https://x/blog) | "
                  "[Discord](https://x/d) | [Roadmap](https://x/r)\n\n"
                  "Shop keeps stock for small stores. It supports:\n\n- shelves\n- tills\n")
    assert readme_summary({"README.md": navigation}) == "Shop keeps stock for small stores."
    only_list = "# X\n\nThe library supports the following backends and many more things:\n"
    assert readme_summary({"README.md": only_list}) == ""


async def test_a_go_server_module_is_named_by_its_repository(tmp_path: Path) -> None:
    root = _write(tmp_path / "checkout", {
        "go.mod": "module github.com/acme/shop/server\n\ngo 1.22\n",
        "main.go": "package main\n\nfunc main() {}\n",
    })
    text = (await generate_valarmind_md(root)).text
    assert text.startswith("# shop\n")
