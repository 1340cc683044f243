"""The web: web_fetch (a page fetched, turned into Markdown, cached and capped) and web_search
(the provider's or an MCP server's search, sources typed, cached by seed 001's rules); risk WEB."""
