"""The argument parser of the fast-path commands: plain lists, no argparse.

The per-turn commands start in a few tens of milliseconds, and argparse (with
gettext and the help formatter it builds) costs several of them. This parser
knows positionals, ``--flag`` switches and ``--option VALUE`` /
``--option=VALUE``; anything else (``-h``, an unknown or abbreviated option, a
missing argument, a value that does not convert) raises :class:`Unhandled`, and
typer then parses the command line so usage errors and help read as usual.

Free text that merely starts with a dash (a markdown list item ``- [ ] ship
it``, a rule ``---``, ``-5``) is a positional argument, not an option: only
``--name[=value]`` and ``-X`` (one letter) look like options
(:func:`looks_like_option`). The typer app applies the same rule
(:mod:`agent_doc.cli.commands._group`), so both parsers read every line alike.
"""

from __future__ import annotations

from collections.abc import Callable

from agent_doc._runtime.record import Record

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any


class Unhandled(Exception):
    """These arguments are not for the fast path; typer takes over."""


class Spec(Record):
    """The shape of one command line."""

    __slots__ = ("positionals", "optional", "flags", "options")

    def __init__(
        self,
        positionals: tuple[str, ...] = (),
        optional: tuple[str, ...] = (),
        flags: tuple[str, ...] = (),
        options: dict[str, tuple[Callable[[str], Any], Any]] | None = None,
    ) -> None:
        self.positionals = positionals
        """Required positional arguments, in order."""
        self.optional = optional
        """Positionals that may follow the required ones (default ``None``)."""
        self.flags = flags
        """``--switch`` names (without the dashes), ``False`` unless given."""
        self.options = options
        """``--name VALUE`` options: name → (conversion, default)."""


_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_NAME_CHARS = _LETTERS | frozenset("0123456789-")


def looks_like_option(arg: str) -> bool:
    """Whether ``arg`` is read as an option: ``--name[=value]`` or ``-X``.

    ``--`` itself (the end of options) is not; neither is text such as
    ``- [ ] ship it``, ``---`` or ``-5``, which is a positional argument.
    """
    if arg.startswith("--"):
        name = arg[2:].partition("=")[0]
        return bool(name) and name[0] in _LETTERS and set(name) <= _NAME_CHARS
    return len(arg) == 2 and arg[0] == "-" and arg[1] in _LETTERS


def _dest(name: str) -> str:
    return name.replace("-", "_")


def parse(args: list[str], spec: Spec) -> dict[str, Any]:
    """The values of ``args`` by name (``--force-disk`` is ``force_disk``)."""
    options = spec.options or {}
    values: dict[str, Any] = {_dest(f): False for f in spec.flags}
    values.update({_dest(n): default for n, (_, default) in options.items()})
    values.update({_dest(n): None for n in spec.optional})
    positional: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            positional.extend(rest)
            break
        if not looks_like_option(arg):
            positional.append(arg)
            continue
        name, has_value, value = arg[2:].partition("=")
        if not arg.startswith("--"):
            raise Unhandled(arg)
        if name in spec.flags and not has_value:
            values[_dest(name)] = True
        elif name in options:
            if not has_value:
                following = next(rest, None)
                if following is None:
                    raise Unhandled(f"{arg} needs a value")
                value = following
            try:
                values[_dest(name)] = options[name][0](value)
            except ValueError as exc:
                raise Unhandled(str(exc)) from None
        else:
            raise Unhandled(arg)
    names = spec.positionals + spec.optional
    if not len(spec.positionals) <= len(positional) <= len(names):
        raise Unhandled("wrong number of arguments")
    values.update(zip(names, positional, strict=False))
    return values
