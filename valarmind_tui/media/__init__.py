"""Images the model sees: a prompt's screenshot, a tool's picture.

`images.py` reads an image through the attachment check (containment, links, sensitive paths),
limits and downscales it with Pillow (imported lazily) and gives an `ImageAttachment`; `parts.py`
turns one into an OpenAI-format content part (LiteLLM translates it for every provider), says it
in one line for the person, and swaps its bytes for a hash reference when a message is stored.
Imports `safety` and `core` only; `store`, `providers`, `tools`, `context` and above import it.
"""
