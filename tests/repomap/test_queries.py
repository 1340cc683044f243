"""Every tags query compiles against its bundled grammar and finds definitions in real code."""

from __future__ import annotations

import pytest

from valarmind_tui.repomap.languages import queries, supported_languages
from valarmind_tui.repomap.tags import extract

SAMPLES = {
    "python": ("class Foo(Base):\n    def bar(self, x):\n        return baz(x)\n", {"Foo", "bar"}),
    "javascript": ("class A { m() { return f(); } }\nfunction g() {}\n", {"A", "m", "g"}),
    "typescript": ("interface I { a(): void }\nclass C implements I { a() {} }\n"
                   "type T = number;\nfunction f(c: C): T { return 1 }\n", {"I", "C", "T", "f"}),
    "tsx": ("export function App(): JSX.Element { return <div/> }\n", {"App"}),
    "go": ("package m\ntype S struct{}\nfunc (s S) M() {}\nfunc F() { S{}.M() }\n",
           {"S", "M", "F"}),
    "rust": ("struct S;\ntrait T { fn t(&self); }\nimpl S { fn m(&self) {} }\nfn f() {}\n",
             {"S", "T", "m", "f"}),
    "java": ("class Foo { Foo(){} int m(int x){ return g(x); } }\ninterface I {}\n",
             {"Foo", "m", "I"}),
    "c": ("struct S { int a; };\nint foo(int x) { return bar(x); }\n", {"S", "foo"}),
    "cpp": ("namespace n { class C { void m(); }; }\nvoid C::m() { g(); }\n", {"n", "C", "m"}),
    "csharp": ("namespace N { class C { public int M(int x) { return G(x); } } }\n",
               {"N", "C", "M"}),
    "ruby": ("module M\n class Foo < Bar\n  def m(x); g(x); end\n end\nend\n", {"M", "Foo", "m"}),
    "php": ("<?php\nclass Foo { function m($x) { return g($x); } }\nfunction top() {}\n",
            {"Foo", "m", "top"}),
    "kotlin": ("class Foo { fun m(y: Int): Int = g(y) }\nfun top() {}\n", {"Foo", "m", "top"}),
    "swift": ("class Foo { func m() {} }\nprotocol P {}\nfunc top() {}\n", {"Foo", "P", "top"}),
    "scala": ("class Foo { def m(x: Int): Int = g(x) }\nobject O\ntrait T\n",
              {"Foo", "m", "O", "T"}),
    "lua": ("function foo(a) return bar(a) end\nfunction M.qux() end\n", {"foo", "qux"}),
    "bash": ("foo() { bar; }\nfunction baz { echo hi; }\n", {"foo", "baz"}),
    "elixir": ("defmodule A.B do\n  def foo(x), do: bar(x)\nend\n", {"A.B", "foo"}),
    "haskell": ("module A where\nfoo :: Int -> Int\nfoo x = bar x\ndata D = D Int\n",
                {"foo", "D"}),
    "ocaml": ("let foo x = bar x\ntype t = A | B\nmodule M = struct let z = 1 end\n",
              {"foo", "t", "M"}),
    "dart": ("class Foo { int m(int x) { return g(x); } }\nvoid top() {}\n", {"Foo", "m", "top"}),
    "r": ("foo <- function(x) { bar(x) }\n", {"foo"}),
    "julia": ("module M\nfunction foo(x)\n  bar(x)\nend\nstruct S end\nend\n", {"M", "foo", "S"}),
    "zig": ("fn foo(x: i32) i32 { return bar(x); }\nconst S = struct { a: i32 };\n",
            {"foo", "S"}),
}


def test_at_least_twenty_languages_have_queries() -> None:
    assert len(supported_languages()) >= 20
    assert set(supported_languages()) == set(SAMPLES)


@pytest.mark.parametrize("lang", sorted(SAMPLES))
def test_query_compiles_and_finds_definitions(lang: str) -> None:
    queries(lang)  # compiles against the bundled grammar or raises
    source, expected = SAMPLES[lang]
    found = {d.name for d in extract(source.encode(), lang).definitions}
    assert expected <= found, f"{lang}: missing {expected - found}"


def test_references_are_counted_by_name() -> None:
    tags = extract(b"def a():\n    b()\n    b()\n    x.c()\n", "python")
    assert tags.references == {"b": 2, "c": 1}


def test_javascript_constructor_is_not_a_definition() -> None:
    tags = extract(b"class A { constructor() {} run() {} }\n", "javascript")
    assert [d.name for d in tags.definitions] == ["A", "run"]
