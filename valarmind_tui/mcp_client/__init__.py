"""MCP client: the servers a session talks to, their tools, and the sampling they ask of us."""
