"""The permission gate: every tool call passes here before it runs."""
