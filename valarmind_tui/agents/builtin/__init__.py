"""Built-in agent definitions: one `<name>.md` per agent (front matter + system prompt)."""
