"""The structured results specialists return (seed 001), validated with pydantic.

Keys are snake_case; seed 001's camelCase spellings are accepted too, so a model that follows
the TypeScript interfaces still validates.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from pydantic.alias_generators import to_camel


class _Result(BaseModel):
    # defer_build: each model's validator is built when first used (a delegation's result),
    # not when every session imports these ~20 models (~8 ms)
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow",
                              defer_build=True)


class SearchFinding(_Result):
    file: str
    line: int | None = Field(None, ge=0)
    snippet: str | None = None
    relevance: float = Field(0.5, ge=0, le=1)
    context: str | None = None


class SearchResult(_Result):
    query: str = ""
    findings: list[SearchFinding] = Field(default_factory=list)
    summary: str
    confidence: float = Field(0.5, ge=0, le=1)
    suggested_next_steps: list[str] = Field(default_factory=list)


class Source(_Result):
    url: str
    title: str = ""
    type: str = "other"
    reliability: float = 5
    date: str | None = None


class Snippet(_Result):
    content: str
    language: str | None = None
    source: str = ""
    context: str | None = None


class ResearchResult(_Result):
    query: str = ""
    type: str = "general"
    sources: list[Source] = Field(default_factory=list)
    summary: str
    relevant_snippets: list[Snippet] = Field(default_factory=list)
    confidence: float = 0.5
    cached_at: str | None = None


class FileChange(_Result):
    path: str
    diff: str = ""
    lines_changed: int = 0


class CodeResult(_Result):
    task: str = ""
    files_modified: list[FileChange] = Field(default_factory=list)
    files_created: list[FileChange] = Field(default_factory=list)
    summary: str
    lint_passed: bool | None = None
    warnings: list[str] = Field(default_factory=list)


Severity = Literal["critical", "major", "minor", "info"]
BLOCKING: tuple[str, ...] = ("critical", "major")


class ReviewFinding(_Result):
    severity: Severity = "minor"
    file: str
    line: int | None = Field(None, ge=0)
    message: str
    category: str = "correctness"
    suggested_fix: str | None = None
    source: str = "model"
    """Who found it: `model`, or a static check (`static:ruff`, `static:security`,
    `static:secrets`, `static:impact`, `static:risk`, `static:tests`...)."""
    rule: str | None = None
    """The rule that fired (`F821`, `S307`, `detect-secrets:AWS Access Key`,
    `impact:renamed`...); None for a model's finding without one."""
    confidence: float | None = None
    """How sure the source is, 0-1."""
    related: list[str] = Field(default_factory=list)
    """Other places involved, as `file:line`: the callers a change breaks."""


class Suggestion(_Result):
    file: str
    line: int | None = None
    current: str = ""
    suggested: str = ""
    reason: str = ""


class ReviewResult(_Result):
    files_reviewed: list[str] = Field(default_factory=list)
    findings: list[ReviewFinding] = Field(validation_alias=AliasChoices("findings", "issues"))
    """Required: a review that does not say what it found is not a review (`{}` fails)."""
    suggestions: list[Suggestion] = Field(default_factory=list)
    overall_score: float | None = Field(None, ge=0, le=10)
    summary: str = ""
    approved: bool
    """Required; the gate passes only when approved and no critical or major finding remains."""

    def blocking(self) -> list[ReviewFinding]:
        return [f for f in self.findings if f.severity in BLOCKING]


class TestFailure(_Result):
    test: str
    file: str = ""
    error: str = ""
    stack: str | None = None
    diagnosis: str | None = None


class TestResult(_Result):
    __test__ = False  # not a pytest class

    command: str
    passed: bool
    total: int = Field(0, ge=0)
    passed_count: int = Field(0, ge=0)
    failed_count: int = Field(0, ge=0)
    skipped_count: int = Field(0, ge=0)
    coverage: dict[str, float] | None = None
    failures: list[TestFailure] = Field(default_factory=list)
    duration_ms: float = Field(0, ge=0)


class QACheck(_Result):
    name: str
    command: str | None = None
    passed: bool
    output: str | None = None
    required: bool = True


class QAResult(_Result):
    checks: list[QACheck]
    """Required; each claim is checked against the commands QA really ran (gate_verdicts)."""
    passed: bool
    blockers: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    summary: str = ""


class DocsResult(_Result):
    files_created: list[str] = Field(default_factory=list)
    files_updated: list[str] = Field(default_factory=list)
    summary: str
    word_count: int = 0


class SectionResult(_Result):
    name: str = Field(min_length=1)
    """The heading (Stack, Main Dependencies...)."""
    body: str = ""
    """The section's Markdown, without its heading."""
    source: Literal["extracted", "inferred", "asked"] = "inferred"
    confidence: float = Field(0.5, ge=0, le=1)
    token_count: int = Field(0, ge=0)


class InitResult(_Result):
    project_name: str = ""
    sections: list[SectionResult] = Field(default_factory=list)
    content: str = ""
    """The whole Markdown: accepted when no section has a body (split on `## ` headings)."""
    mode: Literal["create", "update"] = "create"
    path: str = "VALARMIND.md"
    token_count: int = Field(0, ge=0)
    token_budget: dict[str, int] = Field(default_factory=lambda: {"target": 3000, "hard_cap": 4800})
    warnings: list[str] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    """What the agent could not determine: shown to the person, who fills it in."""
    questions_asked: int = 0
    changes_from_previous: list[str] | None = None

    @model_validator(mode="after")
    def _has_sections(self) -> InitResult:
        if not self.content.strip() and not any(s.body.strip() for s in self.sections):
            raise ValueError("sections (with bodies) or content is required")
        return self


RESULT_MODELS: dict[str, type[BaseModel]] = {
    cls.__name__: cls
    for cls in (SearchResult, ResearchResult, CodeResult, ReviewResult, TestResult, QAResult,
                DocsResult, InitResult)
}

_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)\n```", re.DOTALL)


def extract_json(text: str) -> Any:
    """The JSON object in a final answer: the whole text, a ```json fence, or the outermost
    `{...}`. Raises ValueError when there is none."""
    candidates = [text.strip()]
    candidates += [m.group(1) for m in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    raise ValueError("no JSON object found in the answer")


def parse_result(kind: str, text: str) -> tuple[BaseModel | None, str | None]:
    """(validated result, None) or (None, what is wrong with it)."""
    model = RESULT_MODELS.get(kind)
    if model is None:
        return None, f"unknown result type {kind!r}"
    try:
        data = extract_json(text)
    except ValueError as exc:
        return None, str(exc)
    if not isinstance(data, dict):
        return None, "the answer must be one JSON object"
    try:
        return model.model_validate(data), None
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'object'}: {e['msg']}" for e in exc.errors()
        )
        return None, f"not a valid {kind}: {problems}"


def result_dict(result: BaseModel) -> dict[str, Any]:
    """The JSON-ready snake_case form."""
    return result.model_dump(mode="json", by_alias=False, exclude_none=True)
