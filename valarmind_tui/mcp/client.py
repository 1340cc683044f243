"""MCP client manager."""
