"""What /init learns about a project before anyone writes VALARMIND.md: manifests, configs,
docs, sampled code and a tree that honours .gitignore. Read-only; values of .env files are
never read, only the variable names of `.env.example`-style templates."""

from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from valarmind_tui.repomap.files import list_files
from valarmind_tui.repomap.languages import language_for
from valarmind_tui.safe_files import read_regular_text

CONFIG_FILES = (
    "tsconfig.json", "ruff.toml", ".ruff.toml", "setup.cfg", "tox.ini", "mypy.ini",
    ".pre-commit-config.yaml", ".editorconfig", "Makefile", "justfile", "Dockerfile",
    "docker-compose.yml", "docker-compose.yaml", "compose.yaml", ".gitlab-ci.yml",
    "jest.config.js", "vitest.config.ts", "vite.config.ts", "webpack.config.js",
    "eslint.config.js", "eslint.config.mjs", ".eslintrc.json", ".eslintrc.js", ".eslintrc",
    ".prettierrc", ".prettierrc.json", "prettier.config.js", "biome.json", "rustfmt.toml",
    "clippy.toml", ".golangci.yml", "pytest.ini", "noxfile.py",
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


def collect_signals(root: Path) -> Signals:
    root = root.resolve()
    # VALARMIND.md is what /init writes: listing it would make every run differ from the last.
    files = [f for f in list_files(root) if f != "VALARMIND.md"]
    signals = Signals(root=root, name=root.name, files=files)
    signals.languages = dict(Counter(
        lang for f in files if (lang := language_for(f))).most_common())
    _manifests(root, signals)
    signals.configs = [c for c in CONFIG_FILES if (root / c).is_file()]
    signals.ci = [f for f in files if f.startswith(".github/workflows/")] + (
        [".gitlab-ci.yml"] if ".gitlab-ci.yml" in signals.configs else [])
    for doc in DOC_FILES:
        if (root / doc).is_file():
            signals.docs[doc] = _read(root / doc, 4000)
    signals.docs.update({f: "" for f in files if _is_adr(f)})
    if not signals.description:
        signals.description = _readme_summary(signals.docs)
    signals.env_vars = _env_vars(root, files)
    signals.top_dirs = dict(Counter(
        f.split("/", 1)[0] for f in files if "/" in f).most_common())
    signals.test_dirs = sorted({f.split("/")[0] for f in files
                                if re.search(r"(^|/)(tests?|__tests__|spec)/", f)})
    code = [f for f in files if language_for(f) and not _is_test(f)]
    signals.samples = _samples(root, code)
    endpoints, env_in_code = _scan_code(root, code)
    signals.endpoints = endpoints
    signals.env_vars = sorted(set(signals.env_vars) | env_in_code)
    signals.integrations = sorted({label for dep, label in INTEGRATIONS.items()
                                   if dep in signals.dependencies})
    signals.sensitive = _sensitive(files)
    return signals


def _manifests(root: Path, s: Signals) -> None:
    if (root / "pyproject.toml").is_file():
        _pyproject(root, s)
    if (root / "package.json").is_file():
        _package_json(root, s)
    if (root / "Cargo.toml").is_file():
        data = _toml(root / "Cargo.toml")
        pkg = data.get("package", {})
        s.manifests["Cargo.toml"] = {"name": pkg.get("name"), "edition": pkg.get("edition")}
        s.name = pkg.get("name") or s.name
        s.description = s.description or pkg.get("description", "")
        s.dependencies.update({k: _version(v) for k, v in data.get("dependencies", {}).items()})
        s.dev_dependencies.update(
            {k: _version(v) for k, v in data.get("dev-dependencies", {}).items()})
        s.commands.setdefault("build", "cargo build")
        s.commands.setdefault("test", "cargo test")
        s.commands.setdefault("lint", "cargo clippy")
    if (root / "go.mod").is_file():
        text = _read(root / "go.mod", 20000)
        module = re.search(r"^module\s+(\S+)", text, re.M)
        go = re.search(r"^go\s+(\S+)", text, re.M)
        s.manifests["go.mod"] = {"module": module and module.group(1), "go": go and go.group(1)}
        for dep, ver in re.findall(r"^\s*([\w./-]+\.[\w./-]+)\s+(v[\w.+-]+)", text, re.M):
            s.dependencies[dep] = ver
        s.commands.setdefault("build", "go build ./...")
        s.commands.setdefault("test", "go test ./...")
        s.commands.setdefault("lint", "go vet ./...")
    if (root / "requirements.txt").is_file() and "pyproject.toml" not in s.manifests:
        for line in _read(root / "requirements.txt", 20000).splitlines():
            m = re.match(r"\s*([A-Za-z0-9_.\-\[\]]+)\s*([=<>!~]=?\s*[\w.*]+)?", line)
            if m and not line.lstrip().startswith(("#", "-")):
                s.dependencies[m.group(1).lower()] = (m.group(2) or "").replace(" ", "")
        s.manifests["requirements.txt"] = {}
    if (root / "Makefile").is_file():
        for target in re.findall(r"^([a-zA-Z][\w-]*):(?!=)", _read(root / "Makefile", 20000),
                                 re.M)[:12]:
            s.commands.setdefault(target, f"make {target}")


def _pyproject(root: Path, s: Signals) -> None:
    data = _toml(root / "pyproject.toml")
    project = data.get("project", {})
    poetry = data.get("tool", {}).get("poetry", {})
    s.name = project.get("name") or poetry.get("name") or s.name
    s.description = project.get("description") or poetry.get("description") or ""
    s.manifests["pyproject.toml"] = {
        "requires-python": project.get("requires-python"),
        "tools": sorted(data.get("tool", {})),
        "scripts": project.get("scripts", {}),
    }
    for req in project.get("dependencies", []):
        name, ver = _split_req(req)
        s.dependencies[name] = ver
    for group in project.get("optional-dependencies", {}).values():
        for req in group:
            name, ver = _split_req(req)
            s.dev_dependencies[name] = ver
    for name, ver in poetry.get("dependencies", {}).items():
        if name != "python":
            s.dependencies[name.lower()] = _version(ver)
    tools = data.get("tool", {})
    if "pytest" in tools or (root / "tests").is_dir():
        s.commands.setdefault("test", "pytest")
    if "ruff" in tools or (root / "ruff.toml").is_file():
        s.commands.setdefault("lint", "ruff check .")
        s.commands.setdefault("format", "ruff format .")
    if "mypy" in tools:
        s.commands.setdefault("typecheck", "mypy .")
    for script in project.get("scripts", {}):
        s.commands.setdefault(f"run {script}", script)


def _package_json(root: Path, s: Signals) -> None:
    try:
        data = json.loads(_read(root / "package.json", 200_000))
    except ValueError:
        return
    s.manifests["package.json"] = {"engines": data.get("engines", {}),
                                   "type": data.get("type")}
    if "pyproject.toml" not in s.manifests:
        s.name = data.get("name") or s.name
    s.description = s.description or data.get("description", "")
    s.dependencies.update(data.get("dependencies", {}))
    s.dev_dependencies.update(data.get("devDependencies", {}))
    runner = "pnpm" if (root / "pnpm-lock.yaml").exists() else (
        "yarn" if (root / "yarn.lock").exists() else "npm")
    for script in data.get("scripts", {}):
        s.commands.setdefault(script, f"{runner} run {script}")


def _split_req(req: str) -> tuple[str, str]:
    m = re.match(r"\s*([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(.*)", req)
    if not m:
        return req, ""
    return m.group(1).lower(), m.group(2).split(";")[0].strip()


def _version(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("version", ""))
    return str(value)


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(_read(path, 500_000))
    except tomllib.TOMLDecodeError:
        return {}


def _read(path: Path, limit: int) -> str:
    try:
        return read_regular_text(path, errors="replace")[:limit]
    except OSError:
        return ""


def _readme_summary(docs: dict[str, str]) -> str:
    for name in DOC_FILES[:4]:
        text = docs.get(name, "")
        for para in re.split(r"\n\s*\n", text):
            para = para.strip()
            if para and not para.startswith(("#", "[!", "!", "<", "=", "-", "|", "```", "..")):
                return " ".join(para.split())[:400]
    return ""


def _is_adr(path: str) -> bool:
    return bool(re.search(r"(^|/)(adr|adrs|decisions)/[^/]+\.md$", path, re.I))


def _is_test(path: str) -> bool:
    name = PurePosixPath(path).name
    return bool(re.search(r"(^|/)(tests?|__tests__|spec)/", path)
                or name.startswith("test_") or re.search(r"[._](test|spec)\.\w+$", name))


def _env_vars(root: Path, files: list[str]) -> list[str]:
    names: set[str] = set()
    for template in ENV_TEMPLATES:
        for line in _read(root / template, 50_000).splitlines():
            m = re.match(r"\s*(?:export\s+)?([A-Z][A-Z0-9_]*)\s*=", line)
            if m:
                names.add(m.group(1))
    return sorted(names)


def _samples(root: Path, code: list[str]) -> dict[str, str]:
    entry = re.compile(r"(^|/)(main|app|index|server|cli|__main__|lib|mod)\.\w+$")
    ranked = sorted(code, key=lambda f: (not entry.search(f), f.count("/"), f))
    out = {}
    for rel in ranked[:SAMPLE_FILES]:
        lines = _read(root / rel, 20_000).splitlines()[:SAMPLE_LINES]
        out[rel] = "\n".join(lines)
    return out


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
            and not _is_test(f)]
    return hits[:15]


def render_tree(files: list[str], max_depth: int = 3, max_entries: int = 60) -> str:
    """A directory tree (directories first, file counts for what is cut)."""
    tree: dict[str, Any] = {}
    for f in files:
        node = tree
        for part in f.split("/"):
            node = node.setdefault(part, {})
    lines = [".", *_tree_lines(tree, "", 1, max_depth)]
    if len(lines) > max_entries:
        lines = lines[:max_entries] + ["… (shallower view cut here)"]
    return "\n".join(lines)


def _tree_lines(node: dict[str, Any], prefix: str, depth: int, max_depth: int) -> list[str]:
    dirs = sorted(k for k, v in node.items() if v)
    leaves = sorted(k for k, v in node.items() if not v)
    out: list[str] = []
    for d in dirs:
        if depth >= max_depth:
            out.append(f"{prefix}{d}/ ({_count(node[d])} files)")
        else:
            out.append(f"{prefix}{d}/")
            out.extend(_tree_lines(node[d], prefix + "  ", depth + 1, max_depth))
    if depth == 1 or len(leaves) <= 6:
        out.extend(prefix + leaf for leaf in leaves)
    else:
        out.append(f"{prefix}… {len(leaves)} files")
    return out


def _count(node: dict[str, Any]) -> int:
    return sum(_count(v) if v else 1 for v in node.values())
