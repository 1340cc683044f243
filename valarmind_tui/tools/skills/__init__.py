"""Agent Skills for the model: the `skill` tool loads a skill's instructions, or a file of its
folder, on demand (the prompts list only names and descriptions)."""
