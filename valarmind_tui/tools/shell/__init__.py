"""bash: a shell command in the project root, through the gate and the sandbox."""
