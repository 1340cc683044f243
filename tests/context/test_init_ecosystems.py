"""/init's deterministic draft on real (or real-shaped) projects of nine ecosystems: the name,
the main dependencies and the test command come from each project's own metadata.

requests-2.32.3 and express-4.19.2 are the published sdist/npm tarball's files (requests keeps
its name and dependencies in setup.py/setup.cfg/PKG-INFO, not in pyproject.toml); the others are
small projects written after real ones (cobra, gson, okio, monolog, Humanizer).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from valarmind_tui.context.init.write import generate_valarmind_md
from valarmind_tui.context.project_commands import commands_of, detect_commands

FIXTURES = Path(__file__).parent.parent / "fixtures" / "init_projects"

CASES = {
    # folder: (name, main dependencies, test command)
    "requests-2.32.3": ("requests", ["certifi", "charset_normalizer", "idna", "urllib3"],
                        "pytest -q"),
    "express-4.19.2": ("express", ["accepts", "body-parser", "cookie", "finalhandler"],
                       "npm run test"),
    "cobra-1.8.0": ("cobra", ["github.com/spf13/pflag", "gopkg.in/yaml.v3"], "go test ./..."),
    "ryu-json": ("ryu-json", ["ryu", "serde", "thiserror"], "cargo test"),
    "gson-parent": ("gson", ["com.google.errorprone:error_prone_annotations"], "mvn test"),
    "okio-kts": ("okio-files", ["com.squareup.okio:okio",
                                "org.jetbrains.kotlinx:kotlinx-coroutines-core"],
                 "./gradlew test"),
    "slugify-rb": ("slugify-rb", ["activesupport", "unicode_utils"], "bundle exec rspec"),
    "monolog-lite": ("monolog/monolog", ["psr/log"], "composer test"),
    "humanizer-lite": ("Humanizer", ["System.ComponentModel.Annotations",
                                     "Microsoft.Extensions.Localization"], "dotnet test"),
}
NOT_MAIN = {
    "requests-2.32.3": ["pytest", "PySocks", "chardet"],
    "cobra-1.8.0": ["github.com/russross/blackfriday/v2"],
    "ryu-json": ["criterion"],
    "gson-parent": ["junit:junit"],
    "okio-kts": ["org.junit.jupiter:junit-jupiter"],
    "slugify-rb": ["rspec", "rake"],
    "monolog-lite": ["phpunit/phpunit", "ext-json", "php"],
    "humanizer-lite": ["xunit", "Microsoft.NET.Test.Sdk"],
}


def _copy(tmp_path: Path, folder: str) -> Path:
    root = tmp_path / folder
    shutil.copytree(FIXTURES / folder, root)
    return root


def _section(text: str, heading: str) -> str:
    m = re.search(rf"(?ms)^## {re.escape(heading)}\n(.*?)<!-- /valarmind:generated -->", text)
    assert m, f"no {heading} section in:\n{text}"
    return m.group(1)


@pytest.mark.parametrize("folder", list(CASES))
async def test_draft_names_the_project_its_dependencies_and_test_command(
        tmp_path: Path, folder: str) -> None:
    name, deps, test_command = CASES[folder]
    root = _copy(tmp_path, folder)
    result = await generate_valarmind_md(root)
    text = result.text
    assert text.startswith(f"# {name}\n")
    main = _section(text, "Main Dependencies").split("Dev/optional")[0]
    for dep in deps:
        assert f"| `{dep}` |" in main, f"{dep} missing from:\n{main}"
    for dep in NOT_MAIN.get(folder, []):
        assert f"| `{dep}` |" not in main
    assert "Not detected" not in main
    commands = _section(text, "Commands")
    assert f"| test | `{test_command}` |" in commands
    # the same detector answers QA and the test agent
    assert test_command in commands_of(detect_commands(root), "test")


async def test_requests_tree_opens_the_package_and_leaves_out_egg_info(tmp_path: Path) -> None:
    root = _copy(tmp_path, "requests-2.32.3")
    text = (await generate_valarmind_md(root)).text
    tree = _section(text, "TREE")
    assert "egg-info" not in text and "SOURCES.txt" not in text
    assert "  requests/\n" in tree and "(18 files)" not in tree
    for module in ("sessions.py", "models.py", "adapters.py", "api.py"):
        assert f"\n    {module}\n" in tree
    core = _section(text, "Project Core")
    files = re.findall(r"`([^`]+)`", core)
    # by the repo map's rank, not alphabetical: requests' own modules, no setup.py
    assert files and all(f.startswith("src/requests/") for f in files)
    assert files != sorted(files)
    assert "Python HTTP for Humans." in _section(text, "Objective")


async def test_express_readme_with_odd_case_is_a_reference(tmp_path: Path) -> None:
    root = _copy(tmp_path, "express-4.19.2")
    text = (await generate_valarmind_md(root)).text
    assert "`Readme.md`" in _section(text, "References")
    assert "Fast, unopinionated, minimalist web framework" in _section(text, "Objective")


@pytest.mark.parametrize("folder", ["requests-2.32.3", "monolog-lite", "humanizer-lite"])
def test_the_test_agent_and_qa_may_run_what_valarmind_md_lists(tmp_path: Path,
                                                               folder: str) -> None:
    from valarmind_tui.agents.registry import AgentRegistry

    root = _copy(tmp_path, folder)
    registry = AgentRegistry.load(root, None)
    test_command = CASES[folder][2]
    assert registry.get("test").permissions.execute_allow == (test_command,)
    assert test_command in (registry.get("qa").permissions.execute_allow or ())
    assert f"`{test_command}`" in registry.get("qa").system_prompt


async def test_broken_manifests_do_not_stop_init(tmp_path: Path) -> None:
    root = tmp_path / "broken-shop"
    root.mkdir()
    (root / "package.json").write_text('{"name": "shop", "dependencies": {')
    (root / "pyproject.toml").write_text("[project\nname = ")
    (root / "setup.py").write_text("from setuptools import setup\nsetup(name=\n")
    (root / "pom.xml").write_text('<?xml version="1.0"?><!DOCTYPE p [<!ENTITY a "aaaa">]>'
                                  "<project><artifactId>&a;</artifactId></project>")
    (root / "app.py").write_text("print('hi')\n")
    result = await generate_valarmind_md(root)
    assert result.text.startswith("# broken-shop\n")  # no manifest could name it
    assert "Main Dependencies" in result.missing
    assert "aaaa" not in result.text  # entity declarations are refused, not expanded


@pytest.mark.parametrize("manifest, text", [
    ("package.json", '{"name": "shop", "dependencies": ["left-pad"], "engines": "node 20",'
                     ' "scripts": ["test"]}'),
    ("composer.json", '{"name": "acme/shop", "require": ["psr/log"], "scripts": "phpunit"}'),
    ("Cargo.toml", '[package]\nname = "shop"\n[workspace]\npackage = "x"\n'
                   'dependencies = ["serde"]\n'),
])
async def test_a_list_where_a_manifest_table_belongs_does_not_stop_init(
        tmp_path: Path, manifest: str, text: str) -> None:
    root = tmp_path / "odd-shop"
    root.mkdir()
    (root / manifest).write_text(text)
    result = await generate_valarmind_md(root)
    assert re.match(r"# (acme/)?shop\n", result.text)  # the name still comes from the manifest
    assert "left-pad" not in result.text and "psr/log" not in result.text


@pytest.mark.parametrize("config", [
    ("pyproject.toml", '[project]\nname = "p"\n[tool.mypy]\npackages = ["p"]\n'),
    ("mypy.ini", "[mypy]\nfiles = p\n"),
])
def test_mypy_whose_config_names_its_targets_runs_as_configured(
        tmp_path: Path, config: tuple[str, str]) -> None:
    """`mypy .` checked tests and scripts the project's own `mypy` leaves out, and failed."""
    name, text = config
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\ndependencies = ["mypy"]\n')
    (tmp_path / name).write_text(text if name == "mypy.ini" else
                                 text.replace('[project]\nname = "p"\n',
                                              '[project]\nname = "p"\ndependencies = ["mypy"]\n'))
    assert commands_of(detect_commands(tmp_path), "typecheck") == ("mypy",)


def test_mypy_with_no_targets_checks_the_tree(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\ndependencies = ["mypy"]\n')
    assert commands_of(detect_commands(tmp_path), "typecheck") == ("mypy .",)
