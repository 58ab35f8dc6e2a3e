"""The tools a round counts by what they do: the ones that run a shell command (a round's ``bash_runs``) and the ones
that write files (its ``changes_not_derived``), docs/session-flow.md; docs/adapters/kiro.md, Changes and shell runs.

A tool step carries only its tool's name, as its runtime wrote it, and the same name means different things to
different runtimes (Kiro's ``write`` writes a file; a LangChain tool named ``write`` may do anything). So each adapter
owns its runtime's vocabulary (:attr:`~asz_core.plugins.adapter.Adapter.tool_roles`, ``{dialect: {name: role}}``) and
a step is counted by the vocabulary of the dialect its call was landed in: the ``dialect`` of the header of the landed
file holding the call's record (:class:`ToolRoles`). A dialect no adapter gives a vocabulary for, or a file whose
header does not read, counts by origin-digest §4's rule: a tool named ``Bash`` is a shell run (:data:`DEFAULT_ROLES`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

__all__ = ["DEFAULT_ROLES", "SHELL", "FILE_WRITE", "SHELL_TOOLS", "ToolRoles", "file_dialect", "shell_runs", "tool_roles"]

#: The roles a vocabulary gives a tool name.
SHELL, FILE_WRITE = "shell", "file_write"
#: The vocabulary of a dialect no adapter declares one for: origin-digest §4 counts ``bash_runs`` as the ``tool`` and
#: ``agent.call`` nodes named ``Bash``.
DEFAULT_ROLES: Mapping[str, str] = {"Bash": SHELL}
#: The tools whose input the readers draw as a shell command (the page and the exports, :mod:`asz_core.view.placing`):
#: Claude Code's ``Bash``, Kiro's ``shell`` (CLI 2.x), ``run_command`` (CLI 3.x), ``execute_bash`` (CLI 1.x) and
#: ``execute_pwsh`` (Kiro IDE on Windows). A drawing rule only (an input with a ``command`` string); what a round
#: counts is :func:`tool_roles`.
SHELL_TOOLS = frozenset({"Bash", "shell", "run_command", "execute_bash", "execute_pwsh"})

_ROLES: dict[str, Mapping[str, str]] = {}
_DIALECTS: dict[str, str] = {}


def tool_roles(dialect: str) -> Mapping[str, str]:
    """``{tool name: role}`` of ``dialect``: the ``tool_roles`` the installed adapter speaking it declares for it
    (loaded through :func:`asz_core.plugins.manager.adapter_for_dialect` on the first question, kept per process),
    else :data:`DEFAULT_ROLES` (no adapter, none declared, or ``dialect`` '')."""
    got = _ROLES.get(dialect)
    if got is None:
        got = DEFAULT_ROLES
        if dialect:
            from ..plugins.manager import adapter_for_dialect

            adapter = adapter_for_dialect(dialect)
            declared = getattr(adapter, "tool_roles", None) if adapter is not None else None
            mine = declared.get(dialect) if isinstance(declared, Mapping) else None
            if isinstance(mine, Mapping):
                got = {k: v for k, v in mine.items() if isinstance(k, str) and v in (SHELL, FILE_WRITE)}
        _ROLES[dialect] = got
    return got


def file_dialect(path: str | Path) -> str:
    """The ``dialect`` of a landed file's header (``.sd`` or gzip ``.sk``), '' when it does not read; read once per
    path and process (a landed file is written once)."""
    key = str(path)
    got = _DIALECTS.get(key)
    if got is None:
        from ..sessiondata.reader import landed_header

        try:
            got = landed_header(path).dialect
        except (OSError, ValueError, EOFError):
            got = ""
        _DIALECTS[key] = got
    return got


class ToolRoles:
    """The role of a tool step in one session, by its name and the seq of the landed file holding its call:
    ``role(name, seq)`` is ``"shell"``, ``"file_write"`` or ''; ``of(seq)`` the vocabulary of that file's dialect;
    ``named(role)`` the names any of the session's files gives that role, and ``uniform`` whether every file has the
    same vocabulary (then a name decides alone). ``files`` are the session index's files (``seq``, ``path`` under
    ``session_dir``); with no ``session_dir`` (an index built in memory) every file counts as of no known dialect
    (:data:`DEFAULT_ROLES`)."""

    def __init__(self, session_dir: Path | None, files: Iterable[Any]):
        self._paths = {f.seq: f.path for f in files} if session_dir is not None else {}
        self._dir = session_dir
        self.by_seq: dict[int | None, Mapping[str, str]] = {None: DEFAULT_ROLES}
        vocabularies = {id(m): m for m in map(self.of, list(self._paths))} or {id(DEFAULT_ROLES): DEFAULT_ROLES}
        self.uniform = len(vocabularies) == 1
        self._named = {r: frozenset(k for m in vocabularies.values() for k, v in m.items() if v == r) for r in (SHELL, FILE_WRITE)}

    def of(self, seq: int | None) -> Mapping[str, str]:
        got = self.by_seq.get(seq)
        if got is None:
            path = self._paths.get(seq)
            got = self.by_seq[seq] = tool_roles(file_dialect(self._dir / path) if path and self._dir else "")
        return got

    def role(self, name: str, seq: int | None) -> str:
        return self.of(seq).get(name, "")

    def named(self, role: str) -> frozenset[str]:
        return self._named.get(role, frozenset())


_CALLS = ("tool", "agent.call")


def _seq(n: Any) -> int | None:
    ref = n.ref or (n.refs[0] if n.refs else None)
    return ref.seq if ref is not None else None


def shell_runs(nodes: Iterable[Any], roles: ToolRoles | None = None) -> int:
    """How many of ``nodes`` (:class:`~asz_core.flow.model.Node`) are a ``tool`` or ``agent.call`` step whose tool is
    a shell run in the vocabulary of the file its call landed in (``roles``, :class:`ToolRoles`; default
    :data:`DEFAULT_ROLES` for every node): a round's ``bash_runs``."""
    names = roles.named(SHELL) if roles is not None else frozenset(k for k, v in DEFAULT_ROLES.items() if v == SHELL)
    hits = [n for n in nodes if n.kind in _CALLS and n.attrs.get("name") in names]
    if roles is None or roles.uniform:
        return len(hits)
    return sum(1 for n in hits if roles.role(n.attrs.get("name"), _seq(n)) == SHELL)
