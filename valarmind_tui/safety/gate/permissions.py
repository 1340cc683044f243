"""What an agent is allowed to do, enforced by the gate whatever the model asks."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AgentPermissions:
    """Seed 001's read/write/execute/web/spawn flags, plus optional narrowing."""

    read: bool = True
    write: bool = False
    execute: bool = False
    web: bool = False
    spawn: bool = False
    write_globs: tuple[str, ...] | None = None
    """When set, writes are allowed only to project-relative paths matching one of these globs
    (the test agent writes only test files, the docs agent only documentation)."""
    execute_allow: tuple[str, ...] | None = None
    """When set, bash may run only these commands, with more arguments after them, each call one
    simple command (QA runs only detected commands; the test agent `pytest -q tests/x.py`)."""

    @classmethod
    def full(cls) -> AgentPermissions:
        return cls(read=True, write=True, execute=True, web=True, spawn=True)
