"""The model process: LiteLLM in a child process of its own, so a face that draws a screen never
pays for its import or its per-chunk work. `client.py` is the parent's side, `worker.py` the
child's (`python -P -m valarmind_tui.providers.process.worker`).
"""
