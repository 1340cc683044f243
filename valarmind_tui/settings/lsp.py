"""`[lsp]`: the language servers whose diagnostics reach the agents after an edit.

User config and `VALARMIND_LSP__*` only: a repository's config may not set any of it
(settings/repository.py), since `commands` names a program to run and the rest decides when
one runs.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class LspSettings(BaseModel):
    """Which language servers run and how long they are waited for."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    """Start language servers for the files the agents touch (found on PATH or, in a trusted
    project, in its `.venv/bin` or `node_modules/.bin`)."""
    servers: dict[str, list[str]] = Field(default_factory=dict)
    """Per language (python, typescript, go, rust, c), the known servers to try in order,
    e.g. `python = ["ruff"]`; the first found serves the language. Empty: the built-in order
    (basedpyright, pyright, ruff for Python)."""
    commands: dict[str, list[str]] = Field(default_factory=dict)
    """A known server's own command line, e.g. `pyright = ["/opt/pyright/bin/pyright-langserver",
    "--stdio"]`; the first word is looked up on PATH when it is not a path."""
    start_timeout_s: float = Field(default=30.0, gt=0)
    """How long a server may take to start and answer `initialize`."""
    request_timeout_s: float = Field(default=10.0, gt=0)
    """How long a definition, references or hover request may take; past it the server is
    taken as hung and restarted."""
    diagnostics_timeout_s: float = Field(default=3.0, gt=0)
    """How long an edit waits for the server's new diagnostics before the result goes back
    without them."""
    max_diagnostics: int = Field(default=20, ge=1)
    """Diagnostics shown per tool result (errors first)."""
    max_restarts: int = Field(default=3, ge=0)
    """Restarts after a crash or a hang, per server and session; then it stays down."""
