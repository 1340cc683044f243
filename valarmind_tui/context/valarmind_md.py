"""VALARMIND.md: the deterministic draft, generated-section markers, budget and merging.

Every generated section is wrapped in `<!-- valarmind:generated:KEY -->` ...
`<!-- /valarmind:generated -->`. Everything outside markers is the person's and an update keeps
it byte for byte (`merge_update`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from valarmind_tui.context.init_signals import Signals, render_tree
from valarmind_tui.context.tokens import count_tokens

TARGET_TOKENS = (2500, 3600)
HARD_CAP = 4800
SECTIONS: list[tuple[str, str, bool]] = [
    # (key, heading, required)
    ("objective", "Objective", True),
    ("stack", "Stack", True),
    ("dependencies", "Main Dependencies", True),
    ("architecture", "Architecture", True),
    ("design", "Design", True),
    ("practices", "Practices", True),
    ("commands", "Commands", True),
    ("endpoints", "Endpoints", False),
    ("core", "Project Core", True),
    ("sensitive", "Sensitive Points", True),
    ("env", "Environment Variables", False),
    ("integrations", "External Integrations", False),
    ("tree", "TREE", True),
    ("references", "References", True),
]
HEADINGS = {heading.lower(): key for key, heading, _ in SECTIONS}
DRAFT_NOTICE = ("> Draft written from project signals without a model: review it, and run /init "
                "with a model configured for a fuller version.")
_BLOCK = re.compile(
    r"<!-- valarmind:generated:(?P<key>[\w-]+) -->\n?(?P<body>.*?)<!-- /valarmind:generated -->",
    re.S)


def wrap(key: str, body: str) -> str:
    return f"<!-- valarmind:generated:{key} -->\n{body.strip()}\n<!-- /valarmind:generated -->"


def draft(signals: Signals, *, tree_depth: int = 3, max_deps: int = 25) -> str:
    """The deterministic VALARMIND.md, marked as a draft."""
    bodies = _section_bodies(signals, tree_depth, max_deps)
    parts = [f"# {signals.name}", wrap("notice", DRAFT_NOTICE)]
    for key, heading, required in SECTIONS:
        body = bodies.get(key, "")
        if body or required:
            parts.append(wrap(key, f"## {heading}\n\n{body or '_Not detected; fill in._'}"))
    return "\n\n".join(parts) + "\n"


def draft_within_budget(signals: Signals, counter: Callable[[str], int] = count_tokens) -> str:
    """The draft, compacted (shallower TREE, fewer dependency rows) until under the hard cap."""
    text = draft(signals)
    for depth, deps in ((2, 20), (2, 12), (1, 8)):
        if counter(text) <= HARD_CAP:
            return text
        text = draft(signals, tree_depth=depth, max_deps=deps)
    return enforce_cap(text, counter)


def enforce_cap(text: str, counter: Callable[[str], int] = count_tokens) -> str:
    """Cut the longest generated sections' bodies until the whole is under the hard cap."""
    while counter(text) > HARD_CAP:
        blocks = list(_BLOCK.finditer(text))
        if not blocks:
            return text
        longest = max(blocks, key=lambda m: len(m.group("body")))
        body = longest.group("body").rstrip()
        lines = body.splitlines()
        if len(lines) <= 4:
            return text
        keep = lines[: max(4, len(lines) * 2 // 3)]
        if any(ln.startswith("```") for ln in keep) and keep.count("```") % 2:
            keep.append("```")
        text = text[:longest.start()] + wrap(longest.group("key"), "\n".join(keep)) + text[
            longest.end():]
    return text


def mark_sections(markdown: str) -> str:
    """Wrap each `## Heading` section of a model's output in generated markers."""
    if "<!-- valarmind:generated:" in markdown:
        return markdown
    chunks = re.split(r"(?m)^(?=## )", markdown.strip())
    out: list[str] = []
    for chunk in chunks:
        heading = re.match(r"## +(.+)", chunk)
        if not heading:
            out.append(chunk.strip())
            continue
        title = re.sub(r"\s*\(.*\)$", "", heading.group(1).strip()).lower()
        key = HEADINGS.get(title) or re.sub(r"[^a-z0-9]+", "-", title).strip("-") or "section"
        out.append(wrap(key, chunk))
    return "\n\n".join(out) + "\n"


def generated_keys(text: str) -> list[str]:
    return [m.group("key") for m in _BLOCK.finditer(text)]


def merge_update(old_text: str, new_text: str) -> str:
    """Replace the generated sections of `old_text` with those of `new_text`; keep all else.

    Hand-written text (outside markers) is kept byte for byte. A generated section missing from
    the new text is removed; a new one goes after its predecessor (in the new order), and a new
    section whose heading the person already wrote by hand is not added.
    """
    new_blocks = {m.group("key"): m.group(0) for m in _BLOCK.finditer(new_text)}
    order = list(new_blocks)
    if "<!-- valarmind:generated:" not in old_text:
        manual_headings = {h.strip().lower() for h in re.findall(r"(?m)^## +(.+)$", old_text)}
        extra = [block for key, block in new_blocks.items()
                 if _heading(block) not in manual_headings and key != "notice"]
        return old_text.rstrip("\n") + "\n\n" + "\n\n".join(extra) + "\n" if extra else old_text
    pieces: list[tuple[str | None, str]] = []
    pos = 0
    for m in _BLOCK.finditer(old_text):
        pieces.append((None, old_text[pos:m.start()]))
        pieces.append((m.group("key"), m.group(0)))
        pos = m.end()
    pieces.append((None, old_text[pos:]))
    present = [key for key, _ in pieces if key is not None]
    out: list[tuple[str | None, str]] = [
        (key, new_blocks[key] if key is not None else text)
        for key, text in pieces if key is None or key in new_blocks
    ]
    for index, key in enumerate(order):
        if key in present:
            continue
        previous = next((k for k in reversed(order[:index])
                         if any(k == ok for ok, _ in out)), None)
        at = len(out) if previous is None else 1 + max(
            i for i, (ok, _) in enumerate(out) if ok == previous)
        out.insert(at, (key, "\n\n" + new_blocks[key]))
    return "".join(text for _, text in out)


def _heading(block: str) -> str:
    m = re.search(r"(?m)^## +(.+)$", block)
    return m.group(1).strip().lower() if m else ""


def _section_bodies(s: Signals, tree_depth: int, max_deps: int) -> dict[str, str]:
    from valarmind_tui.context.valarmind_sections import section_bodies

    return section_bodies(s, tree_depth, max_deps, render_tree)
