"""web_fetch against a real local HTTP server: HTML → Markdown, cache, size cap, no network."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.web import web_fetch
from valarmind_tui.tools.web.web_fetch import WebFetchTool, html_to_markdown

PAGE = b"""<!doctype html><html><head><title>Fastify JWT</title><style>p{}</style></head>
<body><nav>menu</nav><h1>Usage</h1><p>Register the <a href="https://x.dev/jwt">plugin</a>
with <code>app.register</code>.</p><ul><li>sign</li><li>verify</li></ul>
<pre>app.jwt.sign({a: 1})</pre><script>alert(1)</script></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    hits: list[str] = []

    def log_message(self, *args: object) -> None:
        return

    def do_GET(self) -> None:  # noqa: N802
        _Handler.hits.append(self.path)
        body = PAGE if self.path != "/big" else b"a" * (web_fetch.MAX_BYTES + 10_000)
        status = 404 if self.path == "/missing" else 200
        self.send_response(status)
        self.send_header("Content-Type", "text/html" if self.path != "/big" else "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Handler.hits = []
    web_fetch._MEMORY.clear()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def _fetch(url: str, tmp_path: Path, prompt: str | None = None):  # noqa: ANN202
    tool = WebFetchTool()
    return await tool.run(tool.parse({"url": url, "prompt": prompt}),
                          ToolContext(project_root=tmp_path))


def test_html_becomes_markdown() -> None:
    title, text = html_to_markdown(PAGE.decode())
    assert title == "Fastify JWT"
    assert "# Usage" in text
    assert "[plugin](https://x.dev/jwt)" in text and "`app.register`" in text
    assert "- sign\n- verify" in text
    assert "```\napp.jwt.sign({a: 1})\n```" in text
    assert "alert" not in text and "menu" not in text and "p{}" not in text


def test_tables_and_nested_lists_keep_their_shape() -> None:
    _, text = html_to_markdown(
        "<table><tr><th>option</th><th>default</th></tr><tr><td>timeout</td><td>30</td></tr>"
        "</table><ul><li>a<ul><li>b</li></ul></li></ul>")
    assert "| option | default |\n| --- | --- |\n| timeout | 30 |" in text
    assert "- a\n  - b" in text


async def test_fetch_converts_and_caches_for_15_minutes(site: str, tmp_path: Path) -> None:
    first = await _fetch(site + "/doc", tmp_path, prompt="verify")
    assert not first.is_error and first.data == {"url": site + "/doc", "cached": False}
    assert "# Usage" in first.output and "Looking for: verify" in first.output
    second = await _fetch(site + "/doc", tmp_path)
    assert second.data["cached"] is True and _Handler.hits == ["/doc"]
    web_fetch._MEMORY.clear()  # a new process: the disk cache still answers
    third = await _fetch(site + "/doc", tmp_path)
    assert third.data["cached"] is True and _Handler.hits == ["/doc"]


async def test_size_cap_and_http_errors(site: str, tmp_path: Path) -> None:
    big = await _fetch(site + "/big", tmp_path)
    assert f"[truncated at {web_fetch.MAX_CHARS:,} characters]" in big.output
    assert len(big.output) < web_fetch.MAX_CHARS + 500
    missing = await _fetch(site + "/missing", tmp_path)
    assert missing.is_error and "HTTP 404" in missing.output
    bad = await _fetch("file:///etc/passwd", tmp_path)
    assert bad.is_error and "not an http(s) URL" in bad.output


async def test_no_network_is_said_plainly(tmp_path: Path) -> None:
    closed = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    port = closed.server_address[1]
    closed.server_close()  # nothing listens there now
    result = await _fetch(f"http://127.0.0.1:{port}/x", tmp_path)
    assert result.is_error and result.output.startswith("No network access: could not reach")
