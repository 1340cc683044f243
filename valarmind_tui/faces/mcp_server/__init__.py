"""MCP server face: `valarmind mcp serve`, the agents as MCP tools."""
