"""/context: what fills the model's context window, as token counts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from valarmind_tui.context.tokens import count_json_tokens, count_message_tokens, count_tokens


@dataclass
class ContextBreakdown:
    """Rows of (what, tokens) and the window they share."""

    rows: list[tuple[str, int]] = field(default_factory=list)
    context_window: int = 128_000
    secrets_masked: tuple[int, int] = (0, 0)
    """(distinct values, times) the session masked in what it sent and stored."""
    context_files: list[tuple[str, int, int]] = field(default_factory=list)
    """The project context's files: (path as shown, bytes, tokens), imports included."""

    @property
    def total(self) -> int:
        return sum(tokens for _, tokens in self.rows)

    def render(self) -> str:
        width = max((len(name) for name, _ in self.rows), default=10)
        lines = [f"{name:<{width}}  {tokens:>8,}" for name, tokens in self.rows]
        share = 100 * self.total / self.context_window if self.context_window else 0
        lines.append(f"{'total':<{width}}  {self.total:>8,}  "
                     f"({share:.1f}% of {self.context_window:,})")
        if self.context_files:
            lines.append("project context files:")
        for path, size, tokens in self.context_files:
            lines.append(f"  {path}: {size:,} bytes, {tokens:,} tokens")
        values, times = self.secrets_masked
        lines.append(f"secrets masked this session: {values} "
                     f"value{'' if values == 1 else 's'}"
                     + (f" ({times} times)" if times != values else ""))
        return "\n".join(lines)


def context_breakdown(*, system_prompt: str = "", project_context: str = "", repo_map: str = "",
                      tool_schemas: Mapping[str, Sequence[dict[str, Any]]] | None = None,
                      history: Sequence[dict[str, Any]] = (),
                      context_window: int = 128_000,
                      secrets_masked: tuple[int, int] = (0, 0),
                      context_files: Sequence[tuple[str, str]] = ()) -> ContextBreakdown:
    """`tool_schemas` maps a source ("built-in", or an MCP server's name) to its schemas;
    `secrets_masked` is (distinct values, times) the session's masker replaced;
    `context_files` the project context's (path, text), each shown with its size."""
    rows = [("system prompt", count_tokens(system_prompt)),
            ("project context", count_tokens(project_context)),
            ("repo map", count_tokens(repo_map))]
    for source, schemas in (tool_schemas or {}).items():
        label = "tools: built-in" if source == "built-in" else f"tools: mcp {source}"
        rows.append((label, sum(count_json_tokens(s) for s in schemas)))
    rows.append(("history", count_message_tokens(list(history))))
    files = [(path, len(text.encode()), count_tokens(text)) for path, text in context_files]
    return ContextBreakdown(rows, context_window, secrets_masked, files)
