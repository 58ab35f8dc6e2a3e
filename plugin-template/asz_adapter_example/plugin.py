"""The ``example-codex`` adapter and its registration (entry point ``example-codex``), the same shape as asz's own.

The class declares; the modules beside it work: :mod:`.discover` finds the
rollout files, :mod:`.convert` turns one line into one record,
:mod:`.glossary` and :mod:`.flags` say what Codex calls each model name and
which field sets each flag. Imports only the public API of ``asz_core``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping

from asz_core import Adapter, Capabilities, Discovery, Record, Source, hookimpl

from .convert import DIALECT, convert_line
from .discover import discover
from .flags import FLAG_RULES
from .glossary import GLOSSARY

__all__ = ["ExampleCodexAdapter", "asz_register_adapters"]

#: What each earlier version did not keep or read as this one does (``landed_without``), by version.
_LANDED_WITHOUT = {
    "0.1.0": "it put no model on a turn's model calls and no working directory on any record (trial 46b F5)",
    "0.2.0": "it landed a line starting with a UTF-8 byte order mark whole as unknown (trial 49c F5)",
}


class ExampleCodexAdapter(Adapter):
    """Codex CLI sessions: one rollout file per session, landed as one ``main`` transcript stream (dialect
    ``example-codex/1``). Stateless: every method answers from its arguments and the source files."""

    name = "example-codex"
    version = "0.3.0"
    dialects = (DIALECT,)
    kinds = ("transcript",)
    capabilities = Capabilities(tool_calls=True, reasoning=True, usage=True, media=True)
    #: The environment variables default_source_root reads, for documentation: asz reads none of them itself
    #: (docs/adapters.md, The contract).
    source_env = ("CODEX_HOME", "HOME")
    description = "Codex CLI rollout files (~/.codex/sessions), the asz adapter template"

    glossaries = {DIALECT: GLOSSARY}
    flag_rules = {DIALECT: FLAG_RULES}
    #: Each line converts from its own bytes alone, so ``asz collect`` may land sessions in several processes.
    sessions_in_parallel = True

    def default_source_root(self, env: Mapping[str, str] | None = None) -> Path:
        """``$CODEX_HOME/sessions``, else ``~/.codex/sessions``. Never raises."""
        env = os.environ if env is None else env
        home = env.get("CODEX_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".codex")
        return Path(home) / "sessions"

    # has_default_sessions is left to asz's default: True when default_source_root holds anything (one scandir
    # entry). Plain ``asz collect`` then collects this adapter beside its default list and a missing
    # ``~/.claude/projects`` is a note, not an error (trial 39b F5). Override it when the folder can hold other things.

    def discover(self, source_root: Path, *, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
        """Every ``rollout-*.jsonl`` below ``source_root`` (see :func:`asz_adapter_example.discover.discover`)."""
        return discover(Path(source_root), include=include, exclude=exclude)

    def convert_line(self, source: Source, line: bytes, ord: int, off: int) -> Record:
        """One rollout line to one record (see :func:`asz_adapter_example.convert.convert_line`). Never raises."""
        return convert_line(source, line, ord, off)

    def convert_document(self, source: Source, data: bytes) -> Record:
        """Codex writes no snapshot documents: a whole document is read as line 1. Never raises."""
        return convert_line(source, data, 1, 0)

    def failed_word(self, dialect: str) -> str:
        """What makes a result ``failed`` (convert.py): a ``metadata.exit_code`` other than 0 in the call's output.
        ``asz usage tools`` says it under its table. Never raises."""
        return "a metadata.exit_code other than 0 in its output"

    def landed_without(self, dialect: str, adapter: str) -> list[str]:
        """What a file landed by an earlier version of this adapter (``adapter``: its header's ``name/version``) did not
        keep or read as this version does, one phrase each; ``asz conversation`` adds them to its ``landed by …, an
        earlier version than the installed …`` line. Never raises."""
        return [_LANDED_WITHOUT[v] for v in _LANDED_WITHOUT if adapter == f"{self.name}/{v}"]


@hookimpl
def asz_register_adapters() -> list[type[Adapter]]:
    """The adapters this plugin provides: ``[ExampleCodexAdapter]``."""
    return [ExampleCodexAdapter]
