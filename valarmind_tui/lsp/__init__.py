"""Language servers: what pyright, ruff, gopls, rust-analyzer, clangd and
typescript-language-server say about the files the agents touch.

`manager.py` (`LspManager`, one per session) is where to start: it finds a server for a file's
language (`servers.py`: the known servers, on PATH or in the project's environment), starts it
lazily in the sandbox (`process.py`), keeps it warm, restarts it when it crashes or hangs
(bounded), and answers the tools (diagnostics after an edit, definitions, references, hover).
`connection.py` is the JSON-RPC client over stdio (`framing.py`: Content-Length frames);
`documents.py` what a server has open; `render.py` turns answers into text for the model.

May import `safety`, `settings` and `core`.
"""
