"""The tools a round counts by name: the ones that write files and the ones that run a shell command (a round's
``changes_not_derived`` and ``bash_runs``, docs/view.md; docs/adapters/kiro.md, Changes and shell runs).

A tool step carries only its tool's name, as its runtime wrote it, and a round is assembled without its dialect, so
each list holds every runtime's own names for the tool; a name is here only when a real record or the runtime's
public source shows the tool. Standard library only.
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["EDITING_TOOLS", "SHELL_TOOLS", "shell_runs"]

#: The tools that write files, by the names their runtimes give them: Claude Code's ``Edit``, ``MultiEdit``, ``Write``
#: and ``NotebookEdit`` (whose successful results its dialect derives a changes/1 record from,
#: asz_adapters_claude.changes); Kiro's ``write`` (CLI 2.x, the runtime's ``FileWrite``), ``create`` (CLI 3.x and
#: IDE, a call the runtime marks ``kind: edit``) and ``fs_write`` (CLI 1.x), for whose
#: writes its dialect derives a changes/1 record where the record holds the contents (asz_adapters_kiro.changes;
#: docs/adapters/kiro.md, Changes and shell runs).
EDITING_TOOLS = frozenset(("Edit", "MultiEdit", "Write", "NotebookEdit", "write", "create", "fs_write"))
#: The tools whose input is a shell command: Claude Code's ``Bash``, Kiro's ``shell`` (CLI 2.x), ``run_command``
#: (CLI 3.x and IDE) and ``execute_bash`` (CLI 1.x). A round's ``bash_runs`` counts their calls; the page and the
#: exports read their input as a command (:mod:`asz_core.view.placing`).
SHELL_TOOLS = frozenset({"Bash", "shell", "run_command", "execute_bash"})


def shell_runs(nodes: Iterable[Any]) -> int:
    """How many of ``nodes`` (:class:`~asz_core.flow.model.Node`) are a ``tool`` or ``agent.call`` step of a
    :data:`SHELL_TOOLS` tool: a round's ``bash_runs``."""
    return sum(1 for n in nodes if n.kind in ("tool", "agent.call") and n.attrs.get("name") in SHELL_TOOLS)
