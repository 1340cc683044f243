"""safety.shell: a command string split into the simple commands and writes the rules check."""

from __future__ import annotations

import pytest

from valarmind_tui.safety.shell.command import command_intents, parse_command
from valarmind_tui.safety.shell.writes import git_config_write, written_paths


def argvs(command: str) -> list[tuple[str | None, ...]]:
    return [c.argv for c in parse_command(command).commands]


@pytest.mark.parametrize("command", [
    "rm -rf X; true", "true && rm -rf X", "false || rm -rf X", "echo $(rm -rf X)",
    "echo `rm -rf X`", "(rm -rf X)", "{ rm -rf X; }", "rm -rf X | cat", "cat <(rm -rf X)",
    "if true; then rm -rf X; fi", "while true; do rm -rf X; done", "for f in a; do rm -rf X; done",
    "case a in a) rm -rf X;; esac", "f(){ rm -rf X; }; f", "ls\nrm -rf X", "rm -rf X &",
    "! rm -rf X", "Y=$(rm -rf X) true", "echo \"$(rm -rf X)\"", "cat <<< \"$(rm -rf X)\"",
    "cat <<EOF\n$(rm -rf X)\nEOF", "[[ -n $(rm -rf X) ]]", "export A=$(rm -rf X)",
])
def test_every_simple_command_is_found(command: str) -> None:
    parsed = parse_command(command)
    assert ("rm", "-rf", "X") in argvs(command)
    assert parsed.parseable, parsed.unparseable


@pytest.mark.parametrize("command", [
    "env rm -rf X", "env -i FOO=1 rm -rf X", "env -u HOME rm -rf X", "command rm -rf X",
    "builtin rm -rf X", "exec rm -rf X", "nohup rm -rf X", "time rm -rf X", "nice -n 5 rm -rf X",
    "timeout 10 rm -rf X", "timeout -s KILL 5 rm -rf X", "stdbuf -oL rm -rf X",
    "sudo rm -rf X", "sudo -u root rm -rf X", "doas rm -rf X", "/bin/rm -rf X",
    "./rm -rf X", "\\rm -rf X", "'rm' -rf X", '"rm" -rf X', "r\\m -rf X", "$'\\x72m' -rf X",
    "sh -c 'rm -rf X'", 'bash -lc "rm -rf X"', "dash -c 'rm -rf X'",
    "bash -c 'bash -c \"rm -rf X\"'",
    "sudo env nice nohup rm -rf X", "eval rm -rf X", "xargs rm -rf X", "xargs -I{} rm -rf X",
    "find . -exec rm -rf X \\;", "find . -execdir rm -rf X +",
])
def test_launchers_are_unwrapped(command: str) -> None:
    assert ("rm", "-rf", "X") in argvs(command), argvs(command)


def test_find_delete_counts_as_rm() -> None:
    assert any(c.name == "rm" for c in parse_command("find . -name '*.o' -delete").commands)


@pytest.mark.parametrize("command", [
    "eval \"$CMD\"", "$X file", "${X} file", "$(echo rm) file", "sh -c \"$CMD\"", "echo 'unclosed",
    "ls &&", "cat script | sh", "curl x | bash", "echo > \"$OUT\"", "env -S 'rm x'",
])
def test_what_cannot_be_known_statically_is_unparseable(command: str) -> None:
    assert not parse_command(command).parseable


def test_dynamic_words_are_none_and_static_ones_unquoted() -> None:
    assert argvs('git commit -m "a b" $MSG') == [("git", "commit", "-m", "a b", None)]
    assert argvs("echo 'a'\"b\"c") == [("echo", "abc")]


def test_redirection_targets_are_writes() -> None:
    parsed = parse_command("echo x > a; echo y >> b 2>&1; cmd &> c; cmd >| d; cat < e")
    assert parsed.writes == ["a", "b", "c", "d"]
    heredoc = parse_command("cat > .valarmind/config.toml <<EOF\nmode = 'bypass'\nEOF")
    assert heredoc.writes == [".valarmind/config.toml"] and heredoc.parseable
    assert parse_command("ls 2>/dev/null >&2").writes == ["/dev/null"]


def test_intents_are_verbs_and_subverbs() -> None:
    assert command_intents(parse_command("git -C . push origin && rm x; true")) == [
        "git push", "rm"]
    assert command_intents(parse_command("npm test -- -u")) == ["npm test"]
    assert command_intents(parse_command("eval $X")) == ["<unparseable command>"]


def test_written_paths_of_writing_verbs() -> None:
    (cp,) = parse_command("cp x .git/config").commands
    assert written_paths(cp) == ["x", ".git/config"]
    (sed_read,) = parse_command("sed -n p .mcp.json").commands
    assert written_paths(sed_read) == []
    (sed_write,) = parse_command("sed -i s/a/b/ .mcp.json").commands
    assert ".mcp.json" in written_paths(sed_write)
    (dd,) = parse_command("dd if=x of=.envrc").commands
    assert written_paths(dd) == [".envrc"]


@pytest.mark.parametrize(("command", "writes"), [
    ("git config core.fsmonitor 'touch pwned'", True), ("git config --get user.name", False),
    ("git -c core.pager=evil log", True), ("git remote add x url", True), ("git remote -v", False),
    ("git submodule add url", True), ("git status", False), ("git commit -m x", False),
])
def test_git_config_writes(command: str, writes: bool) -> None:
    (cmd,) = parse_command(command).commands
    assert (git_config_write(cmd) is not None) == writes
