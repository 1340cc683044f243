"""Python test files (pytest and unittest) read into FileTests with tree-sitter-python."""

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

_SKIP_DECORATOR = re.compile(
    r"^(pytest\.mark\.(skip|skipif|xfail)|unittest\.(skip|skipIf|skipUnless|expectedFailure)"
    r"|(skip|skipIf|skipUnless|expectedFailure))\b")
_KINDS = ("assert_statement", "call", "raise_statement")
"""The nodes the reader looks at: assertions, calls (assertX, skip, exit), raises."""
_MODULE_SKIP = re.compile(r"pytestmark\s*=.*\b(skip|skipif|xfail)\b|pytest\.skip\s*\(", re.S)
_COMPARING_METHODS = frozenset({
    "assertEqual", "assertNotEqual", "assertIn", "assertNotIn", "assertIs", "assertIsNot",
    "assertRaises", "assertRaisesRegex", "assertAlmostEqual", "assertNotAlmostEqual",
    "assertGreater", "assertGreaterEqual", "assertLess", "assertLessEqual", "assertRegex",
    "assertCountEqual", "assertDictEqual", "assertListEqual", "assertSetEqual",
    "assertTupleEqual", "assertSequenceEqual", "assertMultiLineEqual", "assertIsInstance",
    "assertWarns", "assertLogs", "assertIsNone", "assertEquals"})
_CONSTANTS = frozenset({"true", "false", "none", "integer", "float", "string",
                        "concatenated_string"})


def is_test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")
                                     or name == "conftest.py" or "/tests/" in f"/{path}")


def read_tests(text: str) -> FileTests | None:
    """The file's tests, or None when it does not parse."""
    root = parse("python", text)
    if root is None:
        return None
    found = FileTests()
    nodes = nodes_of("python", root, _KINDS)
    for node in root.children:
        _module_markers(node, found)
        _definition(node, "", set(), found, nodes)
        _hook(node, found)
    found.exits = _exits(nodes)
    found.assertion_texts = {a.text for a in _assertions(nodes)}
    return found


def _hook(node: Node, found: FileTests) -> None:
    definition = node.child_by_field_name("definition") if (
        node.type == "decorated_definition") else node
    if definition is None or definition.type != "function_definition":
        return
    name = text_of(definition.child_by_field_name("name") or definition)
    if name.startswith("pytest_"):
        found.hooks[name] = (line_of(node), flat(text_of(node)))


def _exits(nodes: list[Node]) -> list[tuple[int, str]]:
    out = []
    for node in nodes:
        if node.type == "call":
            callee = text_of(node.child_by_field_name("function") or node)
            if callee in ("sys.exit", "os._exit", "exit", "quit", "os.abort"):
                out.append((line_of(node), flat(text_of(node))))
        elif node.type == "raise_statement" and "SystemExit" in text_of(node):
            out.append((line_of(node), flat(text_of(node))))
    return out


def _definition(node: Node, prefix: str, inherited: set[str], found: FileTests,
                nodes: list[Node]) -> None:
    markers = set(inherited)
    definition = node
    if node.type == "decorated_definition":
        for decorator in node.children:
            if decorator.type == "decorator":
                markers |= _marker(text_of(decorator).lstrip("@").strip())
        definition = node.child_by_field_name("definition")
        if definition is None:
            return
    name_node = definition.child_by_field_name("name")
    if name_node is None:
        return
    name = text_of(name_node)
    body = definition.child_by_field_name("body")
    if definition.type == "class_definition" and body is not None:
        for child in body.children:
            _definition(child, f"{prefix}{name}.", markers, found, nodes)
    elif definition.type == "function_definition" and name.startswith("test") and body:
        inside = within(nodes, body)
        markers |= _body_markers(inside)
        found.tests[prefix + name] = TestCase(
            name=prefix + name, line=line_of(node), body=flat(text_of(body)),
            assertions=_assertions(inside), markers=markers, empty=_empty(body))


def _marker(decorator: str) -> set[str]:
    match = _SKIP_DECORATOR.match(decorator)
    if match is None:
        return set()
    return {"xfail" if ("xfail" in decorator or "expectedFailure" in decorator) else "skip"}


def _body_markers(nodes: list[Node]) -> set[str]:
    """`pytest.skip(...)`, `pytest.xfail(...)`, `self.skipTest(...)` inside the test."""
    out = set()
    for node in nodes:
        if node.type == "call":
            callee = text_of(node.child_by_field_name("function") or node)
            if callee in ("pytest.skip", "self.skipTest", "pytest.importorskip"):
                out.add("skip")
            elif callee == "pytest.xfail":
                out.add("xfail")
    return out


def _module_markers(node: Node, found: FileTests) -> None:
    """`pytestmark = pytest.mark.skip...` and a module-level `pytest.skip(...)`;
    `collect_ignore` in a conftest."""
    if node.type not in ("expression_statement", "assignment", "augmented_assignment",
                         "call"):
        return
    source = text_of(node)
    if _MODULE_SKIP.match(source):
        found.file_markers["skip"] = line_of(node)
    elif re.match(r"collect_ignore(_glob)?\s*(=|\+=|\.append|\.extend)", source):
        found.file_markers["ignored"] = line_of(node)


def _assertions(nodes: list[Node]) -> list[Assertion]:
    out = []
    for node in nodes:
        if node.type == "assert_statement":
            condition = node.children[1] if len(node.children) > 1 else node
            out.append(Assertion(flat(text_of(node)), line_of(node),
                                 compares=_compares(condition), trivial=_constant(condition)))
        elif node.type == "call":
            callee = node.child_by_field_name("function")
            if callee is None or callee.type != "attribute":
                continue
            method = text_of(callee.child_by_field_name("attribute") or callee)
            owner = text_of(callee.child_by_field_name("object") or callee)
            if owner == "self" and (method.startswith("assert") or method == "fail"):
                args = node.child_by_field_name("arguments")
                values = [c for c in (args.children if args else ()) if c.is_named]
                trivial = bool(values) and all(_constant(v) for v in values)
                out.append(Assertion(flat(text_of(node)), line_of(node),
                                     compares=method in _COMPARING_METHODS, trivial=trivial))
            elif owner == "pytest" and method in ("raises", "warns", "approx"):
                out.append(Assertion(flat(text_of(node)), line_of(node), compares=True,
                                     trivial=False))
    return out


def _compares(condition: Node) -> bool:
    if condition.type == "comparison_operator":
        return True
    if condition.type == "call":  # isinstance(x, T) checks a type; a bare call, truthiness
        callee = text_of(condition.child_by_field_name("function") or condition)
        return callee in ("isinstance", "issubclass")
    return condition.type == "boolean_operator" and any(
        _compares(c) for c in condition.children if c.is_named)


def _constant(node: Node) -> bool:
    """Only literals: it cannot fail (or always fails): `True`, `1 == 1`, `"x"`."""
    if node.type in _CONSTANTS:
        return True
    if node.type in ("comparison_operator", "boolean_operator", "parenthesized_expression",
                     "not_operator", "unary_operator"):
        named = [c for c in node.children if c.is_named]
        return bool(named) and all(_constant(c) for c in named)
    return False


def _empty(body: Node) -> bool:
    """Only `pass`, `...` and strings (a docstring)."""
    for statement in body.children:
        if statement.type in ("pass_statement", "comment", "string", "ellipsis"):
            continue
        if statement.type == "expression_statement" and all(
                c.type in ("ellipsis", "string") for c in statement.children):
            continue
        return False
    return True
