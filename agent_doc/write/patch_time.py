"""The time a component patch is stamped with, read where the write happens.

The document layer reads no clock (``docs/architecture.md``):
:func:`agent_doc.document.apply.apply_component_patch` stamps a component
with ``timestamp = true`` with the ``now`` its caller gives, and every caller
(the ``patch`` command, a patch of a live buffer, a room's patch) asks here.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

    from agent_doc.document.component_config import ComponentConfig


def patch_time(configs: Mapping[str, ComponentConfig], name: str) -> datetime | None:
    """Now (UTC) when the component ``name`` stamps its entries, else ``None``
    (``datetime`` is imported only then: 3 ms a per-turn patch rarely needs)."""
    config = configs.get(name)
    if config is None or not config.timestamp:
        return None
    from datetime import datetime
    from datetime import timezone

    return datetime.now(timezone.utc)
