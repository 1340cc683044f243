"""JavaScript and TypeScript test files (Jest, Vitest, Mocha, node:test) read into FileTests
with tree-sitter (javascript, typescript, tsx)."""

from __future__ import annotations

import re

from valarmind_tui.agents.goal.weakening.model import Assertion, FileTests, TestCase
from valarmind_tui.agents.goal.weakening.syntax import (
    Node,
    flat,
    line_of,
    nodes_of,
    parse,
    text_of,
    within,
)

_TEST_FILE = re.compile(r"(\.(test|spec)\.[cm]?[jt]sx?$)|(^|/)__tests__/.+\.[cm]?[jt]sx?$")
_TESTS = frozenset({"it", "test", "xit", "xtest", "fit", "ftest"})
_GROUPS = frozenset({"describe", "suite", "context", "xdescribe", "fdescribe"})
_MODIFIERS = {"skip": "skip", "todo": "skip", "only": "only", "failing": "xfail",
              "fails": "xfail"}
_PREFIXED = {"xit": "skip", "xtest": "skip", "xdescribe": "skip", "fit": "only",
             "ftest": "only", "fdescribe": "only"}
_WEAK_MATCHERS = frozenset({"toBeTruthy", "toBeFalsy", "toBeDefined", "toBeUndefined",
                            "toBeNull", "toBeNaN", "ok", "toExist", "toHaveBeenCalled"})
_LITERALS = frozenset({"true", "false", "null", "undefined", "number", "string",
                       "template_string"})


def is_test_file(path: str) -> bool:
    return _TEST_FILE.search(path) is not None


def language_of(path: str) -> str:
    if path.endswith("x"):
        return "tsx"
    return "typescript" if re.search(r"\.[cm]?ts$", path) else "javascript"


def read_tests(path: str, text: str) -> FileTests | None:
    """The file's tests, or None when it does not parse."""
    root = parse(language_of(path), text)
    if root is None:
        return None
    found = FileTests()
    calls = nodes_of(language_of(path), root, ("call_expression",))
    _scope(root, "", set(), found, calls)
    found.exits = [(line_of(n), flat(text_of(n))) for n in calls
                   if n.type == "call_expression" and text_of(
                       n.child_by_field_name("function") or n) in ("process.exit",
                                                                   "process.reallyExit")]
    found.assertion_texts = {a.text for a in _assertions(calls)}
    return found


def _scope(node: Node, prefix: str, inherited: set[str], found: FileTests,
           calls: list[Node]) -> None:
    for child in node.children:
        call = _call_of(child)
        if call is None:
            if child.type in ("expression_statement", "statement_block", "export_statement"):
                _scope(child, prefix, inherited, found, calls)
            continue
        base, modifiers = _callee(call)
        title, body = _title_and_body(call)
        if base not in _TESTS | _GROUPS or title is None:
            continue
        markers = set(inherited) | {m for m in modifiers if m} | (
            {_PREFIXED[base]} if base in _PREFIXED else set())
        if base in _GROUPS:
            if "only" in markers or "skip" in markers:
                found.file_markers.setdefault("/".join(sorted(markers)), line_of(call))
            if body is not None:
                _scope(body, f"{prefix}{title} > ", markers, found, calls)
            continue
        name = prefix + title
        found.tests[name] = TestCase(
            name=name, line=line_of(call), body=flat(text_of(body)) if body else "",
            assertions=_assertions(within(calls, body)) if body is not None else [],
            markers=markers,
            empty=body is None or not [c for c in body.children if c.is_named
                                       and c.type != "comment"])


def _call_of(node: Node) -> Node | None:
    if node.type == "expression_statement" and node.named_children:
        node = node.named_children[0]
    return node if node.type == "call_expression" else None


def _callee(call: Node) -> tuple[str, list[str]]:
    """`it.skip.each` → ("it", ["skip"]); `describe` → ("describe", [])."""
    function = call.child_by_field_name("function")
    parts: list[str] = []
    while function is not None:
        if function.type == "identifier":
            parts.insert(0, text_of(function))
            break
        if function.type == "member_expression":
            parts.insert(0, text_of(function.child_by_field_name("property") or function))
            function = function.child_by_field_name("object")
        elif function.type == "call_expression":  # it.each([...])(...)
            function = function.child_by_field_name("function")
        else:
            break
    if not parts:
        return "", []
    return parts[0], [_MODIFIERS.get(p, "") for p in parts[1:]]


def _title_and_body(call: Node) -> tuple[str | None, Node | None]:
    args = call.child_by_field_name("arguments")
    named = [c for c in args.named_children] if args is not None else []
    if not named or named[0].type not in ("string", "template_string"):
        return None, None
    title = text_of(named[0])[1:-1]
    for arg in named[1:]:
        if arg.type in ("arrow_function", "function_expression", "function"):
            body = arg.child_by_field_name("body")
            return title, body
    return title, None


def _assertions(calls: list[Node]) -> list[Assertion]:
    """Each `expect(...)` chain, `assert(...)` / `assert.x(...)` call, outermost only (`calls`
    in source order, an outer call before the calls inside it)."""
    out = []
    outer_end = -1
    for node in calls:
        if node.start_byte < outer_end:
            continue  # inside an assertion already counted
        if _head(node) not in ("expect", "assert", "chai"):
            continue
        outer_end = node.end_byte
        out.append(_assertion(node))
    return out


def _head(call: Node) -> str:
    """The identifier a call chain starts from: `expect(x).not.toBe(y)` → expect."""
    node = call
    while node is not None and node.type in ("call_expression", "member_expression",
                                             "await_expression"):
        key = "function" if node.type == "call_expression" else "object"
        node = node.child_by_field_name(key) if node.type != "await_expression" else (
            node.named_children[0] if node.named_children else None)
    return text_of(node) if node is not None and node.type == "identifier" else ""


def _assertion(call: Node) -> Assertion:
    text = flat(text_of(call))
    values = _argument_values(call)
    trivial = bool(values) and all(v.type in _LITERALS for v in values)
    matcher = ""
    function = call.child_by_field_name("function")
    if function is not None and function.type == "member_expression":
        matcher = text_of(function.child_by_field_name("property") or function)
    compares = matcher not in _WEAK_MATCHERS and (matcher != "" or len(values) > 1)
    return Assertion(text, line_of(call), compares=compares, trivial=trivial)


def _argument_values(call: Node) -> list[Node]:
    """Every argument along the chain: `expect(a).toBe(b)` → [a, b]."""
    values: list[Node] = []
    node = call
    while node is not None:
        if node.type == "call_expression":
            args = node.child_by_field_name("arguments")
            values += list(args.named_children) if args is not None else []
            node = node.child_by_field_name("function")
        elif node.type == "member_expression":
            node = node.child_by_field_name("object")
        else:
            break
    return values
