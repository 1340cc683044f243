"""web_fetch: a page fetched, turned into Markdown, cached and capped (risk WEB)."""
