"""The README's first real paragraph, for VALARMIND.md's Objective when the manifests have no
description: prose, not badges, navigation links, link definitions, HTML, headings or code,
and whole sentences only (a paragraph that ends introducing a list, "...it supports:", keeps
the sentences before that one; none is cut halfway).
"""

from __future__ import annotations

import re

MAX_CHARS = 400
MIN_WORDS = 6
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|!?\[([^\]]*)\]\[[^\]]*\]")
_HTML = re.compile(r"<[^>]+>")
_NOT_PROSE = ("#", "[!", "!", "<", "=", "- ", "* ", "+ ", "|", "```", "~~~", "..", ":", ">",
              "[//]", "---", "***", "    ", "\t", "[![")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(`])")


def readme_summary(docs: dict[str, str]) -> str:
    """The first README paragraph that reads as a description, or ''."""
    for name, text in docs.items():
        if not name.lower().startswith("readme"):
            continue
        text = re.sub(r"(?s)<!--.*?-->", "", text)
        text = re.sub(r"(?ms)^(```|~~~).*?^\1[^\n]*$", "", text)
        for para in re.split(r"\n\s*\n", text):
            summary = _prose(para)
            if summary:
                return summary
    return ""


def _prose(para: str) -> str:
    lines = [ln for ln in para.splitlines() if ln.strip()]
    if not lines or any(ln.startswith(_NOT_PROSE) for ln in lines[:1]):
        return ""
    if any(re.match(r"\s*\[[^\]]+\]:\s*\S", ln) for ln in lines):
        return ""  # link or badge definitions
    if re.match(r"[=~^`-]{3,}\s*$", lines[-1]):
        return ""  # a reST title underlined
    text = " ".join(" ".join(lines).split())
    plain = _HTML.sub("", _LINK.sub(lambda m: m.group(1) or m.group(2) or "", text)).strip()
    plain = re.sub(r"\|[\w -]+\|", "", plain).strip()  # reST substitutions (badges)
    plain = re.sub(r"\*\*|__", "", plain)  # bold marks
    linked = len(_LINK.findall(text))
    words = re.findall(r"[A-Za-z]{2,}", plain)
    if len(words) < MIN_WORDS or (linked >= 3 and linked * 4 > len(words)):
        return ""  # navigation: a row of links with a few words between them
    if re.search(r"\s[|•·]\s", plain) and plain.count("|") + plain.count("•") >= 2:
        return ""
    return _whole_sentences(plain)


def _whole_sentences(text: str) -> str:
    sentences = _SENTENCE_END.split(text)
    if sentences and sentences[-1].rstrip().endswith(":") and len(sentences) > 1:
        sentences = sentences[:-1]
    kept: list[str] = []
    for sentence in sentences:
        if sum(len(s) + 1 for s in kept) + len(sentence) > MAX_CHARS:
            break
        kept.append(sentence)
    if not kept:
        return ""  # one sentence too long or one ending in ':' alone: not a summary
    out = " ".join(kept).strip()
    return out if not out.endswith(":") else ""
