"""Built-in tools: one module each, a pydantic Params model and a sibling .md description."""
