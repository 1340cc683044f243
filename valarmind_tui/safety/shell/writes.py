"""Which files a simple command writes, as far as its words tell (for protected paths).

This is a static guess, not a sandbox: `cp x .git/config`, `tee .mcp.json`, `sed -i ...
.valarmind/config.toml`, `ln -s`, `chmod`... name the file they change, and `git config`, `git
remote add`, `git submodule`, `git -c k=v` change git's configuration (`.git/config`), which
can make git run a command. The gate treats these as writes to protected paths.
"""

from __future__ import annotations

from valarmind_tui.safety.shell.command import SimpleCommand, global_options

WRITING_VERBS = frozenset({
    "cp", "mv", "tee", "ln", "link", "chmod", "chown", "chgrp", "chattr", "touch", "rm", "rmdir",
    "mkdir", "truncate", "install", "rsync", "patch", "unlink", "shred", "tar", "unzip", "curl",
    "wget", "setfacl", "mkfifo", "split", "csplit",
})
"""Commands whose path arguments may be written (a read of one asks too: that is acceptable)."""
IN_PLACE_EDITORS = frozenset({"sed", "perl", "ruby", "gsed"})
"""Editors that write their files only with `-i`."""
GIT_CONFIG_VERBS = frozenset({"submodule", "filter-branch", "filter-repo", "update-index"})
_GIT_CONFIG_READS = frozenset({
    "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "get", "list",
    "--show-origin", "--get-color", "--get-colorbool",
})
_GIT_REMOTE_READS = frozenset({"-v", "--verbose", "show", "get-url"})


def written_paths(cmd: SimpleCommand) -> list[str]:
    """The static path arguments `cmd` may write."""
    name, args = cmd.name, [a for a in cmd.argv[1:] if a is not None]
    if name == "dd":
        return [a[3:] for a in args if a.startswith("of=")]
    if name in IN_PLACE_EDITORS:
        if not any(a.startswith("-i") or a.startswith("--in-place") for a in args) and not any(
            a.startswith("-") and not a.startswith("--") and "i" in a for a in args
        ):
            return []
    elif name not in WRITING_VERBS:
        return []
    paths: list[str] = []
    for arg in args:
        if arg.startswith("--") and "=" in arg:
            paths.append(arg.split("=", 1)[1])
        elif not arg.startswith("-"):
            paths.append(arg)
    return paths


def git_config_write(cmd: SimpleCommand) -> str | None:
    """A description (`git config`) when `cmd` changes git's configuration, else None."""
    if cmd.name != "git":
        return None
    options = global_options(cmd)
    if "-c" in options or any(o is None or o.startswith("--config-env") for o in options):
        return "git -c (configuration for this command)"
    rest = cmd.argv[1 + len(options):]
    if not rest or rest[0] is None:
        return None if not rest else "git with a sub-command known only when it runs"
    verb, args = rest[0], rest[1:]
    if verb == "config":
        return None if any(a in _GIT_CONFIG_READS for a in args) else "git config"
    if verb == "remote":
        return None if not args or args[0] in _GIT_REMOTE_READS else "git remote"
    if verb in GIT_CONFIG_VERBS:
        return f"git {verb}"
    return None
