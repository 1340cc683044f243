"""Which project files a file imports: Python (absolute and relative) and JavaScript/TypeScript
(relative specifiers) imports, found by a regex pass and resolved to files of the project.

Extraction is per file and cached with its tags; resolution needs the whole file list, so it
runs when the graph is built. Imports of other packages (the standard library, `react`) resolve
to nothing and are dropped.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

Import = tuple[str, tuple[str, ...]]
"""(module spec, names imported from it): ("..core", ("Symbol",)) for `from ..core import
Symbol`, ("os.path", ()) for `import os.path`, ("./store", ()) for a JS import."""

# Matched at the start of each line holding the word "import" (far fewer than all lines).
_PY_IMPORT = re.compile(rb"[ \t]*import[ \t]+([\w. \t,]+)")
_PY_FROM = re.compile(
    rb"[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*(?:\\\n[^\n#;]*)*)")
_JS_IMPORT = re.compile(
    rb"""(?:\b(?:import|export)\b[^'"`;]*?\bfrom\s*|\bimport\s*|\b(?:require|import)\s*\(\s*)"""
    rb"""['"]([^'"\n]+)['"]""")
_JS_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts")
_PY_LANGS = frozenset({"python"})
_JS_LANGS = frozenset({"javascript", "typescript", "tsx"})


def extract_imports(src: bytes, lang: str) -> list[Import]:
    """The imports written in one file (unresolved)."""
    if lang in _PY_LANGS:
        return _python_imports(src)
    if lang in _JS_LANGS:
        specs = {m.decode("utf-8", "replace") for m in _JS_IMPORT.findall(src)}
        return [(s, ()) for s in sorted(specs) if s.startswith(".")]
    return []


def _python_imports(src: bytes) -> list[Import]:
    out: list[Import] = []
    line_start = -1
    pos = src.find(b"import")
    while pos >= 0:
        start = src.rfind(b"\n", 0, pos) + 1
        if start != line_start:
            line_start = start
            match = _PY_FROM.match(src, start)
            if match is not None:
                module = match.group(1).decode("ascii", "replace")
                text = match.group(2).decode("ascii", "replace").replace("\\\n", " ")
                names = tuple(words[0] for part in text.strip("() \t").split(",")
                              if (words := part.split()) and words[0].isidentifier())
                if module:
                    out.append((module, names))
            elif (match := _PY_IMPORT.match(src, start)) is not None:
                for part in match.group(1).decode("ascii", "replace").split(","):
                    if words := part.split():
                        out.append((words[0], ()))
        pos = src.find(b"import", pos + 6)
    return out


class Resolver:
    """Resolves import specs to indices of `files` (relative POSIX paths)."""

    def __init__(self, files: Sequence[str]) -> None:
        self.files = files
        self._index = {f: i for i, f in enumerate(files)}
        packages = {posixpath.dirname(f) for f in files
                    if posixpath.basename(f) in ("__init__.py", "__init__.pyi")}
        self._modules: dict[str, list[int]] = {}
        self._by_last: dict[str, list[tuple[int, list[str]]]] = {}
        """Namespace-package fallback: (file, dotted path parts) by the last part; matched
        on demand (a table of every dotted tail cost 2.7 s on 100,000 files)."""
        for i, f in enumerate(files):
            if not f.endswith((".py", ".pyi")):
                continue
            parts = f.rsplit(".", 1)[0].split("/")
            start = len(parts) - 1  # the module's name starts below the top of its packages
            while start > 0 and "/".join(parts[:start]) in packages:
                start -= 1
            dotted = parts[start:]
            if dotted[-1] == "__init__":
                dotted = dotted[:-1]
            if dotted:
                self._modules.setdefault(".".join(dotted), []).append(i)
            # Namespace packages (no __init__.py): a dotted tail of the path, as a fallback.
            # One name alone is never matched this way: `import types` is the standard one.
            tail = parts[:-1] if parts[-1] == "__init__" else parts
            if len(tail) >= 2:
                self._by_last.setdefault(tail[-1], []).append((i, tail))

    def resolve(self, importer: int, spec: str) -> int | None:
        """The file `spec` names as imported from file `importer`, or None."""
        path = self.files[importer]
        if path.endswith((".py", ".pyi")):
            return self._python(path, spec)
        if spec.startswith("."):
            return self._js(path, spec)
        return None

    def resolve_from(self, importer: int, spec: str, name: str) -> int | None:
        """`from spec import name`: the submodule `name` when there is one, else `spec`."""
        if not spec.endswith("."):
            found = self.resolve(importer, f"{spec}.{name}")
        else:
            found = self.resolve(importer, spec + name)
        return found if found is not None else self.resolve(importer, spec)

    def _python(self, importer: str, spec: str) -> int | None:
        if spec.startswith("."):
            level = len(spec) - len(spec.lstrip("."))
            folder = posixpath.dirname(importer)
            for _ in range(level - 1):
                folder = posixpath.dirname(folder)
            rest = spec[level:].replace(".", "/")
            base = posixpath.join(folder, rest) if rest else folder
            for suffix in (".py", "/__init__.py", ".pyi", "/__init__.pyi"):
                hit = self._index.get(base + suffix if base else suffix.lstrip("/"))
                if hit is not None:
                    return hit
            return None
        found = self._modules.get(spec) or self._suffix_matches(spec)
        if not found:
            return None
        return found[0] if len(found) == 1 else _nearest(self.files, importer, found)

    def _suffix_matches(self, spec: str) -> list[int]:
        """Files whose path ends with the dotted `spec` of two parts or more, in order."""
        found: set[int] = set()
        dot = spec.find(".")
        while dot >= 0:  # a folder's or a file's name may hold a dot itself
            for i, tail in self._by_last.get(spec[dot + 1:], ()):
                if any(".".join(tail[-k:]) == spec for k in range(2, len(tail) + 1)):
                    found.add(i)
            dot = spec.find(".", dot + 1)
        return sorted(found)

    def _js(self, importer: str, spec: str) -> int | None:
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        if base.startswith(".."):
            return None
        stem = base.rsplit(".", 1)[0] if base.endswith((".js", ".jsx", ".mjs", ".cjs")) else base
        candidates = [base, *(stem + e for e in _JS_EXTS), *(base + "/index" + e for e in _JS_EXTS)]
        for candidate in candidates:
            found = self._index.get(candidate)
            if found is not None:
                return found
        return None


def _nearest(files: Sequence[str], importer: str, found: list[int]) -> int:
    """Of several files with the module's name, the one closest to the importer."""
    def shared(i: int) -> int:
        return len(posixpath.commonprefix([files[i], importer]))
    return max(found, key=lambda i: (shared(i), -i))
