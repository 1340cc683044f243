"""What a server says reaches the model masked (a secret in a diagnostic) and reaches a
terminal with its control characters visible."""

from __future__ import annotations

from pathlib import Path

from valarmind_tui.agents.gated_call import run_gated
from valarmind_tui.lsp.manager import LspManager
from valarmind_tui.lsp.render import diagnostic_line, hover_text
from valarmind_tui.safety.gate.approval import PolicyApprover
from valarmind_tui.safety.gate.permissions import AgentPermissions
from valarmind_tui.safety.gate.pipeline import PermissionGate
from valarmind_tui.tools.base import ToolContext
from valarmind_tui.tools.files.write_file import WriteFile
from valarmind_tui.tools.services import ToolServices

TOKEN = "ghp_" + "A1b2C3d4" * 5


async def test_a_secret_quoted_in_a_diagnostic_is_masked(servers: LspManager,
                                                         project: Path) -> None:
    gate = PermissionGate(project, PolicyApprover(allow_writes=True))
    ctx = ToolContext(project_root=servers.root, services=ToolServices(lsp=servers))
    write = WriteFile()
    status, result = await run_gated(
        write, write.parse({"path": "leak.py", "content": f'count: int = "{TOKEN}"\n'}), ctx,
        gate, AgentPermissions.full())
    assert status == "ok"
    assert "leak.py:1:14 error: Type \"Literal['" in result.output
    assert TOKEN not in result.output


def test_control_characters_in_a_servers_words_are_made_visible() -> None:
    diagnostic = {"range": {"start": {"line": 0, "character": 0}}, "severity": 1,
                  "message": "bad \x1b]52;c;cm0gLXJmIH4=\x07 name", "source": "evil\x1b[2J"}
    line = diagnostic_line(diagnostic, "a.py", "x = 1\n")
    assert "\x1b" not in line and "\x07" not in line
    assert line == "a.py:1:1 error: bad ␛]52;c;cm0gLXJmIH4=␇ name (evil␛[2J)"
    assert hover_text({"contents": {"kind": "plaintext", "value": "x\x1b[31m"}}) == "x␛[31m"
