"""The items of a backlog: task-list lines with a short visible id.

An ``agent:backlog`` (or ``agent:icebox``) component holds one item per
top-level bullet::

    - [ ] [#a3f2] open: to do
    - [/] [#b71c] gated: done in code, waiting for a release
    - [x] [#0c9e] done: removed at the next preflight

Lines indented under an item (and blank lines) belong to it and move with
it. Lines before the first bullet are kept as they are. Reading is tolerant:
a bullet without a box or id is an item still to be filled in (``tidy``
does it), ``id=NAME text`` names its own id, and when the same box or id
token appears twice in a row — two sides that filled in the same bullet at
once, merged — the first one counts. Functions of text only.
"""

from __future__ import annotations

from agent_doc._runtime.digest import sha1_hex
from agent_doc._runtime.record import Record

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Collection

OPEN = " "
GATED = "/"
DONE = "x"
STATES = {OPEN: "open", GATED: "gated", DONE: "done"}
ITEM_COMPONENTS = ("backlog", "icebox")
"""The components whose content is a list of items with ids."""
ID_MAX = 32
_ID_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
)
_BULLETS = ("- ", "* ", "+ ")


def valid_id(name: str) -> bool:
    """Whether ``name`` can be an item id: 1–32 letters, digits, ``_`` or ``-``."""
    return 0 < len(name) <= ID_MAX and set(name) <= _ID_CHARS


class Item(Record):
    """One item: its box, id and text, and the lines it spans."""

    __slots__ = ("state", "id", "text", "lines", "first", "clean")

    def __init__(
        self,
        state: str | None,
        id: str | None,
        text: str,
        lines: list[str],
        first: int,
        clean: bool,
    ) -> None:
        self.state = state
        """``" "``, ``"/"``, ``"x"`` or ``None`` (no box yet)."""
        self.id = id
        """The id, or ``None`` (none yet)."""
        self.text = text
        """The text after the box and id, without the line break."""
        self.lines = lines
        """Its lines as written, the item line first (line breaks kept)."""
        self.first = first
        """0-based index of the item line in the component's content."""
        self.clean = clean
        """True when the item line is exactly as :func:`render_line` writes it."""

    def line(self) -> str:
        """The item line as it should read (box, id, text)."""
        return render_line(self.state or OPEN, self.id or "", self.text)


def render_line(state: str, item_id: str, text: str) -> str:
    """An item line: ``- [s] [#id] text`` (without the line break)."""
    return (
        f"- [{state}] [#{item_id}] {text}".rstrip()
        if text
        else f"- [{state}] [#{item_id}]"
    )


def _token(rest: str) -> tuple[str, str, str] | None:
    """The box or id token opening ``rest``: ``(kind, value, after)``."""
    boxed = len(rest) >= 3 and rest[0] == "[" and rest[2] == "]"
    if boxed and rest[1] in " /xX" and (len(rest) == 3 or rest[3] == " "):
        return "box", rest[1].lower(), rest[4:]
    if rest.startswith("[#"):
        end = rest.find("]")
        if (
            end > 2
            and valid_id(rest[2:end])
            and (len(rest) == end + 1 or rest[end + 1] == " ")
        ):
            return "id", rest[2:end], rest[end + 2 :]
    return None


def parse_item_line(line: str) -> tuple[str | None, str | None, str] | None:
    """``(state, id, text)`` of a top-level bullet line, ``None`` for any other.

    Repeated tokens collapse, the first one kept; ``id=NAME`` at the start of
    the text gives the id when no ``[#id]`` does.
    """
    body = line.rstrip("\n")
    if not body.startswith(_BULLETS):
        return None
    rest = body[2:].lstrip(" ")
    state: str | None = None
    item_id: str | None = None
    while (found := _token(rest)) is not None:
        kind, value, rest = found
        if kind == "box" and state is None:
            state = value
        elif kind == "id" and item_id is None:
            item_id = value
        rest = rest.lstrip(" ")
    if item_id is None and rest.startswith("id="):
        name, _, after = rest[3:].partition(" ")
        if valid_id(name):
            item_id, rest = name, after.lstrip(" ")
    return state, item_id, rest.rstrip()


def stray_token(line: str) -> tuple[int, int] | None:
    """The span of a bracket after an item line's box and id that is neither
    (``- [?] text``, ``- [#no way] text``), ``None`` when there is none."""
    body = line.rstrip("\n")
    if not body.startswith(_BULLETS):
        return None
    rest = body[2:].lstrip(" ")
    while (found := _token(rest)) is not None:
        rest = found[2].lstrip(" ")
    close = rest.find("]")
    if not rest.startswith("[") or close < 0:
        return None
    start = len(body) - len(rest)
    return start, start + close + 1


def split_items(content: str) -> tuple[list[str], list[Item]]:
    """The lines before the first item, and the items, of a component's content."""
    head: list[str] = []
    items: list[Item] = []
    for index, line in enumerate(content.splitlines(keepends=True)):
        parsed = parse_item_line(line)
        if parsed is not None:
            state, item_id, text = parsed
            clean = state is not None and item_id is not None
            if clean:
                clean = line.rstrip("\n") == render_line(
                    state or OPEN, item_id or "", text
                )
            items.append(Item(state, item_id, text, [line], index, clean))
        elif items:
            items[-1].lines.append(line)
        else:
            head.append(line)
    return head, items


def join_items(head: list[str], items: list[Item], ends_open: bool) -> str:
    """The content holding ``head`` then ``items`` (each line ended; the last
    one without its break again when the content did not end with one)."""
    lines = list(head)
    for item in items:
        lines.extend(
            line if line.endswith("\n") else line + "\n" for line in item.lines
        )
    text = "".join(lines)
    return text[:-1] if ends_open and text.endswith("\n") else text


def new_id(text: str, taken: set[str], salt: str = "") -> str:
    """A fresh id for an item with ``text``: four hex digits of its digest,
    longer (up to twelve) while the shorter ones are taken."""
    for attempt in range(1000):
        digest = sha1_hex(f"{salt}{attempt or ''}\0{text.strip()}".encode())
        for size in range(4, 13):
            if digest[:size] not in taken:
                return digest[:size]
    raise AssertionError("no free id")  # pragma: no cover - 1000 digests taken


def with_line(item: Item, state: str, item_id: str, text: str) -> Item:
    """``item`` with its item line rewritten (its other lines kept)."""
    line = render_line(state, item_id, text)
    ending = "\n" if item.lines[0].endswith("\n") else ""
    return Item(
        state, item_id, text, [line + ending, *item.lines[1:]], item.first, True
    )


class Tidied(Record):
    """What :func:`tidy_items` did to a component's content."""

    __slots__ = ("content", "backfilled", "boxed", "reaped", "order", "open", "gated")

    def __init__(
        self,
        content: str,
        backfilled: list[str],
        boxed: list[str],
        reaped: list[str],
        order: list[str],
        open: int,
        gated: int,
    ) -> None:
        self.content = content
        self.backfilled = backfilled
        """Ids given to items that had none."""
        self.boxed = boxed
        """Ids of items that had no box and got ``[ ]``."""
        self.reaped = reaped
        """Ids of the done items removed."""
        self.order = order
        """The ids of the items left, in order."""
        self.open = open
        self.gated = gated


def tidy_items(content: str, also_remove: Collection[str] = ()) -> Tidied:
    """Give every item an id and a box and remove the done ones (and those
    whose id is in ``also_remove``: done in the document, for its snapshot).

    An id used twice (a copied line) is replaced on the later item; lines that
    are already in order are kept byte for byte.
    """
    head, items = split_items(content)
    taken = {item.id for item in items if item.id is not None}
    seen: set[str] = set()
    kept: list[Item] = []
    backfilled: list[str] = []
    boxed: list[str] = []
    reaped: list[str] = []
    changed = False
    for item in items:
        item_id = item.id
        if item_id is None or item_id in seen:
            item_id = new_id(item.text, taken | seen)
            backfilled.append(item_id)
        seen.add(item_id)
        if item.state == DONE or item_id in also_remove:
            reaped.append(item_id)
            changed = True
            continue
        if item.state is None:
            boxed.append(item_id)
        if not item.clean or item_id != item.id:
            item = with_line(item, item.state or OPEN, item_id, item.text)
            changed = True
        kept.append(item)
    text = join_items(head, kept, not content.endswith("\n")) if changed else content
    return Tidied(
        text,
        backfilled,
        boxed,
        reaped,
        [item.id or "" for item in kept],
        sum(item.state == OPEN for item in kept),
        sum(item.state == GATED for item in kept),
    )


def item_ids(content: str) -> list[str]:
    """The ids of the items in ``content``, in order (items without one skipped)."""
    return [item.id for item in split_items(content)[1] if item.id is not None]


def reordered(before: list[str], after: list[str]) -> bool:
    """True when the ids both lists hold are in another order in ``after``."""
    common = set(before) & set(after)
    return [i for i in before if i in common] != [i for i in after if i in common]
