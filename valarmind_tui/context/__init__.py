"""What the model is told: the prompt of each agent (`prompt_builder.py`), token counts
(`tokens.py`), compaction and when it is due (`history_size.py`: by the tokens the provider
reported), what fills the window (`breakdown.py`), the project's context files
(`project_context.py`), a stored conversation shown again (`transcript.py`), the project's
commands (`project_commands.py`), its manifests (`manifests/`) and `/init` (`init/`).

May import: `providers`, `repomap`, `safety`, `settings`, `core`.
"""
