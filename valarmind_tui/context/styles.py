"""Output styles (issue #35): how the main agent writes its answers, chosen with `/style NAME`.

Three are built in (concise, explanatory, learning). The person's own are Markdown files with
front matter `name` and `description`, the body being what is appended to the main agent's
prompt: `~/.config/valarmind/styles/*.md` and Claude Code's `~/.claude/output-styles/*.md`, then
the project's `.valarmind/styles/*.md` and `.claude/output-styles/*.md`. A project's style never
takes the name of a built-in or of the person's own (it is reported instead): a repository cannot
change what a name the person types means. Only the main agent reads the style; the specialists
keep their own formats, which the orchestrator parses.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from valarmind_tui.setup.front_matter import FrontMatterError, read_document

MAX_STYLE_CHARS = 8_000
"""A style's body beyond this is cut (it is read on every turn)."""


@dataclass(frozen=True)
class OutputStyle:
    name: str
    description: str
    body: str
    source: str
    """`built-in`, or the file it came from."""


BUILTIN = (
    OutputStyle("concise", "short answers: the result first, no preamble", (
        "Answer as briefly as the task allows: lead with the result, use short sentences and "
        "lists, skip preambles, recaps and offers of further help. Show code only where it is "
        "the answer. Say what you changed in one line per file."), "built-in"),
    OutputStyle("explanatory", "explains the why of each choice as it works", (
        "While you work, explain your choices: before a change say briefly why this approach, "
        "and after it point out one insight about the codebase (a pattern, a trade-off, a "
        "convention) under a line starting with 'Insight:'. Keep explanations short and "
        "specific to this code, never generic."), "built-in"),
    OutputStyle("learning", "teaches: leaves small parts for you to write", (
        "The person wants to learn while the work gets done. Explain the concepts you use as "
        "you go. Where a small, well-defined piece of code (2-10 lines: a condition, a loop "
        "body, a test case) would teach something, do not write it: leave a clearly marked "
        "'TODO(human)' in the file and describe in the answer exactly what it should do and "
        "which hints help. Never leave more than one such piece per answer."), "built-in"),
)
NO_STYLE = ("default", "none", "off")
"""Names that go back to the default (no style)."""


@dataclass(frozen=True)
class StyleCatalog:
    styles: dict[str, OutputStyle]
    problems: tuple[str, ...] = ()
    """Files skipped and why (bad front matter, a project file taking a name)."""


def style_folders(project_root: Path, home: Path) -> tuple[tuple[Path, bool], ...]:
    """Where style files are, in order, each with whether it is the project's."""
    return ((home / ".config" / "valarmind" / "styles", False),
            (home / ".claude" / "output-styles", False),
            (project_root / ".valarmind" / "styles", True),
            (project_root / ".claude" / "output-styles", True))


def find_styles(project_root: Path, home: Path) -> StyleCatalog:
    """Every style by name: the built-in ones, the person's, then the project's."""
    styles = {style.name: style for style in BUILTIN}
    problems: list[str] = []
    personal: set[str] = set()
    for folder, is_project in style_folders(project_root, home):
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            try:
                document = read_document(path)
            except FrontMatterError as exc:
                problems.append(str(exc))
                continue
            name = str(document.meta.get("name") or path.stem).strip().lower()
            if not name or not document.body:
                problems.append(f"{path}: no name or an empty body, skipped")
                continue
            if is_project and (name in personal or name in {s.name for s in BUILTIN}):
                problems.append(f"{path}: the style name {name!r} is already taken (built-in or "
                                "yours), skipped")
                continue
            if name in NO_STYLE:
                problems.append(f"{path}: {name!r} means no style, skipped")
                continue
            style = OutputStyle(name, str(document.meta.get("description") or "").strip(),
                                document.body[:MAX_STYLE_CHARS], str(path))
            if is_project:
                styles.setdefault(name, style)
            elif name not in personal:  # the person's own may redefine a built-in one
                personal.add(name)
                styles[name] = style
    return StyleCatalog(styles, tuple(problems))


def style_section(style: OutputStyle | None) -> str:
    """The text the main agent's prompt ends with for `style` ("" for none)."""
    if style is None:
        return ""
    return f"Output style ({style.name}), chosen by the person:\n{style.body}"
