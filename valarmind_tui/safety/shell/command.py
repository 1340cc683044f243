"""A shell command as the rules see it: every simple command it runs and every file it writes.

`parse_command("rm -rf X; true")` walks tree-sitter-bash's tree through lists, pipelines,
subshells, `{ ...; }`, `$(...)`, backticks, process substitutions, `if`/`for`/`while`/`case`
bodies and function bodies, and returns each simple command's argv with quoting removed
(`\\rm`, `'rm'`, `r\\m` all read `rm`), plus every redirection target (`>`, `>>`, `&>`, `>|`).

Launchers are unwrapped to the command they run: `env -i rm`, `command rm`, `sudo rm`,
`nohup`, `nice`, `timeout 5 rm`, `xargs rm`, `find -exec rm`, `/bin/rm`, and `sh -c 'rm x'`
(the string is parsed again). `find -delete` counts as `rm`.

What cannot be known without running the shell (a parse error, `eval "$X"`, a command named
by an expansion, `sh -c "$CMD"`) is listed in `unparseable`: the gate asks for it.
"""

from __future__ import annotations

import codecs
import posixpath
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from valarmind_tui.safety.shell.launchers import (
    JOINING_RUNNERS,
    MULTI_VERB,
    SHELLS,
    STRING_RUNNERS,
    shell_script,
    skip_global_options,
    unwrap,
)

Word = str | None
"""A word's static value; None when it holds an expansion (`$X`, `$(...)`, `*` stays static)."""

MAX_DEPTH = 8
WRITE_REDIRECTS = frozenset({">", ">>", "&>", "&>>", ">|", "<>"})


@dataclass(frozen=True)
class SimpleCommand:
    """One command the shell would run, launchers unwrapped."""

    argv: tuple[Word, ...]
    """Words after unquoting; argv[0] is the program's base name (`/usr/bin/touch` → `touch`)."""
    text: str
    """The source text of the whole simple command, as written."""
    via: tuple[str, ...] = ()
    """The launchers that were unwrapped (`sudo`, `env`, `sh -c`...)."""

    @property
    def name(self) -> str:
        return (self.argv[0] or "") if self.argv else ""

    def forms(self) -> list[tuple[Word, ...]]:
        """The argv, and for multi-verb tools also without their global options
        (`git -C . push` → `git push`), so a deny rule meets both."""
        if self.name not in MULTI_VERB:
            return [self.argv]
        rest = skip_global_options(self.name, list(self.argv[1:]))
        return [self.argv] if len(rest) == len(self.argv) - 1 else [self.argv, (self.name, *rest)]

    def intent(self) -> str:
        """The verb, plus the sub-verb for multi-verb tools: `git push`, `rm`, `touch`."""
        words = [self.name]
        if self.name in MULTI_VERB:
            rest = skip_global_options(self.name, list(self.argv[1:]))
            if rest and rest[0] is not None:
                words.append(rest[0])
        return " ".join(words)


@dataclass
class ParsedCommand:
    """Everything `parse_command` found in one command string."""

    source: str
    commands: list[SimpleCommand] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    """Redirection targets that write (`> f`, `>> f`, `&> f`, `>| f`)."""
    unparseable: list[str] = field(default_factory=list)
    """Why parts of the command cannot be known statically (empty when all is known)."""

    @property
    def parseable(self) -> bool:
        return not self.unparseable


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter_language_pack  # heavy: only when a command is parsed

    return tree_sitter_language_pack.get_parser("bash")


def parse_command(source: str) -> ParsedCommand:
    """Split `source` into its simple commands, write targets and unparseable parts."""
    parsed = ParsedCommand(source)
    _parse_into(source, parsed, depth=0, via=())
    return parsed


def _parse_into(source: str, out: ParsedCommand, *, depth: int, via: tuple[str, ...]) -> None:
    if depth > MAX_DEPTH:
        out.unparseable.append("commands nested too deeply")
        return
    if "\x00" in source:
        out.unparseable.append("a NUL byte in the command")
        return
    try:
        tree = _parser().parse(source.encode("utf-8", "surrogateescape"))
    except Exception as exc:  # noqa: BLE001 - any parser failure means "ask"
        out.unparseable.append(f"the shell parser failed ({exc})")
        return
    root = tree.root_node
    if root.has_error:
        out.unparseable.append("the command has a shell syntax error")
    _Walker(out, depth, via).walk(root)


class _Walker:
    def __init__(self, out: ParsedCommand, depth: int, via: tuple[str, ...]) -> None:
        self.out = out
        self.depth = depth
        self.via = via

    def walk(self, node: Any) -> None:
        kind = node.type
        if kind == "command":
            self.command(node)
        elif kind in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
            self.redirect(node)
        elif kind == "ERROR":
            self.out.unparseable.append("the command has a shell syntax error")
            self.children(node)
        elif kind in ("heredoc_body", "string", "concatenation", "expansion",
                      "simple_expansion", "arithmetic_expansion", "array"):
            self.substitutions(node)
        else:
            self.children(node)

    def children(self, node: Any) -> None:
        for child in node.children:
            self.walk(child)

    def substitutions(self, node: Any) -> None:
        """Commands run by `$(...)`, backticks and `<(...)` inside a word."""
        for child in node.children:
            if child.type in ("command_substitution", "process_substitution"):
                self.children(child)
            else:
                self.substitutions(child)

    def redirect(self, node: Any) -> None:
        operator, target = "", None
        for child in node.children:
            if child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                self.redirect(child)
            elif child.type in ("command", "pipeline", "list", "redirected_statement"):
                self.walk(child)
            elif not child.is_named and child.type not in ("<<", "<<-", "<<<"):
                operator = operator or child.type
            elif child.type not in ("file_descriptor", "heredoc_start", "heredoc_end"):
                if child.type != "heredoc_body" and target is None:
                    target = child
                self.substitutions(child)
        if node.type != "file_redirect" or operator not in WRITE_REDIRECTS and operator != ">&":
            return
        if target is None:
            return
        value = word_value(target)
        if operator == ">&" and (value is None or value.isdigit() or value == "-"):
            if value is None:
                self.out.unparseable.append(f"a redirection to {target.text.decode()!r}")
            return
        if value is None:
            self.out.unparseable.append(
                f"a redirection to {_text(target)!r}, which is known only when it runs")
        else:
            self.out.writes.append(value)

    def command(self, node: Any) -> None:
        words: list[Word] = []
        for child in node.children:
            if child.type == "command_name":
                for part in child.children:
                    words.append(word_value(part))
                    self.substitutions_of(part)
            elif child.type in ("variable_assignment",):
                self.substitutions_of(child)
            elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                self.redirect(child)
            elif child.is_named:
                words.append(word_value(child))
                self.substitutions_of(child)
        if words:
            self.simple(words, _text(node), self.via)

    def substitutions_of(self, node: Any) -> None:
        if node.type in ("command_substitution", "process_substitution"):
            self.children(node)
        else:
            self.substitutions(node)

    def simple(self, words: list[Word], text: str, via: tuple[str, ...]) -> None:
        """Record one simple command, unwrapping launchers (recursively)."""
        for _ in range(MAX_DEPTH):
            if not words:
                return
            name = words[0]
            if name is None:
                self.out.unparseable.append(f"the command name in {text!r} is an expansion")
                return
            name = posixpath.basename(name) or name
            words = [name, *words[1:]]
            if name == "eval":
                self.eval(words[1:], text, via)
                return
            if name in SHELLS:
                script = shell_script(words[1:])
                if script is not None:
                    if script is False:
                        self.out.unparseable.append(
                            f"{name} -c runs a string known only when it runs ({text!r})")
                        return
                    self.out.commands.append(SimpleCommand(tuple(words), text, via))
                    _parse_into(str(script), self.out, depth=self.depth + 1,
                                via=(*via, f"{name} -c"))
                    return
                if not any(w is None or not w.startswith("-") for w in words[1:]):
                    self.out.unparseable.append(f"{name} reads its commands from stdin")
                    return
            if name in STRING_RUNNERS or name in JOINING_RUNNERS:
                self.out.commands.append(SimpleCommand(tuple(words), text, via))
                self.runner(name, words[1:], text, via)
                return
            if name == "find":
                self.find(words, text, via)
            inner = unwrap(name, words[1:])
            if inner is None:
                self.out.commands.append(SimpleCommand(tuple(words), text, via))
                return
            if name == "env" and "-S" in words[1:] or name == "env" and "--split-string" in words:
                self.out.unparseable.append(f"env -S splits a string into a command ({text!r})")
            via = (*via, name)
            if not inner:
                # `command -v x`, `env` alone, `xargs` with no command (runs echo): harmless.
                self.out.commands.append(SimpleCommand(tuple(words), text, via[:-1]))
                return
            words = inner
        self.out.unparseable.append(f"too many nested launchers in {text!r}")

    def eval(self, args: list[Word], text: str, via: tuple[str, ...]) -> None:
        if any(a is None for a in args):
            self.out.unparseable.append(f"eval runs a string known only when it runs ({text!r})")
            return
        self.out.commands.append(SimpleCommand(("eval", *args), text, via))
        _parse_into(" ".join(str(a) for a in args), self.out, depth=self.depth + 1,
                    via=(*via, "eval"))

    def runner(self, name: str, args: list[Word], text: str, via: tuple[str, ...]) -> None:
        """`su -c STR`, `flock F -c STR`, `watch CMD...`: the command line is parsed again."""
        if name in JOINING_RUNNERS:
            words, i = [], 0
            while i < len(args) and args[i] is not None and str(args[i]).startswith("-"):
                i += 2 if args[i] in ("-n", "--interval") else 1
            words = args[i:]
            script: Word = None if any(a is None for a in words) else " ".join(map(str, words))
        else:
            at = next((i for i, a in enumerate(args) if a in ("-c", "--command")), None)
            if at is None:
                return
            script = args[at + 1] if at + 1 < len(args) else ""
        if script is None:
            self.out.unparseable.append(f"{name} runs a string known only when it runs ({text!r})")
        elif script:
            _parse_into(script, self.out, depth=self.depth + 1, via=(*via, name))

    def find(self, words: list[Word], text: str, via: tuple[str, ...]) -> None:
        """`find -exec CMD {} ;` and `-execdir`/`-ok`/`-okdir` run CMD; `-delete` removes."""
        i = 1
        while i < len(words):
            word = words[i]
            if word in ("-exec", "-execdir", "-ok", "-okdir"):
                end = i + 1
                while end < len(words) and words[end] not in (";", "+"):
                    end += 1
                if end > i + 1:
                    self.simple(list(words[i + 1:end]), text, (*via, "find " + str(word)))
                i = end
            elif word == "-delete":
                self.out.commands.append(SimpleCommand(("rm", *words[1:2]), text,
                                                       (*via, "find -delete")))
            i += 1


def word_value(node: Any) -> Word:
    """The static value of a word node after quote removal; None if it holds an expansion."""
    kind = node.type
    if kind == "word":
        return _unescape(_text(node))
    if kind == "number":
        return _text(node)
    if kind == "raw_string":
        return _text(node)[1:-1]
    if kind == "ansi_c_string":
        body = _text(node)[2:-1]
        try:
            return codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape")
        except (UnicodeDecodeError, ValueError):
            return None
    if kind in ("string", "translated_string"):
        parts: list[str] = []
        for child in node.children:
            if child.type in ('"', "$"):
                continue
            if child.type == "string_content":
                parts.append(_unescape_double(_text(child)))
            else:
                return None
        return "".join(parts)
    if kind == "concatenation":
        values = [word_value(c) for c in node.children]
        return None if any(v is None for v in values) else "".join(str(v) for v in values)
    return None


def _text(node: Any) -> str:
    return bytes(node.text or b"").decode("utf-8", "surrogateescape")


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _unescape_double(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def command_intents(parsed: ParsedCommand) -> list[str]:
    """The intents of a parsed command: each simple command's verb (`git push`, `rm`)."""
    intents = [c.intent() for c in parsed.commands if c.name not in ("true", ":", "false")]
    if parsed.unparseable:
        intents.append("<unparseable command>")
    return list(dict.fromkeys(intents))


def global_options(cmd: SimpleCommand) -> list[Word]:
    """The options before a multi-verb tool's sub-verb (`git -c k=v push` → `-c`, `k=v`)."""
    rest = skip_global_options(cmd.name, list(cmd.argv[1:]))
    return list(cmd.argv[1:len(cmd.argv) - len(rest)])
