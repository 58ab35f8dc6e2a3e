"""The dialects a chain was assembled without an adapter for, kept in its ``conversation.state`` (trial 49c F1).

An adapter's answers shape the assembly of its dialect's records (its tool vocabulary, ``read_today``), and the
chain's :func:`~asz_core.flow.chain.assembly_mark` keys the assembly on every installed adapter's code. But the mark
alone cannot tell a reinstall: an adapter uninstalled, ``asz parse`` (its sessions assembled without it: 91 shell runs
counted as 2), then installed again gives back the mark the chain names in ``assembled_also``, which the rule of
"once per asz and landing" (:func:`~asz_core.flow.chain.assembled_marks`) took as assembled already, so the chain kept
the adapter-less drawing until ``asz parse ID --anew``. So the state also names the dialects of the session's landed
files that no installed adapter spoke at that assembly (:data:`UNREAD`), and a chain naming one an installed adapter
now speaks is assembled again (:func:`read_now`), whatever its marks say. Only that way round: an asz without the
adapter does not assemble again a chain an asz with it drew (its mark is then in ``assembled_also``), so two
installations alternating on one root write no round back and forth.
"""

from __future__ import annotations

import os
from typing import Mapping

__all__ = ["UNREAD", "unread_dialects", "read_now"]

#: The ``conversation.state`` key naming, comma-separated, the dialects of the session's landed files no installed
#: adapter spoke when the chain was last written (:func:`unread_dialects`); absent when every one had an adapter.
UNREAD = "unread_dialects"


def unread_dialects(session_dir: str | os.PathLike) -> list[str]:
    """The dialects of the landed files of ``session_dir`` (``.sd`` and skeletons, read from their headers:
    :func:`~asz_core.flow.tool_names.file_dialect`, read once per file and process) that no installed adapter speaks
    (:func:`~asz_core.plugins.manager.adapter_for_dialect`, ``ASZ_DISABLE_ADAPTERS`` heeded), sorted; a header that
    does not read names none. Never raises."""
    from ..plugins.manager import adapter_for_dialect
    from ..storage.layout import landed_files
    from .tool_names import file_dialect

    try:
        dialects = {file_dialect(path) for _, path in landed_files(session_dir, skeletons=True)}
    except OSError:
        return []
    return sorted(d for d in dialects if d and "," not in d and adapter_for_dialect(d) is None)


def read_now(state: Mapping[str, str]) -> list[str]:
    """The dialects a chain's ``conversation.state`` (a dict of :func:`~asz_core.storage.root.read_state`) names under
    :data:`UNREAD` that an installed adapter speaks now: the chain was drawn without the adapter and is to be
    assembled again. [] for a state naming none (no plugin is loaded then). Never raises for a plugin."""
    named = [d.strip() for d in state.get(UNREAD, "").split(",") if d.strip()]
    if not named:
        return []
    from ..plugins.manager import adapter_for_dialect

    return [d for d in named if adapter_for_dialect(d) is not None]
