"""Models behind a Protocol; LiteLLM is the one implementation (imported lazily)."""
