"""Command-line entry: arguments → Settings → the chosen face.

Kept light: `valarmind --version` imports nothing heavy (no litellm, textual or mcp).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from valarmind_tui.cli.parser import bare_task, build_parser
from valarmind_tui.core import startup_gc
from valarmind_tui.core.visible_text import visible

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INCOMPLETE = 0, 1, 2, 3


def _trust_command(root: Path, args: argparse.Namespace) -> int:
    """`valarmind trust`: trust the folder's configuration as it is now (saying what changed
    since it was last trusted); `--show` only shows that; `--revoke` takes trust back."""
    from valarmind_tui.settings.trust.decision import CHANGED, decide, remember, repository_config

    decision = decide(root)
    if decision.how == CHANGED and decision.changes is not None:
        print(visible(f"{root}: its configuration {CHANGED} ({decision.changes.names()}):\n"
                      f"{decision.changes.diff}"))
    elif args.show:
        print(f"{root} is {'trusted' if decision.trusted else 'not trusted'} "
              f"({decision.how}); nothing changed to show.")
    if args.show:
        return EXIT_OK
    path = remember(root, not args.revoke)
    present = ", ".join(repository_config(root)) or "none yet"
    verb = "no longer trusted" if args.revoke else "trusted as it is now"
    print(visible(f"{root} is {verb} (saved in {path}). Its configuration: {present}."))
    return EXIT_OK


def _setup_command(root: Path, args: argparse.Namespace) -> int:
    """`valarmind setup`: setup/scan's one screen, or (`--json`) its rows."""
    from valarmind_tui.agents.registry import builtin_agent_names
    from valarmind_tui.commands.setup import taken_command_names
    from valarmind_tui.setup.scan import report

    print(report(root, Path.home(), args.trust_project, args.json, cwd=Path.cwd(),
                 builtin_commands=taken_command_names(),
                 builtin_agents=builtin_agent_names()))
    return EXIT_OK


def _settings(args: argparse.Namespace, trusted: bool | None = None) -> Any:
    """Settings for this run; the project's own config only when it is trusted (`trusted`
    when a face asked the person, else the remembered decision or --trust-project)."""
    from valarmind_tui.settings.config import load_settings
    from valarmind_tui.settings.trust.decision import decide

    flags: dict[str, Any] = {"model": args.model, "api_base": args.api_base}
    if getattr(args, "permission_mode", None):
        flags["permission_mode"] = args.permission_mode
    if getattr(args, "allow_project_commands", None):
        flags["allow_project_commands"] = True
    if getattr(args, "allow_sampling", None):
        flags["allow_sampling"] = True
    root = _root(args)
    if trusted is None:
        trusted = decide(root, flag=getattr(args, "trust_project", False)).trusted
    return with_budget_flags(load_settings(root, trusted=trusted, **flags), args)


BUDGET_FLAGS = {"max_cost_usd": "prompt_cost_usd", "max_tokens": "prompt_tokens",
                "max_turns": "prompt_turns", "max_time": "prompt_time_s"}
"""Each `--max-*` flag and the `[budget]` key it sets for this run."""


def with_budget_flags(settings: Any, args: argparse.Namespace) -> Any:
    """The settings with the `--max-*` flags as the prompt's budget (they win over config)."""
    given = {key: getattr(args, flag) for flag, key in BUDGET_FLAGS.items()
             if getattr(args, flag, None) is not None}
    if not given:
        return settings
    budget = settings.budget.model_copy(update=given)
    return settings.model_copy(update={"budget": budget})


def _root(args: argparse.Namespace) -> Path:
    """`--cwd` as given; else the git root above here (a run started in `src/` works on the
    whole repository, as Claude Code and Codex do)."""
    from valarmind_tui.setup.context_files import project_root_for

    return Path(args.cwd).resolve() if args.cwd is not None else project_root_for(Path.cwd())


SCREEN_UPDATES_PER_S = 120
"""At most this many screen updates a second (Textual's default is 60). A keystroke's echo
waits for the next update slot: up to 17 ms at 60, 8 at 120. A streamed answer's own frames
stay at 10-20 a second (ui/widgets/streaming_markdown.py). In tmux at 1,000 tokens/s, three
launches each: echo p95 52-64 -> 46-58 ms, the UI's CPU unchanged (40-46% of a core)."""


def _full_screen(root: Path, args: argparse.Namespace) -> int:
    """The TUI: its first frame at once, the model process forked, then the app, which asks
    about trust when it must and then loads the settings; litellm is imported in the model
    process once the session asks for it."""
    from valarmind_tui.faces.tui import skeleton as first_frame

    skeleton = first_frame.paint()
    os.environ.setdefault("TEXTUAL_FPS", str(SCREEN_UPDATES_PER_S))  # read when Textual loads
    try:
        from valarmind_tui.providers.process import client as model_process

        # litellm is imported once the session asks, not on the core the face starts on; at once
        # when a prompt from the command line is sent as soon as the session is ready
        model_process.start(import_at_once=args.first_prompt is not None)
        from valarmind_tui.faces.tui.launch import run_app

        return run_app(lambda trusted=None: _settings(args, trusted), root, args, skeleton)
    finally:
        if skeleton is not None:
            skeleton.abandon()


def goal_line(task: str, args: argparse.Namespace) -> str:
    """In a terminal, `valarmind "TASK" --goal` starts the TUI with `/goal [--check CMD] TASK`."""
    import shlex

    words = [w for check in args.checks or () for w in ("--check", check)]
    words += ["--approve-weakening"] * args.approve_weakening
    return " ".join(["/goal", *(shlex.quote(w) for w in words), "--", task])


def _use_model_daemon(settings: Any, args: argparse.Namespace) -> None:
    """`-p` and `run`: model calls through the user's warm model daemon (docs/speed.md),
    started now when none answers, unless turned off."""
    if getattr(args, "no_daemon", False) or not settings.model_daemon:
        return
    from valarmind_tui.providers.daemon.link import enable

    enable(settings.model_daemon_idle_s, settings.resolve_model(None))


def entry() -> NoReturn:
    """The `valarmind` command: main(), then the exit without the interpreter's teardown (in
    `valarmind -p` 0.5 s after its last line went into freeing litellm's modules)."""
    from valarmind_tui.cli.runserver.client import run_through_server
    from valarmind_tui.core.fast_exit import exit_without_teardown

    served = run_through_server(sys.argv[1:])  # a warm run server's fork (docs/speed.md)
    exit_without_teardown(main() if served is None else served)


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    parser = build_parser()
    argv, task = bare_task(parser, sys.argv[1:] if argv is None else list(argv))
    args = parser.parse_args(argv)
    from valarmind_tui.core.errors import ConfigError, UsageError, ValarMindError

    if args.continue_last and args.resume is None:
        args.resume = "last"
    args.first_prompt = None
    if task is not None:
        if args.prompt is not None:
            parser.error("give the task once: as -p TASK or as the first argument")
        if args.plain or sys.stdout.isatty():
            args.first_prompt = goal_line(task, args) if args.goal else task
        else:
            args.prompt = task
    if args.command == "goal":
        args.prompt, args.goal = " ".join(args.text), True
    elif args.goal and args.prompt is None and args.first_prompt is None:
        parser.error("--goal runs a task headless: give it with -p TASK (or use valarmind goal)")
    if args.prompt is not None and args.command in (None, "run", "goal") and not args.best_of:
        startup_gc.pause()  # until the session is built (core/startup_gc.py)
    try:
        from valarmind_tui.core.left_writes import sweep

        sweep()  # the half-written files of a run that was killed (core/left_writes.py)
        root = _root(args)
        if args.command == "worktrees" and args.action == "open":  # = valarmind --worktree NAME
            args.command, args.worktree = None, args.name or ""
        if getattr(args, "worktree", None) is not None and not args.best_of:
            from valarmind_tui.cli.worktrees import enter_worktree

            root = enter_worktree(root, args)
        if args.command is None and args.prompt is None and not args.plain and sys.stdout.isatty():
            return _full_screen(root, args)
        if args.command == "trust":
            return _trust_command(root, args)
        if args.command == "setup":
            return _setup_command(root, args)
        if args.command == "cost":  # the store only: no settings, model or session
            from valarmind_tui.cli.cost_command import run_cost_command

            return run_cost_command(str(root), args)
        if args.command is None and args.prompt is None:
            from valarmind_tui.faces.repl.plain import run_repl

            return run_repl(lambda trusted=None: _settings(args, trusted), root, args)
        if args.command == "acp":  # each ACP session loads its own settings for the client's cwd
            from valarmind_tui.faces.acp.server import serve as serve_acp

            return serve_acp(args)
        if args.command == "map":  # needs no settings, model or session: a warm map stays fast
            from valarmind_tui.repomap.show import print_map

            return print_map(root, args.tokens, args.json, shown=visible)
        settings = _settings(args)
        if args.command == "worktrees":
            from valarmind_tui.cli.worktrees import worktrees_command

            return worktrees_command(root, args, settings)
        if args.command is None and args.best_of:
            from valarmind_tui.cli.worktrees import best_of_command

            return best_of_command(root, args, settings)
        if args.command in (None, "run"):
            _use_model_daemon(settings, args)
            from valarmind_tui.safety.sandbox.wrap import start_probe

            start_probe(settings.sandbox)  # bubblewrap's check runs while the session imports
        if args.command == "run":
            from valarmind_tui.faces.headless import run_agent

            return run_agent(settings, root, args)
        if args.command == "mcp":
            from valarmind_tui.faces.mcp_server.serve import serve

            return serve(settings, root, args)
        if args.command in ("undo", "redo", "rewind", "sessions"):
            from valarmind_tui.faces.headless import run_session_command

            return run_session_command(settings, root, args)
        if args.command == "review":
            from valarmind_tui.faces.headless import run_review_command

            return run_review_command(settings, root, args)
        if args.command == "commit":
            from valarmind_tui.faces.headless import run_commit_command

            return run_commit_command(settings, root, args)
        if args.command == "init":
            from valarmind_tui.faces.headless import run_subcommand

            return run_subcommand(settings, root, args)
        from valarmind_tui.faces.headless import run_prompt

        return run_prompt(settings, root, args)
    except (ConfigError, UsageError) as exc:
        print(visible(f"valarmind: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except ValarMindError as exc:  # a provider or tool failure: said plainly, no traceback
        print(visible(f"valarmind: {exc}"), file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130
    finally:
        startup_gc.resume()
