"""The command group of every typer app in the CLI: ``-h`` and free-text rules.

Two things every ``agent-doc`` command shares, set in one place:

- ``-h`` is ``--help`` (:data:`CONTEXT_SETTINGS`, on the app and each sub-app);
- an argument that starts with a dash but is not an option (``- [ ] ship it``,
  ``---``, ``-5``: see :func:`~agent_doc.cli.commands._argv.looks_like_option`)
  is a positional argument. Click would read ``- [ ] ship it`` as a cluster of
  short options and refuse it ("No such option: -"); :class:`AgentDocGroup`
  moves such arguments behind ``--`` before the command parses its line, so
  typer and the fast parser (:mod:`agent_doc.cli.commands._argv`) agree;
- help shows arguments and option values as upper-case metavars (``FILE``,
  ``--restore TEXT``), the form a person reads in any other tool's help, not
  typer's ``{file}`` and ``<str>`` (:func:`use_upper_case_metavars`);
- a surplus argument is a usage error (exit 2) before any FILE is checked.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument
from typer.core import TyperGroup
from typer.core import TyperOption

from agent_doc.cli._click import Command
from agent_doc.cli._click import Context
from agent_doc.cli.commands._argv import looks_like_option

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}
"""The ``context_settings`` of the app and every sub-app."""


def _options_with_values(command: Command) -> set[str]:
    """The option names of ``command`` that take a value (``--origin VALUE``)."""
    names: set[str] = set()
    for param in command.params:
        if isinstance(param, TyperOption) and not param.is_flag and not param.count:
            names.update(param.opts)
    return names


def free_text_behind_separator(args: list[str], command: Command) -> list[str]:
    """``args`` with dash-led free text moved behind ``--`` (order kept).

    Options (with their values) come first, then ``--``, then every positional
    argument in its original order; ``args`` without such free text are
    returned unchanged, so ordinary command lines parse exactly as before.
    """
    takes_value = _options_with_values(command)
    options: list[str] = []
    positionals: list[str] = []
    free_text = False
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            positionals.extend(rest)
            break
        if looks_like_option(arg):
            options.append(arg)
            if "=" not in arg and arg in takes_value:
                following = next(rest, None)
                if following is not None:
                    options.append(following)
            continue
        free_text = free_text or arg.startswith("-")
        positionals.append(arg)
    if not free_text:
        return args
    return [*options, "--", *positionals]


class AgentDocArgument(TyperArgument):
    """A typer argument shown as ``FILE`` (``[FILE]`` when optional) in help,
    that refuses extra arguments before its callback checks a file."""

    def handle_parse_result(
        self, ctx: Context, opts: Any, args: list[str]
    ) -> tuple[Any, list[str]]:
        """Refuse a surplus argument as a usage error (exit 2) first: ``diff a
        b`` with ``a`` missing is a wrong command line, not a missing file."""
        if args and not ctx.allow_extra_args and not ctx.resilient_parsing:
            ctx.fail(f"Got unexpected extra argument(s) ({' '.join(args)})")
        return super().handle_parse_result(ctx, opts, args)

    def _shown(self) -> str:
        name = self.metavar or (self.name or "arg").upper()
        return name + ("..." if self.nargs != 1 else "")

    def get_usage_pieces(self, ctx: Context) -> list[str]:  # noqa: ARG002
        """The argument on the usage line: ``FILE``, ``[FILE]`` or ``FILE...``."""
        return [self._shown() if self.required else f"[{self._shown()}]"]

    def get_help_record(self, ctx: Context) -> tuple[str, str] | None:
        """The argument's row under "Arguments": its metavar and its help."""
        record = super().get_help_record(ctx)
        return None if record is None else (self._shown(), record[1])


_VALUE_NAMES = {
    "<str>": "TEXT",
    "<int>": "INTEGER",
    "<float>": "NUMBER",
    "<path>": "PATH",
}
"""typer's (0.29) value labels and the names click always showed for them."""


class UpperCaseOption(TyperOption):
    """A typer option whose value is shown as ``TEXT`` (not ``<str>``) in help."""

    def get_help_record(self, ctx: Context) -> tuple[str, str] | None:
        """The option's row under "Options", its value named in upper case."""
        record = super().get_help_record(ctx)
        if record is None:
            return None
        names = record[0]
        for label, shown in _VALUE_NAMES.items():
            names = names.replace(label, shown)
        return names, record[1]


def use_upper_case_metavars(command: Command) -> None:
    """Show ``command``'s arguments and option values as ``FILE``/``TEXT``."""
    for param in command.params:  # the classes only add behaviour, no state
        if type(param) is TyperArgument:
            param.__class__ = AgentDocArgument
        elif type(param) is TyperOption:
            param.__class__ = UpperCaseOption


class AgentDocGroup(TyperGroup):
    """A typer group whose commands take free text that starts with a dash."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        use_upper_case_metavars(self)
        for command in self.commands.values():
            use_upper_case_metavars(command)

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        """The command named by ``args[0]`` and its arguments, free text kept."""
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None and not isinstance(command, TyperGroup):
            rest = free_text_behind_separator(rest, command)
        return name, command, rest
