"""/init on real small projects: required sections, budget, hand-written text preserved."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from valarmind_tui.context.init.valarmind_md import HARD_CAP, SECTIONS
from valarmind_tui.context.init.write import generate_valarmind_md, write_valarmind_md
from valarmind_tui.context.project_context import ContextLoader
from valarmind_tui.context.tokens import count_tokens

REQUIRED = [heading for _, heading, required in SECTIONS if required]


def _headings(text: str) -> list[str]:
    return re.findall(r"(?m)^## (.+)$", text)


@pytest.mark.parametrize("fixture", ["py_js_project", "go_project", "rust_project"])
async def test_draft_without_model_has_every_required_section(
        fixture: str, request: pytest.FixtureRequest) -> None:
    root: Path = request.getfixturevalue(fixture)
    result = await generate_valarmind_md(root)
    assert result.drafted_without_model and result.mode == "create"
    assert "without a model" in result.text
    assert all(h in _headings(result.text) for h in REQUIRED)
    assert result.tokens == count_tokens(result.text) <= HARD_CAP
    assert not (root / "VALARMIND.md").exists()  # nothing written before approval


async def test_draft_reflects_the_project(py_js_project: Path) -> None:
    text = (await generate_valarmind_md(py_js_project)).text
    assert "An online shop" in text
    assert "| `fastapi` | >=0.110 |" in text  # tables, major.minor
    for needle in ("/products", "/orders", "STRIPE_API_KEY", "DATABASE_URL", "Stripe",
                   "backend/webshop/auth.py", "`pytest`", "ruff"):
        assert needle in text
    assert "## Endpoints" in text and "## Environment Variables" in text


async def test_optional_sections_only_when_there_is_something(rust_project: Path) -> None:
    text = (await generate_valarmind_md(rust_project)).text
    assert "## Endpoints" not in text and "## Environment Variables" not in text
    assert "| `serde` | 1.0 |" in text and "cargo test" in text


async def test_update_keeps_hand_written_sections_byte_for_byte(py_js_project: Path) -> None:
    first = await generate_valarmind_md(py_js_project)
    manual = "\n## Team Rules\n\nAlways   run `make check`\tbefore pushing.\n  Trailing  \n\n"
    stack = re.search(r"<!-- valarmind:generated:stack sha256=\w+ -->", first.text)
    assert stack is not None
    edited = first.text.replace(stack.group(0), manual + stack.group(0), 1)
    write_valarmind_md(py_js_project, edited)
    (py_js_project / "backend" / "webshop" / "billing.py").write_text("def charge():\n    pass\n")
    second = await generate_valarmind_md(py_js_project)
    assert second.mode == "update"
    assert manual in second.text
    assert "billing.py" in second.text
    assert "+" in second.diff_vs_existing and "billing" in second.diff_vs_existing
    # The manual block sits where the person put it: right before the generated Stack.
    assert second.text.index("## Team Rules") < second.text.index("## Stack")


async def test_write_is_atomic_and_invalidates_context_cache(go_project: Path) -> None:
    loader = ContextLoader(go_project)
    assert not loader.load()
    result = await generate_valarmind_md(go_project)
    write_valarmind_md(go_project, result.text)
    assert not loader.load()  # still the cached (empty) view
    loader.invalidate()
    assert "kvstore" in loader.load().text
    assert [p.name for p in go_project.iterdir() if p.name.startswith(".VALARMIND")] == []
