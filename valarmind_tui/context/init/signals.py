"""What /init learns about a project before anyone writes VALARMIND.md: manifests, configs,
docs, sampled code and a tree that honours .gitignore. Read-only; values of .env files are
never read, only the variable names of `.env.example`-style templates."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from valarmind_tui.context.init.readme import readme_summary
from valarmind_tui.context.init.tree import core_files, is_junk, is_shipped, rank_files
from valarmind_tui.context.manifests.facts import normalize
from valarmind_tui.context.manifests.facts import read_text as _read
from valarmind_tui.context.manifests.read import read_manifests
from valarmind_tui.context.project_commands import ProjectCommand, detect
from valarmind_tui.repomap.files import list_files
from valarmind_tui.repomap.languages import language_for

CONFIG_FILES = (
    "tsconfig.json", "ruff.toml", ".ruff.toml", "setup.cfg", "tox.ini", "mypy.ini",
    ".pre-commit-config.yaml", ".editorconfig", "Makefile", "justfile", "Dockerfile",
    "docker-compose.yml", "docker-compose.yaml", "compose.yaml", ".gitlab-ci.yml",
    "jest.config.js", "vitest.config.ts", "vite.config.ts", "webpack.config.js",
    "eslint.config.js", "eslint.config.mjs", ".eslintrc.json", ".eslintrc.js", ".eslintrc",
    ".prettierrc", ".prettierrc.json", "prettier.config.js", "biome.json", "rustfmt.toml",
    "clippy.toml", ".golangci.yml", "pytest.ini", "noxfile.py", ".flake8", ".rubocop.yml",
    "phpunit.xml", "phpunit.xml.dist", "phpstan.neon", "global.json", "Directory.Build.props",
)
DOC_FILES = ("README.md", "README.rst", "README.txt", "README", "CONTRIBUTING.md",
             "ARCHITECTURE.md", "CHANGELOG.md", "SECURITY.md")
ENV_TEMPLATES = (".env.example", ".env.sample", ".env.template", ".env.dist", "example.env")
SAMPLE_FILES = 8
SAMPLE_LINES = 60
_ENV_IN_CODE = re.compile(
    r"""(?:os\.environ(?:\.get)?\(?\[?|os\.getenv\(|process\.env\.|process\.env\[|"""
    r"""env::var\(|os\.Getenv\(|ENV\[|System\.getenv\()\s*['"]?([A-Z][A-Z0-9_]{2,})""")
_ROUTE = re.compile(
    r"""(?:@(?:\w+\.)?(?:route|get|post|put|patch|delete)\(\s*['"](/[^'"]*)['"]"""
    r"""|\b(?:app|router|server)\.(?:get|post|put|patch|delete|use)\(\s*['"](/[^'"]*)['"]"""
    r"""|HandleFunc\(\s*"(/[^"]*)"|#\[(?:get|post|put|delete)\("(/[^"]*)"\))""")
INTEGRATIONS = {
    "boto3": "AWS", "aws-sdk": "AWS", "@aws-sdk": "AWS", "stripe": "Stripe",
    "openai": "OpenAI", "anthropic": "Anthropic", "litellm": "LLM providers (LiteLLM)",
    "redis": "Redis", "psycopg": "PostgreSQL", "psycopg2": "PostgreSQL", "pg": "PostgreSQL",
    "asyncpg": "PostgreSQL", "pymongo": "MongoDB", "mongoose": "MongoDB", "mysql": "MySQL",
    "sqlalchemy": "SQL database (SQLAlchemy)", "prisma": "Database (Prisma)",
    "celery": "Celery", "kafka-python": "Kafka", "kafkajs": "Kafka", "pika": "RabbitMQ",
    "sentry-sdk": "Sentry", "@sentry/node": "Sentry", "firebase": "Firebase",
    "google-cloud-storage": "Google Cloud Storage", "twilio": "Twilio", "sendgrid": "SendGrid",
    "elasticsearch": "Elasticsearch", "mcp": "MCP servers", "httpx": "HTTP APIs (httpx)",
    "requests": "HTTP APIs (requests)", "axios": "HTTP APIs (axios)", "reqwest": "HTTP APIs",
}
SENSITIVE_HINTS = ("auth", "security", "secret", "crypt", "password", "token", "permission",
                   "payment", "billing", "migration", "sandbox", "session")


@dataclass
class Signals:
    """Everything /init collected; the input of the draft and of the model's prompt."""

    root: Path
    name: str
    description: str = ""
    languages: dict[str, int] = field(default_factory=dict)
    manifests: dict[str, dict[str, Any]] = field(default_factory=dict)
    dependencies: dict[str, str] = field(default_factory=dict)
    dev_dependencies: dict[str, str] = field(default_factory=dict)
    commands: dict[str, str] = field(default_factory=dict)
    """The project's command per role (test, lint, format, typecheck, build)."""
    command_sources: dict[str, str] = field(default_factory=dict)
    """Where each role's command came from (a workflow, the Makefile, CONTRIBUTING.md...)."""
    command_alternatives: list[ProjectCommand] = field(default_factory=list)
    """Other commands found for the roles: VALARMIND.md's short 'also' line."""
    configs: list[str] = field(default_factory=list)
    docs: dict[str, str] = field(default_factory=dict)
    ci: list[str] = field(default_factory=list)
    env_vars: list[str] = field(default_factory=list)
    endpoints: list[str] = field(default_factory=list)
    integrations: list[str] = field(default_factory=list)
    sensitive: list[str] = field(default_factory=list)
    top_dirs: dict[str, int] = field(default_factory=dict)
    test_dirs: list[str] = field(default_factory=list)
    samples: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    runtime: dict[str, str] = field(default_factory=dict)
    """Language versions from the manifests: {"Python": ">=3.8"...}."""
    tools: list[str] = field(default_factory=list)
    ecosystems: list[str] = field(default_factory=list)
    ranked: list[str] = field(default_factory=list)
    """Every file, best first by the repo map's ranking."""
    core: list[str] = field(default_factory=list)
    """The best-ranked source files that are not tests."""


def collect_signals(root: Path) -> Signals:
    root = root.resolve()
    # VALARMIND.md is what /init writes: listing it would make every run differ from the last.
    files = [f for f in list_files(root) if f != "VALARMIND.md" and not is_junk(f)]
    found = read_manifests(root)
    signals = Signals(root=root, name=found.name or root.name, files=files,
                      description=found.description, manifests=found.found,
                      dependencies=found.dependencies, dev_dependencies=found.dev_dependencies,
                      runtime=found.runtime, tools=sorted(found.tools),
                      ecosystems=found.ecosystems)
    # the language of what the project ships, not of its tests, fixtures or vendored code
    shipped = [f for f in files if is_shipped(f)]
    signals.languages = dict(Counter(
        lang for f in shipped if (lang := language_for(f))).most_common())
    commands = detect(root, found, signals.languages)
    signals.commands = {c.kind: c.command for c in commands.chosen}
    signals.command_sources = {c.kind: c.source for c in commands.chosen}
    signals.command_alternatives = commands.alternatives
    signals.configs = [c for c in CONFIG_FILES if (root / c).is_file()]
    signals.ci = [f for f in files if _is_ci(f)]
    names = {f.lower(): f for f in files if "/" not in f}
    for doc in DOC_FILES:
        real = names.get(doc.lower())
        if real is not None and real not in signals.docs:
            signals.docs[real] = _read(root / real, 4000)
    signals.docs.update({f: "" for f in files if _is_adr(f)})
    if not signals.description:
        signals.description = readme_summary(signals.docs)
    signals.env_vars = _env_vars(root, files)
    signals.top_dirs = dict(Counter(
        f.split("/", 1)[0] for f in files if "/" in f).most_common())
    signals.test_dirs = sorted({f.split("/")[0] for f in files
                                if re.search(r"(^|/)(tests?|__tests__|spec)/", f)})
    signals.ranked = rank_files(root, files)
    code = {f for f in shipped if language_for(f)}
    signals.core = core_files(signals.ranked, code)
    signals.samples = {rel: "\n".join(_read(root / rel, 20_000).splitlines()[:SAMPLE_LINES])
                       for rel in signals.core[:SAMPLE_FILES]}
    endpoints, env_in_code = _scan_code(root, sorted(code))
    signals.endpoints = endpoints
    signals.env_vars = sorted(set(signals.env_vars) | env_in_code)
    deps = {normalize(d) for d in signals.dependencies}
    signals.integrations = sorted({label for dep, label in INTEGRATIONS.items()
                                   if normalize(dep) in deps})
    signals.sensitive = _sensitive(files)
    return signals


def _is_ci(path: str) -> bool:
    return path.startswith((".github/workflows/", ".circleci/", ".buildkite/")) or path in (
        ".gitlab-ci.yml", ".travis.yml", "azure-pipelines.yml", "Jenkinsfile",
        "bitbucket-pipelines.yml", "appveyor.yml", ".drone.yml")


def _is_adr(path: str) -> bool:
    return bool(re.search(r"(^|/)(adr|adrs|decisions)/[^/]+\.md$", path, re.I))


def _env_vars(root: Path, files: list[str]) -> list[str]:
    names: set[str] = set()
    for template in ENV_TEMPLATES:
        for line in _read(root / template, 50_000).splitlines():
            m = re.match(r"\s*(?:export\s+)?([A-Z][A-Z0-9_]*)\s*=", line)
            if m:
                names.add(m.group(1))
    return sorted(names)


def _scan_code(root: Path, code: list[str]) -> tuple[list[str], set[str]]:
    endpoints: list[str] = []
    env: set[str] = set()
    for rel in code[:400]:
        text = _read(root / rel, 100_000)
        for m in _ROUTE.finditer(text):
            route = next(g for g in m.groups() if g)
            if route not in endpoints:
                endpoints.append(route)
        env.update(_ENV_IN_CODE.findall(text))
    return endpoints[:40], env


def _sensitive(files: list[str]) -> list[str]:
    hits = [f for f in files if any(h in f.lower() for h in SENSITIVE_HINTS)
            and is_shipped(f)]
    return hits[:15]


