"""Launchers: commands that run another command (`env`, `sudo`, `xargs`, `sh -c`...).

safety.shell unwraps them so a rule meets the command that really runs.
"""

from __future__ import annotations

Word = str | None

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "fish"})
STRING_RUNNERS = frozenset({"su", "runuser", "script", "flock"})
"""Commands whose `-c STR` option is a shell command line (`su -c 'rm x'`)."""
JOINING_RUNNERS = frozenset({"watch"})
"""Commands that join their arguments into a shell command line (`watch 'rm x'`)."""
MULTI_VERB = frozenset({
    "git", "npm", "pnpm", "yarn", "npx", "cargo", "go", "docker", "podman", "kubectl", "pip",
    "pip3", "uv", "poetry", "apt", "apt-get", "brew", "systemctl", "gh", "dotnet", "bun",
})
"""Tools whose first non-option argument is part of the intent (`git push`, `npm publish`)."""

# Launchers: options that take a value (so the value is not the command).
VALUE_OPTS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir"}),
    "exec": frozenset({"-a"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "xargs": frozenset({"-I", "-i", "-n", "-P", "-d", "-E", "-e", "-L", "-l", "-s", "-a",
                        "--max-args", "--max-procs", "--delimiter", "--arg-file",
                        "--replace", "--eof", "--max-lines", "--max-chars"}),
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R",
                       "--user", "--group", "--chdir", "--prompt", "--host"}),
    "doas": frozenset({"-u", "-C"}),
    "time": frozenset({"-f", "-o", "--format", "--output"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "nohup": frozenset(),
    "chroot": frozenset({"--userspec", "--groups"}),
    "setsid": frozenset(),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "taskset": frozenset(),
    "unbuffer": frozenset(),
    "caffeinate": frozenset(),
    "busybox": frozenset(),
}


def shell_script(args: list[Word]) -> str | bool | None:
    """For `sh [opts] -c STR ...`: STR, False if STR is dynamic, None when there is no -c."""
    for i, arg in enumerate(args):
        if arg is None:
            return None
        if arg == "--" or not arg.startswith("-") and not arg.startswith("+"):
            return None
        if not arg.startswith("--") and "c" in arg[1:]:
            rest = [a for a in args[i + 1:] if a is None or not a.startswith("-")]
            if not rest:
                return None
            return rest[0] if rest[0] is not None else False
    return None


def unwrap(name: str, args: list[Word]) -> list[Word] | None:
    """The command a launcher runs ([] for none), or None when `name` is not a launcher."""
    if name not in VALUE_OPTS:
        return None
    takes_value = VALUE_OPTS[name]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None:
            return args[i:]
        if arg == "--":
            i += 1
            break
        if name == "env" and "=" in arg and not arg.startswith("-"):
            i += 1
            continue
        if name == "command" and arg in ("-v", "-V"):
            return []
        if not arg.startswith("-") or arg == "-":
            if name == "env" and arg == "-":
                i += 1
                continue
            break
        if arg in takes_value:
            i += 2
            continue
        i += 1
    rest = args[i:]
    if name == "timeout" and rest:
        rest = rest[1:]  # the duration
    if name == "nice" and rest and rest[0] is not None and rest[0].lstrip("-").isdigit():
        rest = rest[1:]
    return rest


def skip_global_options(tool: str, args: list[Word]) -> list[Word]:
    """git's `-C dir`, `-c k=v`, `--git-dir=...` and similar come before the sub-verb."""
    with_value = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--prefix",
                  "--workspace", "-w", "--cwd", "--dir"} if tool in ("git", "npm", "pnpm",
                                                                      "yarn") else set()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None or not arg.startswith("-"):
            break
        i += 2 if arg in with_value else 1
    return args[i:]
