"""Static checks of a change that need no model and no project configuration.

- security: ruff's bandit-derived `S` rules, from the ruff next to our own interpreter, run
  `--isolated` (the project's lint configuration neither adds nor removes rules) in the
  sandbox, on changed Python files; only findings on added lines count;
- secrets: detect-secrets' line plugins on added lines. The value is never put in a finding:
  only the kind, the place and its length. `scrub` takes the values out of any text (the diff
  a model sees);
- risk areas: auth, payment, crypto, migrations, CI and dependency manifests or lock files;
- untested changes: changed source files when no test file changed with them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from valarmind_tui.agents.results import ReviewFinding, Severity
from valarmind_tui.agents.review.diff import run_json
from valarmind_tui.repomap.languages import language_for
from valarmind_tui.safety.content import holds_secrets, unquote_git_path

if TYPE_CHECKING:
    from valarmind_tui.safety.sandbox.wrap import Sandbox

AddedLines = dict[str, dict[int, str]]
"""file -> {line number on the new side: text} of every added line."""

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_SECURITY_SEVERITY: dict[str, Severity] = {
    **dict.fromkeys(("S102", "S307", "S602", "S604", "S605", "S609"), "critical"),
    **dict.fromkeys(("S104", "S105", "S106", "S107", "S108", "S113", "S301", "S302", "S306",
                     "S310", "S311", "S321", "S323", "S324", "S501", "S502", "S503", "S504",
                     "S506", "S508", "S509", "S601", "S606", "S608", "S611", "S701", "S702"),
                    "major"),
    **dict.fromkeys(("S101", "S110", "S112", "S403", "S404", "S603", "S607"), "info"),
}
_SECURITY_FIX = {
    "S307": "Use `ast.literal_eval` for literals, or parse the input explicitly.",
    "S102": "Do not execute strings; call the code directly.",
    "S602": "Pass a list of arguments and drop `shell=True`.",
    "S605": "Use `subprocess.run([...])` with a list of arguments, without a shell.",
    "S608": "Use the driver's query parameters instead of building SQL from strings.",
    "S506": "Use `yaml.safe_load`.",
    "S301": "Do not unpickle untrusted data; use JSON or another safe format.",
    "S324": "Use SHA-256 or better (or `usedforsecurity=False` when it is not for security).",
    "S501": "Keep certificate verification on.",
    "S105": "Read the secret from the environment or a secrets manager.",
    "S106": "Read the secret from the environment or a secrets manager.",
    "S113": "Pass a `timeout=`.",
}
_SECRET_RULES = ("S105", "S106", "S107")


# -- the diff's added lines ---------------------------------------------------------------
def added_lines(diff: str) -> AddedLines:
    """Every added line of a unified diff, by file and new-side line number."""
    out: AddedLines = {}
    current: dict[int, str] | None = None
    line = 0
    for text in diff.splitlines():
        if text.startswith("diff "):
            current = None
        elif text.startswith("+++ "):
            name = unquote_git_path(text[4:].strip())
            current = None if name == "/dev/null" else out.setdefault(name.removeprefix("b/"), {})
        elif (match := _HUNK.match(text)) is not None:
            line = int(match.group(1))
        elif current is None:
            continue
        elif text.startswith("+"):
            current[line] = text[1:]
            line += 1
        elif text.startswith(" "):
            line += 1
    return out


def in_change(added: AddedLines, file: str, line: int | None) -> bool:
    """Is `line` of `file` part of the change (every line of a file reviewed as it is)?"""
    if file not in added:
        return True
    return line is not None and line in added[file]


# -- security rules -----------------------------------------------------------------------
async def security_findings(
    root: Path, files: list[str], added: AddedLines, sandbox: Sandbox | None = None,
) -> list[ReviewFinding] | None:
    """ruff's `S` rules on the changed Python files; None when ruff is not installed."""
    chosen = [f for f in files if f.endswith((".py", ".pyi")) and (root / f).is_file()
              and not holds_secrets(root, f)]
    if not chosen:
        return []
    exe = _our_ruff()
    if exe is None:
        return None
    rows = await run_json(
        [*exe, "check", "--isolated", "--select", "S", "--output-format", "json", "--no-fix",
         "--exit-zero", "--", *chosen], root, sandbox=sandbox)
    if rows is None:
        return None
    found = []
    for row in rows:
        rule = row.get("code") or ""
        file = _rel(root, row.get("filename", ""))
        line = (row.get("location") or {}).get("row")
        if not rule.startswith("S") or not in_change(added, file, line):
            continue
        if rule == "S101" and is_test_file(file):
            continue
        found.append(ReviewFinding(
            severity=_SECURITY_SEVERITY.get(rule, "minor"), file=file, line=line,
            message=f"{rule} {row.get('message')}",
            category="secret" if rule in _SECRET_RULES else "security",
            suggested_fix=_SECURITY_FIX.get(rule), source="static:security", rule=rule,
            confidence=0.8,
        ))
    return found


def _our_ruff() -> list[str] | None:
    """The ruff installed with ValarMind (not the project's: the rules must not depend on it)."""
    sibling = Path(sys.executable).parent / "ruff"
    if sibling.is_file():
        return [str(sibling)]
    try:
        from ruff.__main__ import find_ruff_bin

        return [str(find_ruff_bin())]
    except (ImportError, FileNotFoundError):
        return None


# -- secrets ------------------------------------------------------------------------------
def secret_findings(root: Path, files: list[str], added: AddedLines
                    ) -> tuple[list[ReviewFinding], list[str]]:
    """(findings, the secret values found). The values are for `scrub` only: never shown."""
    findings: list[ReviewFinding] = []
    values: list[str] = []
    for file in files:
        if holds_secrets(root, file):
            continue  # its content is left out everywhere; a .env is where secrets belong
        lines = added.get(file)
        if lines is None:
            lines = _whole_file(root / file)
        for line, kind, value in scan_lines(file, lines):
            values.append(value)
            findings.append(ReviewFinding(
                severity="critical", file=file, line=line, category="secret",
                message=f"Possible secret in the change: {kind} (value redacted, "
                        f"{len(value)} characters)",
                suggested_fix="Remove it, rotate it, and read it from the environment or a "
                              "secrets manager.",
                source="static:secrets", rule=f"secret:{kind}", confidence=0.7,
            ))
    return findings, values


def _whole_file(path: Path) -> dict[int, str]:
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if b"\0" in data[:8192] or len(data) > 1_000_000:
        return {}
    return dict(enumerate(data.decode("utf-8", "replace").splitlines(), 1))


def scan_lines(file: str, lines: dict[int, str]) -> list[tuple[int, str, str]]:
    """(line, kind, value) of each secret in `lines`: detect-secrets' plugins when installed,
    else a few well-known patterns."""
    if not lines:
        return []
    try:
        from detect_secrets.core.scan import _process_line_based_plugins
        from detect_secrets.settings import default_settings
    except ImportError:
        return _scan_with_patterns(lines)
    out: list[tuple[int, str, str]] = []
    seen: set[int] = set()
    with default_settings():
        for found in _process_line_based_plugins(sorted(lines.items()), filename=file):
            if found.line_number in seen or not found.secret_value:
                continue  # one finding per line: an AWS key is also a high-entropy string
            seen.add(found.line_number)
            value = whole_token(lines.get(found.line_number, ""), found.secret_value)
            out.append((found.line_number, found.type, value))
    return out


def whole_token(line: str, part: str) -> str:
    """The whole token of `line` around `part` (a plugin may report only a prefix, as
    detect-secrets' GitHub plugin reports `ghp`), so all of it is scrubbed."""
    match = re.search(rf"[^\s'\"`=:,;()\[\]{{}}<>]*{re.escape(part)}[^\s'\"`=:,;()\[\]{{}}<>]*",
                      line)
    return match.group(0) if match else part


_PATTERNS = (
    ("AWS Access Key", re.compile(r"\b((?:AKIA|ASIA)[0-9A-Z]{16})\b")),
    ("GitHub Token", re.compile(r"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,})\b")),
    ("Private Key", re.compile(r"(-----BEGIN [A-Z ]*PRIVATE KEY-----)")),
    ("Secret Keyword", re.compile(
        r"(?i)(?:password|passwd|secret|api_?key|token)\w*\s*[:=]\s*['\"]([^'\"\s]{6,})['\"]")),
)


def _scan_with_patterns(lines: dict[int, str]) -> list[tuple[int, str, str]]:
    out = []
    for number, text in sorted(lines.items()):
        for kind, pattern in _PATTERNS:
            match = pattern.search(text)
            if match:
                out.append((number, kind, match.group(1)))
                break
    return out


def scrub(text: str, values: list[str]) -> str:
    """`text` with every secret value replaced."""
    for value in sorted(set(values), key=len, reverse=True):
        if len(value) >= 4:
            text = text.replace(value, "[secret redacted]")
    return text


# -- risk areas and tests -----------------------------------------------------------------
_RISK_PATHS = (
    ("migration", "a database migration", re.compile(
        r"(^|/)(migrations?|alembic|db/migrate)/|(^|/)migrations?[^/]*\.sql$", re.I)),
    ("ci", "CI configuration", re.compile(
        r"(^|/)(\.github/workflows/|\.gitlab-ci\.yml$|\.circleci/|Jenkinsfile$|azure-pipelines"
        r"|\.travis\.yml$|\.pre-commit-config\.yaml$)")),
    ("dependencies", "a dependency manifest or lock file", re.compile(
        r"(^|/)(pyproject\.toml|setup\.py|setup\.cfg|requirements[^/]*\.(txt|in|lock)|Pipfile"
        r"(\.lock)?|poetry\.lock|uv\.lock|package(-lock)?\.json|yarn\.lock|pnpm-lock\.yaml"
        r"|Cargo\.(toml|lock)|go\.(mod|sum)|Gemfile(\.lock)?|pom\.xml|build\.gradle(\.kts)?"
        r"|composer\.(json|lock)|[^/]*\.lock)$")),
    ("auth", "authentication or authorization code", re.compile(
        r"(auth|login|logout|session|oauth|jwt|password|permission|acl|rbac|sso|saml)", re.I)),
    ("payment", "payment code", re.compile(
        r"(payment|billing|invoice|checkout|stripe|paypal|refund)", re.I)),
    ("crypto", "cryptography code", re.compile(
        r"(crypto|cipher|encrypt|decrypt|hmac|\btls\b|\bssl\b|certificate)", re.I)),
)
_RISK_CONTENT = (
    ("crypto", re.compile(r"^\s*(?:from|import)\s+(hashlib|hmac|secrets|ssl|cryptography|"
                          r"Crypto|nacl|bcrypt|jwt|passlib)\b")),
    ("auth", re.compile(r"^\s*(?:from|import)\s+(flask_login|django\.contrib\.auth|authlib|"
                        r"oauthlib|jose)\b")),
)
_TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec|testing)/|(^|/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$"
    r"|(^|/)conftest\.py$|Tests?\.(java|kt|cs|swift)$")


def is_test_file(path: str) -> bool:
    return bool(_TEST_PATH.search(path))


def risk_findings(files: list[str], deleted: list[str], added: AddedLines) -> list[ReviewFinding]:
    """One info finding per file and risk area it touches."""
    out = []
    for file in [*files, *deleted]:
        lines = added.get(file, {})
        first = min(lines) if lines else None
        hits: dict[str, tuple[int | None, str]] = {}
        for rule, what, pattern in _RISK_PATHS:
            if rule in ("auth", "payment", "crypto") and is_test_file(file):
                continue
            if pattern.search(file) and rule not in hits:
                hits[rule] = (first, f"Touches {what}: `{file}`; review it with extra care.")
        for rule, pattern in _RISK_CONTENT:
            for number, text in sorted(lines.items()):
                match = pattern.match(text)
                if match and rule not in hits:
                    hits[rule] = (number, f"Brings in `{match.group(1)}` ({rule}); review how "
                                          "it is used.")
        for rule, (line, message) in hits.items():
            out.append(ReviewFinding(severity="info", file=file, line=line, message=message,
                                     category="risk", source="static:risk",
                                     rule=f"risk:{rule}", confidence=0.5))
    return out


def untested_findings(files: list[str], deleted: list[str]) -> list[ReviewFinding]:
    """Changed source files when the change touches no test at all."""
    if any(is_test_file(f) for f in [*files, *deleted]):
        return []
    out = []
    for file in files:
        if language_for(file) is None or language_for(file) == "bash":
            continue
        stem = PurePosixPath(file).stem
        out.append(ReviewFinding(
            severity="info", file=file, line=None, category="tests",
            message=f"`{file}` changed, but no test changed with it.",
            suggested_fix=f"Add or update a test that covers it (e.g. `test_{stem}`).",
            source="static:tests", rule="tests:untouched", confidence=0.5,
        ))
    return out


def _rel(root: Path, path: str) -> str:
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return path
