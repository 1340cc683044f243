"""repomap package."""
