"""VALARMIND.md: its sections, the deterministic draft, hashed generated blocks and merging.

Every generated section is wrapped in `<!-- valarmind:generated:KEY sha256=H -->` ...
`<!-- /valarmind:generated -->`, H being the hash of what /init wrote. On a re-run a block whose
text no longer matches its hash was edited by a person: it is kept as it is and reported, never
overwritten (delete the block to have it generated again). Everything outside the markers is the
person's and is kept byte for byte.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from valarmind_tui.context.init.signals import Signals

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
REQUIRED = {key for key, _, required in SECTIONS if required}
NOT_DETECTED = "_Not detected; fill in._"
DRAFT_NOTICE = ("> Draft written from project signals without a model: review it, and run /init "
                "with a model configured for a fuller version.")
_BLOCK = re.compile(
    r"<!-- valarmind:generated:(?P<key>[\w-]+)(?: sha256=(?P<hash>[0-9a-f]{8,64}))? -->\n?"
    r"(?P<body>.*?)<!-- /valarmind:generated -->", re.S)


def block_hash(body: str) -> str:
    return hashlib.sha256(body.strip().encode()).hexdigest()[:16]


def wrap(key: str, body: str) -> str:
    body = body.strip()
    return (f"<!-- valarmind:generated:{key} sha256={block_hash(body)} -->\n{body}\n"
            "<!-- /valarmind:generated -->")


def blocks(text: str) -> list[re.Match[str]]:
    return list(_BLOCK.finditer(text))


def is_edited(block: re.Match[str]) -> bool:
    """A block whose text no longer matches the hash /init wrote (blocks written before hashes
    existed have none and count as generated)."""
    recorded = block.group("hash")
    return recorded is not None and block_hash(block.group("body")) != recorded


def compose(title: str, sections: list[tuple[str, str, str]], *, notice: str = "") -> str:
    """`# title`, then each (key, heading, body) as a hashed block, in SECTIONS order first."""
    order = {key: i for i, (key, _, _) in enumerate(SECTIONS)}
    ranked = sorted(sections, key=lambda s: order.get(s[0], len(order)))
    parts = [f"# {title}"] + ([wrap("notice", notice)] if notice else [])
    parts += [wrap(key, f"## {heading}\n\n{body.strip() or NOT_DETECTED}")
              for key, heading, body in ranked]
    return "\n\n".join(parts) + "\n"


def draft_sections(signals: Signals, *, tree_depth: int = 3,
                   max_deps: int = 25) -> list[tuple[str, str, str]]:
    """The deterministic sections: required ones always, optional ones when detected."""
    from valarmind_tui.context.init.sections import section_bodies

    bodies = section_bodies(signals, tree_depth, max_deps)
    return [(key, heading, bodies.get(key, "")) for key, heading, required in SECTIONS
            if required or bodies.get(key)]


def draft(signals: Signals, *, tree_depth: int = 3, max_deps: int = 25) -> str:
    """The deterministic VALARMIND.md, marked as a draft."""
    return compose(signals.name, draft_sections(signals, tree_depth=tree_depth,
                                                max_deps=max_deps), notice=DRAFT_NOTICE)


def section_key(heading: str) -> str:
    title = re.sub(r"\s*\(.*\)$", "", heading.strip()).lower()
    return HEADINGS.get(title) or re.sub(r"[^a-z0-9]+", "-", title).strip("-") or "section"


def split_markdown(markdown: str) -> tuple[str, list[tuple[str, str, str]]]:
    """A model's whole Markdown as (title, [(key, heading, body)]), split on `## ` headings."""
    title = ""
    sections: list[tuple[str, str, str]] = []
    for chunk in re.split(r"(?m)^(?=## )", _BLOCK.sub(lambda m: m.group("body"), markdown)):
        heading = re.match(r"## +(.+)", chunk)
        if heading is None:
            found = re.search(r"(?m)^# +(.+)$", chunk)
            title = title or (found.group(1).strip() if found else "")
            continue
        body = chunk[heading.end():].strip()
        sections.append((section_key(heading.group(1)), heading.group(1).strip(), body))
    return title, sections


def missing_fields(text: str) -> list[str]:
    """Required sections absent, or left as 'not detected', in a VALARMIND.md."""
    present = {m.group("key"): m.group("body") for m in blocks(text)}
    headings = {section_key(h) for h in re.findall(r"(?m)^## +(.+)$", text)}
    return [heading for key, heading, required in SECTIONS if required and (
        key not in headings or NOT_DETECTED in present.get(key, ""))]


@dataclass
class Merge:
    """The merged file and what the merge kept of the person's edits."""

    text: str
    kept_edited: list[str] = field(default_factory=list)
    """Keys of generated blocks the person edited: kept as they are, not regenerated."""


def merge_update(old_text: str, new_text: str) -> Merge:
    """Replace the generated blocks of `old_text` with those of `new_text`; keep all else.

    Hand-written text (outside markers) and edited blocks are kept byte for byte. A generated
    block missing from the new text is removed; a new one goes after its predecessor (in the new
    order), and a new section whose heading the person already wrote by hand is not added.
    """
    new_blocks = {m.group("key"): m.group(0) for m in blocks(new_text)}
    order = list(new_blocks)
    if "<!-- valarmind:generated:" not in old_text:
        manual_headings = {h.strip().lower() for h in re.findall(r"(?m)^## +(.+)$", old_text)}
        extra = [block for key, block in new_blocks.items()
                 if _heading(block) not in manual_headings and key != "notice"]
        text = old_text.rstrip("\n") + "\n\n" + "\n\n".join(extra) + "\n" if extra else old_text
        return Merge(text)
    out: list[tuple[str | None, str]] = []
    kept: list[str] = []
    pos = 0
    for m in blocks(old_text):
        out.append((None, old_text[pos:m.start()]))
        key = m.group("key")
        if is_edited(m):
            kept.append(key)  # the person's now: kept where it is, as it is
            out.append((key, m.group(0)))
        elif key in new_blocks:
            out.append((key, new_blocks[key]))
        pos = m.end()
    out.append((None, old_text[pos:]))
    for index, key in enumerate(order):
        if any(k == key for k, _ in out):
            continue
        previous = next((k for k in reversed(order[:index]) if any(k == ok for ok, _ in out)),
                        None)
        at = len(out) if previous is None else 1 + max(
            i for i, (ok, _) in enumerate(out) if ok == previous)
        out.insert(at, (key, "\n\n" + new_blocks[key]))
    return Merge("".join(text for _, text in out), kept)


def _heading(block: str) -> str:
    m = re.search(r"(?m)^## +(.+)$", block)
    return m.group(1).strip().lower() if m else ""
