"""Manifests of Node, Go, Rust, Java (Maven, Gradle), Ruby, PHP and .NET (see manifests.py)."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valarmind_tui.context.manifests.facts import Manifests, read_text
from valarmind_tui.core.safe_files import is_system_tree

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET  # imported by _xml: only Maven and .NET projects read XML


def _json_manifest(root: Path, name: str, ecosystem: str, m: Manifests) -> dict[str, Any] | None:
    """The JSON object in `name`, or None (missing, or malformed: the error is recorded)."""
    if not (root / name).is_file():
        return None
    m.ecosystem(ecosystem)
    try:
        data = json.loads(read_text(root / name))
    except ValueError as exc:
        m.found[name] = {"error": str(exc)}
        return None
    return data if isinstance(data, dict) else None


def _table(value: Any) -> dict[str, Any]:
    """`value` when the manifest holds an object there, else empty: a list or a string where a
    table belongs is ignored, not a crash."""
    return value if isinstance(value, dict) else {}


def _node(root: Path, m: Manifests) -> None:
    data = _json_manifest(root, "package.json", "node", m)
    if data is None:
        return
    m.found["package.json"] = {"type": data.get("type"), "workspaces": data.get("workspaces"),
                               "packageManager": data.get("packageManager")}
    m.named(data.get("name"))
    m.describe(data.get("description"))
    engines = _table(data.get("engines"))
    if engines.get("node"):
        m.runtime.setdefault("Node", str(engines["node"]))
    for key, dev in (("dependencies", False), ("peerDependencies", False),
                     ("devDependencies", True)):
        for name, version in _table(data.get(key)).items():
            m.add(name, version, dev=dev)
    m.scripts.update({k: str(v) for k, v in _table(data.get("scripts")).items()})


def _go(root: Path, m: Manifests) -> None:
    if not (root / "go.mod").is_file():
        return
    m.ecosystem("go")
    text = read_text(root / "go.mod")
    module = re.search(r"(?m)^module\s+(\S+)", text)
    go = re.search(r"(?m)^go\s+(\S+)", text)
    m.found["go.mod"] = {"module": module and module.group(1)}
    if module:
        m.named(go_module_name(module.group(1).strip('"'), root.name))
    if go:
        m.runtime.setdefault("Go", go.group(1))
    for dep, version, rest in re.findall(
            r"(?m)^(?:require\s+|\s+)([\w./~-]+\.[\w./~-]+)\s+(v[\w.+-]+)(.*)$", text):
        m.add(dep, version, dev="// indirect" in rest)


_GENERIC = {"server", "api", "app", "cmd", "core", "pkg", "service", "backend", "go", "lib",
            "src", "main", "client", "sdk", "module", "v1", "internal"}


def go_module_name(path: str, folder: str) -> str:
    """The project's name from its module path: `example.com/x/tool/v2` is `tool`, and
    `github.com/acme/shop/server` is `shop`, the repository, as the last word is generic."""
    parts = [p for p in path.split("/") if p]
    if len(parts) > 1 and re.fullmatch(r"v\d+", parts[-1]):
        parts = parts[:-1]
    if parts and parts[-1].lower() in _GENERIC:
        if len(parts) >= 3 and "." in parts[0]:
            return parts[2]  # host/owner/repository/...
        return parts[-2] if len(parts) > 1 else folder
    return parts[-1] if parts else folder


def _rust(root: Path, m: Manifests) -> None:
    if not (root / "Cargo.toml").is_file():
        return
    m.ecosystem("rust")
    data = _toml(read_text(root / "Cargo.toml"))
    package = _table(data.get("package"))
    workspace = _table(data.get("workspace"))
    m.found["Cargo.toml"] = {"edition": package.get("edition"),
                             "workspace_members": workspace.get("members")}
    m.named(package.get("name"))
    m.describe(package.get("description") or _table(workspace.get("package")).get("description"))
    if isinstance(package.get("edition"), str):
        m.runtime.setdefault("Rust edition", package["edition"])
    for table, dev in ((data.get("dependencies"), False), (workspace.get("dependencies"), False),
                       (data.get("dev-dependencies"), True)):
        for name, spec in _table(table).items():
            if isinstance(spec, dict) and "path" in spec:
                continue  # one of the workspace's own crates: the project, not a dependency
            m.add(name, spec.get("version", "") if isinstance(spec, dict) else spec, dev=dev)


def _maven(root: Path, m: Manifests) -> None:
    if not (root / "pom.xml").is_file():
        return
    m.ecosystem("maven")
    project = _xml(read_text(root / "pom.xml"))
    if project is None:
        m.found["pom.xml"] = {"error": "not well-formed XML"}
        return
    props = {_local(c.tag): (c.text or "").strip() for c in _child(project, "properties") or []}
    java = props.get("maven.compiler.release") or props.get("java.version") or props.get(
        "maven.compiler.source")
    m.found["pom.xml"] = {"modules": [(x.text or "").strip() for x in
                                      _child(project, "modules") or []]}
    m.named(_text(project, "artifactId") or _text(project, "name"))
    m.describe(_text(project, "description"))
    if java:
        m.runtime.setdefault("Java", java)
    for dep in _child(project, "dependencies") or []:
        group, artifact = _text(dep, "groupId"), _text(dep, "artifactId")
        version = re.sub(r"\$\{([^}]+)\}", lambda x: props.get(x.group(1), x.group(0)),
                         _text(dep, "version"))
        if artifact:
            m.add(f"{group}:{artifact}", version, dev=_text(dep, "scope") == "test")


_GRADLE_DEP = re.compile(
    r"""(?m)^\s*(\w+)\s*\(?\s*["']([\w.\-]+):([\w.\-]+)(?::([^"'@]+))?[^"']*["']""")


def _gradle(root: Path, m: Manifests) -> None:
    build = next((root / n for n in ("build.gradle.kts", "build.gradle")
                  if (root / n).is_file()), None)
    settings = next((root / n for n in ("settings.gradle.kts", "settings.gradle")
                     if (root / n).is_file()), None)
    if build is None and settings is None:
        return
    m.ecosystem("gradle")
    if settings is not None:
        name = re.search(r"""rootProject\.name\s*=\s*["']([^"']+)""", read_text(settings))
        m.named(name and name.group(1))
        m.found[settings.name] = {}
    if build is None:
        return
    text = read_text(build)
    m.found[build.name] = {}
    description = re.search(r"""(?m)^\s*description\s*=\s*["']([^"']+)""", text)
    m.describe(description and description.group(1))
    for config, group, artifact, version in _GRADLE_DEP.findall(text):
        if config.endswith(("mplementation", "Only", "api", "Api", "kapt", "Processor")):
            m.add(f"{group}:{artifact}", version, dev=config.startswith("test"))


def _ruby(root: Path, m: Manifests) -> None:
    gemspecs = sorted(root.glob("*.gemspec"))
    gemfile = root / "Gemfile"
    if not gemspecs and not gemfile.is_file():
        return
    m.ecosystem("ruby")
    for spec in gemspecs[:1]:
        text = read_text(spec)
        m.found[spec.name] = {}
        name = re.search(r"""\.name\s*=\s*["']([^"']+)""", text)
        m.named(name.group(1) if name else spec.stem)
        summary = re.search(r"""\.(?:summary|description)\s*=\s*%?[qQ]?["'{(]([^"'})]+)""", text)
        m.describe(summary and summary.group(1))
        for kind, gem, version in re.findall(
                r"""add_(runtime_|development_)?dependency[\s(]+["']([^"']+)["']"""
                r"""(?:\s*,\s*["']([^"']+)["'])?""", text):
            m.add(gem, version, dev=kind == "development_")
    if gemfile.is_file():
        m.found["Gemfile"] = {}
        group_depth = 0
        for line in read_text(gemfile).splitlines():
            stripped = line.strip()
            if re.match(r"group\b.*\bdo\b", stripped):
                group_depth += 1
            elif stripped == "end" and group_depth:
                group_depth -= 1
            gem = re.match(r"""gem\s+["']([^"']+)["'](?:\s*,\s*["']([^"']+)["'])?(.*)""",
                           stripped)
            if gem:
                dev = bool(group_depth) or bool(re.search(r"group:|:group\s*=>", gem.group(3)))
                m.add(gem.group(1), gem.group(2) or "", dev=dev)
    if (root / ".ruby-version").is_file():
        m.runtime.setdefault("Ruby", read_text(root / ".ruby-version", 40).strip())


def _php(root: Path, m: Manifests) -> None:
    data = _json_manifest(root, "composer.json", "php", m)
    if data is None:
        return
    m.found["composer.json"] = {"type": data.get("type")}
    m.named(data.get("name"))
    m.describe(data.get("description"))
    for key, dev in (("require", False), ("require-dev", True)):
        for name, version in _table(data.get(key)).items():
            if name == "php":
                m.runtime.setdefault("PHP", str(version))
            elif not name.startswith(("ext-", "lib-")):
                m.add(name, version, dev=dev)
    for name, script in _table(data.get("scripts")).items():
        m.scripts.setdefault(name, script if isinstance(script, str) else json.dumps(script))


def _glob(root: Path, pattern: str) -> list[Path]:
    """`root.glob(pattern)` outside the system trees, and empty when a folder vanished under
    it (at `/`, `/proc/<pid>` does)."""
    try:
        return [p for p in root.glob(pattern)
                if not any(is_system_tree(str(parent)) for parent in p.resolve().parents)]
    except OSError:
        return []


def _dotnet(root: Path, m: Manifests) -> None:
    solutions = sorted(root.glob("*.sln"))
    projects = sorted(p for pattern in ("*.??proj", "*/*.??proj", "*/*/*.??proj")
                      for p in _glob(root, pattern)
                      if p.suffix in (".csproj", ".fsproj", ".vbproj"))
    if not solutions and not projects:
        return
    m.ecosystem("dotnet")
    for sln in solutions[:1]:
        m.found[sln.name] = {}
        m.named(sln.stem)
    central = _central_versions(root)
    for project in projects[:20]:
        doc = _xml(read_text(project))
        if doc is None:
            continue
        rel = project.relative_to(root).as_posix()
        refs = [e for e in doc.iter() if _local(e.tag) == "PackageReference"]
        names = {e.get("Include") or e.get("Update") or "" for e in refs}
        is_test = (_prop(doc, "IsTestProject") == "true" or "Microsoft.NET.Test.Sdk" in names
                   or re.search(r"tests?$", project.stem, re.I) is not None)
        m.found[rel] = {"target": _prop(doc, "TargetFramework") or _prop(doc, "TargetFrameworks"),
                        "test": is_test}
        if not is_test:
            m.named(_prop(doc, "PackageId") or _prop(doc, "AssemblyName") or project.stem)
            m.describe(_prop(doc, "Description"))
        for ref in refs:
            name = ref.get("Include") or ""
            version = ref.get("Version") or _text(ref, "Version") or central.get(name, "")
            if name:
                m.add(name, version, dev=is_test)
        framework = m.found[rel]["target"]
        if framework and not is_test:
            m.runtime.setdefault(".NET", framework)


def _central_versions(root: Path) -> dict[str, str]:
    doc = _xml(read_text(root / "Directory.Packages.props")) if (
        root / "Directory.Packages.props").is_file() else None
    if doc is None:
        return {}
    return {e.get("Include", ""): e.get("Version", "") for e in doc.iter()
            if _local(e.tag) == "PackageVersion"}


def _toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def _xml(text: str) -> ET.Element | None:
    # Entity declarations are refused outright: no expansion attack from a repository's XML.
    if not text or "<!ENTITY" in text:
        return None
    import xml.etree.ElementTree as ET

    try:
        return ET.fromstring(text)
    except ET.ParseError:
        return None


def _local(tag: Any) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _child(node: ET.Element, name: str) -> ET.Element | None:
    return next((c for c in node if _local(c.tag) == name), None)


def _text(node: ET.Element, name: str) -> str:
    child = _child(node, name)
    return (child.text or "").strip() if child is not None else ""


def _prop(doc: ET.Element, name: str) -> str:
    return next(((e.text or "").strip() for e in doc.iter() if _local(e.tag) == name), "")


LANGUAGE_READERS: tuple[Callable[[Path, Manifests], None], ...] = (
    _node, _rust, _go, _maven, _gradle, _ruby, _php, _dotnet)
