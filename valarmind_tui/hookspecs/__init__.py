"""The plugin API's first import path, kept for plugins written against it.

`valarmind_tui.plugins.specs` is its home; nothing in ValarMind imports this package.
"""

from valarmind_tui.plugins.specs import PluginSpec, hookimpl, hookspec

__all__ = ["PluginSpec", "hookimpl", "hookspec"]
