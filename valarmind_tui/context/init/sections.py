"""The deterministic bodies of VALARMIND.md's sections, from signals alone (tables, versions
cut to major.minor: seed 001's compaction techniques)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from valarmind_tui.context.init.signals import Signals
from valarmind_tui.context.init.tree import render_tree

FRAMEWORKS = {
    "django": "Django", "flask": "Flask", "fastapi": "FastAPI", "textual": "Textual",
    "pydantic": "Pydantic", "sqlalchemy": "SQLAlchemy", "react": "React", "next": "Next.js",
    "vue": "Vue", "svelte": "Svelte", "express": "Express", "@nestjs/core": "NestJS",
    "fastify": "Fastify", "tokio": "Tokio", "axum": "Axum", "actix-web": "Actix Web",
    "serde": "Serde", "github.com/gin-gonic/gin": "Gin", "click": "Click", "typer": "Typer",
    "litellm": "LiteLLM", "pytest": "pytest", "jest": "Jest", "vitest": "Vitest",
    "typescript": "TypeScript", "clap": "clap", "github.com/spf13/cobra": "Cobra",
}


def short_version(spec: str) -> str:
    """`>=1.2.3,<2` -> `>=1.2`; `^4.17.21` -> `^4.17`; keeps only major.minor."""
    spec = spec.strip()
    return re.sub(r"(\d+)\.(\d+)\.[\w.+-]+", r"\1.\2", spec.split(",")[0]) if spec else ""


def section_bodies(s: Signals, tree_depth: int, max_deps: int) -> dict[str, str]:
    return {
        "objective": _objective(s),
        "stack": _stack(s),
        "dependencies": _dependencies(s, max_deps),
        "architecture": _architecture(s),
        "design": _design(s),
        "practices": _practices(s),
        "commands": _commands(s),
        "endpoints": "\n".join(f"- `{e}`" for e in s.endpoints),
        "core": _core(s),
        "sensitive": _sensitive(s),
        "env": "\n".join(f"- `{name}`" for name in s.env_vars),
        "integrations": "\n".join(f"- {name}" for name in s.integrations),
        "tree": f"```\n{render_tree(s.files, tree_depth, ranked=s.ranked)}\n```",
        "references": _references(s),
    }


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    if not rows:
        return ""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _commands(s: Signals) -> str:
    """One row per role with where it came from, then the alternatives on one line."""
    rows = [(kind, f"`{command}`", s.command_sources.get(kind, "")) for kind, command in
            s.commands.items()]
    text = _table(("Task", "Command", "From"), rows)
    also = ", ".join(f"`{c.command}` ({c.kind})" for c in s.command_alternatives)
    return f"{text}\n\nAlso: {also}." if text and also else text


def _objective(s: Signals) -> str:
    return s.description or f"{s.name}: no description found in the manifests or README."


def _stack(s: Signals) -> str:
    rows = [(f"{lang.capitalize()} code", f"{count} files") for lang, count in
            list(s.languages.items())[:6]]
    rows[:0] = [(lang, short_version(version) if lang != "Rust edition" else version)
                for lang, version in s.runtime.items()]
    all_deps = {**s.dev_dependencies, **s.dependencies}
    rows += [(label, short_version(all_deps[dep]) or "any") for dep, label in FRAMEWORKS.items()
             if dep in all_deps]
    manifests = ", ".join(f"`{m}`" for m in s.manifests) or "none"
    return _table(("Component", "Version / extent"), rows) + f"\n\nManifests: {manifests}."


def _dependencies(s: Signals, max_deps: int) -> str:
    rows = [(f"`{name}`", short_version(ver) or "any") for name, ver in
            list(s.dependencies.items())[:max_deps]]
    more = len(s.dependencies) - len(rows)
    text = _table(("Package", "Version"), rows)
    if more > 0:
        text += f"\n\n…and {more} more (see the manifests)."
    dev = list(s.dev_dependencies)[:12]
    if dev:
        text += "\n\nDev/optional: " + ", ".join(f"`{d}`" for d in dev) + "."
    return text


def _architecture(s: Signals) -> str:
    rows = [(f"`{d}/`", f"{n} files") for d, n in list(s.top_dirs.items())[:12]]
    text = _table(("Directory", "Size"), rows)
    if s.test_dirs:
        text += "\n\nTests live in " + ", ".join(f"`{d}/`" for d in s.test_dirs) + "."
    return text or "Flat layout: all files at the root."


def _design(s: Signals) -> str:
    notes = []
    deps = set(s.dependencies) | set(s.dev_dependencies)
    if "pydantic" in deps:
        notes.append("Typed models with Pydantic at the boundaries.")
    if {"react", "vue", "svelte", "textual"} & deps:
        notes.append("Component-based UI.")
    if s.endpoints:
        notes.append(f"HTTP routes declared in code ({len(s.endpoints)} found).")
    if any(f.endswith(".proto") for f in s.files):
        notes.append("Protocol Buffers define service contracts.")
    if "Dockerfile" in s.configs:
        notes.append("Containerised (Dockerfile).")
    langs = ", ".join(list(s.languages)[:3])
    notes.append(f"Main languages: {langs}." if langs else "No source files recognised.")
    return "\n".join(f"- {n}" for n in notes)


def _practices(s: Signals) -> str:
    rows: list[tuple[str, str]] = []
    tools = set(s.tools)
    lint = [c for c in s.configs if re.search(r"ruff|eslint|prettier|biome|golangci|clippy|"
                                              r"rustfmt|editorconfig|pre-commit", c)]
    lint += sorted(t for t in tools if t in {"ruff", "black", "isort", "mypy", "pyright",
                                              "flake8"})
    if lint:
        rows.append(("Code", ", ".join(lint)))
    tests = [f"`{s.commands['test']}`"] if "test" in s.commands else []
    tests += [t for t in ("pytest", "jest", "vitest", "mocha", "rspec", "phpunit/phpunit",
                          "junit:junit", "org.junit.jupiter:junit-jupiter", "xunit", "nunit")
              if t in s.dev_dependencies or t in s.dependencies or t in tools]
    if tests or s.test_dirs:
        rows.append(("Tests", ", ".join(tests) or "tests present"))
    if s.ci:
        rows.append(("CI", ", ".join(s.ci[:4])))
    rows.append(("Git", "branch and commit conventions: not detected"))
    return _table(("Area", "Convention"), rows)


def _core(s: Signals) -> str:
    return "\n".join(f"- `{path}`" for path in s.core[:8]) or "_No code files found._"


def _sensitive(s: Signals) -> str:
    lines = [f"- `{p}`" for p in s.sensitive]
    if s.env_vars:
        lines.append("- Secrets come from environment variables; never commit `.env`.")
    if s.ci:
        lines.append("- CI workflows run with repository secrets.")
    return "\n".join(lines) or "- None detected; treat credentials and `.env` files as secret."


def _references(s: Signals) -> str:
    return "\n".join(f"- `{d}`" for d in s.docs) or "- No documentation files found."
