"""Agents: the loop, the orchestrator, specialists defined as .md files."""
