"""MCP server face (valarmind mcp serve)."""
