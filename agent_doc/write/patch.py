"""``agent-doc patch``: one component replaced, appended or prepended.

Off the write path's module graph: a patch needs no disk merge, and the write
path no component hooks.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc._runtime.lazy import lazy_logger
from agent_doc._runtime.record import Record
from agent_doc.document.apply import apply_component_patch
from agent_doc.document.component_config import load_component_configs
from agent_doc.document.components import is_valid_name
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.errors import PatchError
from agent_doc.store.state import StateStore
from agent_doc.store.state import doc_lock
from agent_doc.store.state import project_root_for
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document
from agent_doc.write.component_hooks import run_post_patch
from agent_doc.write.component_hooks import run_pre_patch
from agent_doc.write.outcome import normalize_text
from agent_doc.write.patch_time import patch_time

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.document.component_config import ComponentConfig
    from agent_doc.write.outcome import Target
    from agent_doc.write.server_link import ServerLink

logger = lazy_logger(__name__)


class PatchOutcome(Record):
    """What :func:`patch_component` did."""

    __slots__ = ("path", "component", "text", "target", "changed")

    def __init__(
        self,
        path: Path,
        component: str,
        text: str,
        target: Target,
        changed: bool,
    ) -> None:
        self.path = path
        self.component = component
        self.text = text
        """The document (file or live buffer) after the patch."""
        self.target = target
        self.changed = changed


HOOKS_NOT_TRUSTED = "hooks not run: workspace not trusted (agentDoc.trustWorkspace)"
"""Logged when :func:`patch_component` skips hooks (``allow_hooks=False``)."""


def _note_skipped_hooks(config: ComponentConfig, name: str) -> None:
    skipped = [
        hook
        for hook, cmd in (
            ("pre_patch", config.pre_patch),
            ("post_patch", config.post_patch),
        )
        if cmd
    ]
    if skipped:
        logger.warning("%s: %s %s", name, "/".join(skipped), HOOKS_NOT_TRUSTED)


def patch_component(
    path: Path,
    name: str,
    content: str,
    force_disk: bool = False,
    *,
    link: ServerLink | None = None,
    mode: str | None = None,
    allow_hooks: bool = True,
) -> PatchOutcome:
    """Replace/append/prepend one component (``agent-doc patch``, spec §7.21).

    The ``pre_patch`` hook transforms ``content`` first; a server that has the
    document open applies the patch to its live buffer, otherwise the file is
    written under the document lock. The snapshot becomes the patched text and
    the ``post_patch`` hook is started (fire-and-forget).

    ``allow_hooks=False`` (a language server on an untrusted workspace) skips
    both hooks and logs a warning saying so: the content is patched as given.

    Raises
    ------
    PatchError
        Invalid component name, or a failing ``pre_patch`` hook.
    ComponentNotFound
        The document has no such component.
    DocumentError
        The document cannot be read or is malformed.
    """
    path = Path(path)
    if not is_valid_name(name):
        raise PatchError(f"invalid component name '{name}'")
    parse_frontmatter(read_document(path).text)  # refuse a malformed document
    root = project_root_for(path)
    configs = load_component_configs(root)
    config = configs.get(name)
    if config is not None and not allow_hooks:
        _note_skipped_hooks(config, name)
        config = None
    if config is not None and config.pre_patch:
        content = run_pre_patch(config.pre_patch, content, name, path)
    store = StateStore(root)
    now = patch_time(configs, name)
    handle = None if link is None or force_disk else link.find_owner(path)
    if handle is not None and link is not None:
        before = normalize_text(handle.text)
        apply_component_patch(  # validate
            before, name, content, configs, now=now, mode=mode
        )
        text = normalize_text(link.patch(handle, name, content, mode=mode))
        store.save_snapshot(path, text)
        outcome = PatchOutcome(path, name, text, "server", text != before)
    else:
        with doc_lock(path, root=root):
            current = read_document(path)
            text = apply_component_patch(
                current.text, name, content, configs, now=now, mode=mode
            )
            if text != current.text:
                write_document(path, current, text)
            store.save_snapshot(path, text)
        outcome = PatchOutcome(path, name, text, "disk", text != current.text)
    if config is not None and config.post_patch:
        run_post_patch(config.post_patch, name, path)
    return outcome
