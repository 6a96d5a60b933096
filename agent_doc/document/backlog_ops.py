"""The operations on a backlog's items, by id (see :mod:`.backlog`).

``add`` (at the top), ``done``, ``gate``, ``ungate``, ``edit`` (the text; id
and state kept), ``reorder`` (the ids given first, in that order) and
``clear`` (the done items, or with ``all`` every item). There is no
operation that replaces the list whole. Each is idempotent: applied twice it
changes nothing the second time (an ``add`` of an item already there, by id
or by text, returns its id). The states move by one fixed matrix
(:func:`next_state`). Functions of text only.
"""

from __future__ import annotations

from agent_doc._runtime.record import Record
from agent_doc.document.backlog import DONE
from agent_doc.document.backlog import GATED
from agent_doc.document.backlog import ITEM_COMPONENTS
from agent_doc.document.backlog import OPEN
from agent_doc.document.backlog import STATES
from agent_doc.document.backlog import Item
from agent_doc.document.backlog import join_items
from agent_doc.document.backlog import new_id
from agent_doc.document.backlog import parse_item_line
from agent_doc.document.backlog import render_line
from agent_doc.document.backlog import split_items
from agent_doc.document.backlog import valid_id
from agent_doc.document.backlog import with_line
from agent_doc.document.components import find_component
from agent_doc.document.components import parse_components
from agent_doc.document.components import replace_content
from agent_doc.document.patch_blocks import parse_patch_blocks
from agent_doc.errors import ComponentNotFound
from agent_doc.errors import PatchError

OPS = ("add", "done", "gate", "ungate", "edit", "reorder", "clear")
TRANSITIONS = {
    "done": {OPEN: DONE, GATED: DONE, DONE: DONE},
    "gate": {OPEN: GATED, GATED: GATED},
    "ungate": {GATED: OPEN},
}
"""op → {from state: to state}; a state missing from a row is refused."""


def next_state(op: str, state: str) -> str:
    """The state ``op`` moves an item in ``state`` to (:class:`PatchError`
    when the matrix refuses it)."""
    found = TRANSITIONS[op].get(state)
    if found is None:
        raise PatchError(f"cannot {op} an item that is {STATES[state]}")
    return found


class BacklogOp(Record):
    """One operation: ``kind`` (one of :data:`OPS`) and its arguments."""

    __slots__ = ("kind", "id", "text", "ids", "all")

    def __init__(
        self,
        kind: str,
        id: str | None = None,
        text: str | None = None,
        ids: tuple[str, ...] = (),
        all: bool = False,
    ) -> None:
        self.kind = kind
        self.id = id
        """The item (add: its custom id, optional)."""
        self.text = text
        """add, edit: the item's text (add: ``id=NAME text`` names the id)."""
        self.ids = ids
        """reorder: the ids to put first, in order."""
        self.all = all
        """clear: every item, not only the done ones."""


class OpResult(Record):
    """What one operation did: the new content, the item's id, whether it changed."""

    __slots__ = ("content", "id", "changed")

    def __init__(self, content: str, id: str | None, changed: bool) -> None:
        self.content = content
        self.id = id
        self.changed = changed


def _one_line(text: str | None) -> str:
    found = (text or "").strip()
    if not found or "\n" in found or "\r" in found:
        raise PatchError("an item's text is one non-empty line")
    return found


def _find(items: list[Item], item_id: str | None) -> Item:
    for item in items:
        if item.id == item_id:
            return item
    raise PatchError(f"no item [#{item_id}]")


def _add(content: str, op: BacklogOp) -> OpResult:
    head, items = split_items(content)
    text = _one_line(op.text)
    item_id = op.id
    # "text", "id=NAME text" or a whole item line ("- [ ] [#NAME] text")
    parsed = parse_item_line(
        text if text.startswith(("- ", "* ", "+ ")) else f"- {text}"
    )
    if parsed is not None:
        text = _one_line(parsed[2])
        if item_id is None:
            item_id = parsed[1]
    if item_id is not None and not valid_id(item_id):
        raise PatchError(f"invalid id {item_id!r}: 1-32 letters, digits, _ or -")
    for item in items:
        if item_id is not None and item.id == item_id:
            if item.text != text:
                raise PatchError(f"[#{item_id}] is already another item: {item.text}")
            return OpResult(content, item_id, False)
        if item_id is None and item.id and item.text == text and item.state != DONE:
            return OpResult(content, item.id, False)
    if item_id is None:
        item_id = new_id(text, {i.id for i in items if i.id is not None})
    line = render_line(OPEN, item_id, text) + "\n"
    if not head and not items:
        head = ["\n"]  # markers on one line: the list starts on its own line
    elif head and not head[-1].endswith("\n"):
        head[-1] += "\n"
    new = Item(OPEN, item_id, text, [line], 0, True)
    return OpResult(join_items(head, [new, *items], False), item_id, True)


def _move(content: str, op: BacklogOp) -> OpResult:
    head, items = split_items(content)
    item = _find(items, op.id)
    state = next_state(op.kind, item.state or OPEN)
    if state == item.state and item.clean:
        return OpResult(content, op.id, False)
    changed = with_line(item, state, item.id or "", item.text)
    items = [changed if i is item else i for i in items]
    return OpResult(join_items(head, items, not content.endswith("\n")), op.id, True)


def _edit(content: str, op: BacklogOp) -> OpResult:
    head, items = split_items(content)
    item = _find(items, op.id)
    text = _one_line(op.text)
    if text == item.text and item.clean:
        return OpResult(content, op.id, False)
    changed = with_line(item, item.state or OPEN, item.id or "", text)
    items = [changed if i is item else i for i in items]
    return OpResult(join_items(head, items, not content.endswith("\n")), op.id, True)


def _reorder(content: str, op: BacklogOp) -> OpResult:
    head, items = split_items(content)
    if len(set(op.ids)) != len(op.ids) or not op.ids:
        raise PatchError("reorder takes each id once")
    first = [_find(items, item_id) for item_id in op.ids]
    order = first + [item for item in items if item not in first]
    if [id(i) for i in order] == [id(i) for i in items]:
        return OpResult(content, None, False)
    return OpResult(join_items(head, order, not content.endswith("\n")), None, True)


def _clear(content: str, op: BacklogOp) -> OpResult:
    head, items = split_items(content)
    kept = [] if op.all else [item for item in items if item.state != DONE]
    if len(kept) == len(items):
        return OpResult(content, None, False)
    return OpResult(join_items(head, kept, not content.endswith("\n")), None, True)


def apply_op(content: str, op: BacklogOp) -> OpResult:
    """``op`` applied to a component's content (:class:`PatchError` when it
    cannot be: an unknown id, a refused transition, an empty text)."""
    if op.kind == "add":
        return _add(content, op)
    if op.kind in TRANSITIONS:
        return _move(content, op)
    if op.kind == "edit":
        return _edit(content, op)
    if op.kind == "reorder":
        return _reorder(content, op)
    if op.kind == "clear":
        return _clear(content, op)
    raise PatchError(f"unknown backlog operation {op.kind!r} ({', '.join(OPS)})")


def apply_to_document(doc: str, op: BacklogOp, component: str = "backlog") -> OpResult:
    """``op`` applied to ``component`` of the document ``doc``; the result
    holds the whole new document."""
    if component not in ITEM_COMPONENTS:
        raise PatchError(
            f"{component!r} is not a list of items ({', '.join(ITEM_COMPONENTS)})"
        )
    found = find_component(parse_components(doc), component)
    if found is None:
        raise ComponentNotFound(
            f"no agent:{component} component: add <!-- agent:{component} --> and "
            f"<!-- /agent:{component} --> lines where the list goes"
        )
    result = apply_op(found.content(doc), op)
    if not result.changed:
        return OpResult(doc, result.id, False)
    return OpResult(replace_content(doc, found, result.content), result.id, True)


WHOLE_REPLACE_REFUSED = (
    "the {name} is changed item by item, never replaced whole: use "
    "agent-doc backlog add|done|gate|ungate|edit|reorder|clear FILE … "
    "(or write's --backlog-* options); a patch:{name} block would drop what "
    "the person added meanwhile and lose the ids"
)


def refuse_whole_replace(name: str) -> None:
    """Raise :class:`PatchError` when ``name`` is a list of items (a patch
    replacing it whole is refused, with the reason)."""
    if name in ITEM_COMPONENTS:
        raise PatchError(WHOLE_REPLACE_REFUSED.format(name=name))


def refuse_item_list_blocks(response: str) -> None:
    """Refuse (:class:`PatchError`) a response with a patch block for a list
    of items, before anything of it is saved or written."""
    if not any(f":{name}" in response for name in ITEM_COMPONENTS):
        return
    for block in parse_patch_blocks(response)[0]:
        refuse_whole_replace(block.name)
