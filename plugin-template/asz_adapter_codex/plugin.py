"""The ``codex`` adapter: discovery of Codex CLI rollout files, conversion, glossary and flag rules.

Registered through the ``asz`` entry-point group (see pyproject.toml). Imports
only the public API of ``asz_core``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable, Mapping

from asz_core import Adapter, Capabilities, Discovery, FlagRule, Record, Source, Term, VOCABULARY, hookimpl, json_loads

from . import dialect
from .glossary import FLAG_RULES, TERMS

_ROLLOUT = re.compile(r"^rollout-.*?([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$")


class CodexAdapter(Adapter):
    """Codex CLI sessions: one rollout file per session, landed as one ``main`` transcript stream."""

    name = "codex"
    version = "0.1.0"
    dialects = (dialect.DIALECT,)
    kinds = ("transcript",)
    capabilities = Capabilities(tool_calls=True, reasoning=True, usage=True)
    description = "Codex CLI rollout files (~/.codex/sessions)"
    #: Each line converts from its own bytes alone, so ``asz collect`` may land sessions in several processes.
    sessions_in_parallel = True

    def default_source_root(self, env: Mapping[str, str] | None = None) -> Path:
        """``$CODEX_HOME/sessions``, else ``~/.codex/sessions``."""
        env = os.environ if env is None else env
        home = env.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
        return Path(home) / "sessions"

    def discover(self, source_root: Path, *, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
        """Every ``rollout-*.jsonl`` below ``source_root``; the session id comes from the file name."""
        out = Discovery()
        root = Path(source_root)
        if not root.is_dir():
            out.errors.append((str(root), "source root is not a directory"))
            return out
        for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: out.errors.append((str(e.filename), e.strerror or str(e)))):
            dirnames.sort()
            for fn in sorted(filenames):
                path = Path(dirpath) / fn
                m = _ROLLOUT.match(fn)
                if not m:
                    out.skipped.append((str(path), "not a rollout file"))
                    continue
                rel = path.relative_to(root).as_posix()
                out.sources.append(Source(session=m.group(1), kind="transcript", path=path, src=rel, dialect=dialect.DIALECT, stream="main"))
        return out

    def convert_line(self, source: Source, line: bytes, ord: int, off: int) -> Record:
        """One rollout line to one record (see :func:`asz_adapter_codex.dialect.convert_line`)."""
        return dialect.convert_line(source, line, ord, off)

    def convert_document(self, source: Source, data: bytes) -> Record:
        """Codex has no snapshot documents; a whole document is treated as line 1."""
        return dialect.convert_line(source, data, 1, 0)

    def glossary(self, dialect_name: str) -> list[Term]:
        """The ``codex/1`` glossary: one term per name in ``asz_core.VOCABULARY``."""
        if dialect_name != dialect.DIALECT:
            raise KeyError(dialect_name)
        return [TERMS.get(name) or Term(name, note="Codex has no word for this; asz derives it") for name in VOCABULARY]

    def flag_map(self, dialect_name: str) -> list[FlagRule]:
        """Each flag ``codex/1`` sets and the rule over rollout fields that sets it."""
        if dialect_name != dialect.DIALECT:
            raise KeyError(dialect_name)
        return list(FLAG_RULES)


@hookimpl
def asz_register_adapters():
    """Register :class:`CodexAdapter`."""
    return [CodexAdapter]
