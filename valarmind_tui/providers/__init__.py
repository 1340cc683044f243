"""Models behind a Protocol; LiteLLM is the one implementation (imported lazily).

`base.py` is what the agent loop knows of a model; `litellm_provider.py` the implementation,
`litellm_call.py` one call as events, `normalize.py` a stream into one turn, `failures.py`
errors classified, `model_info.py` context windows, `process/` LiteLLM in a child process for
the TUI, `io_thread.py` the headless faces' model thread, `import_less.py` the model library's
index packages read name by name. May import `safety`, `settings`, `core`.
"""
