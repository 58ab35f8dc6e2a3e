"""The ``langsmith-ingest`` adapter and its registration (entry point ``langsmith-ingest``; origin-digest §5.4).

Its source root is the *storage root* (the receiver stages into
``<root>/_ingest/langsmith/inbox``). Discovery materialises staged arrivals
into one append source per session and stream
(``_ingest/langsmith/sessions/<session>/<stream>.jsonl``, and one
``provider_body`` source per session for the llm runs' inputs and outputs; see
:mod:`asz_adapters_langchain.inbox`) and lists those; the generic collector
lands them through :meth:`LangsmithIngest.convert_line`. So ``asz collect
--adapter langsmith-ingest --root R`` needs ``--source R`` too, unless
``storage.root`` in asz.yaml (or ``$ASZ_LANGSMITH_ROOT``) already names R.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping

from asz_core import Adapter, Capabilities, Discovery, Record, Source, hookimpl

from .dialect import DIALECT, convert_body, convert_line
from .glossary import FLAG_RULES, GLOSSARY
from .inbox import INGEST, WAIT_PASSES, Settings, materialise, waiting_arrivals
from .settings import SETTINGS, option

__all__ = ["LangsmithIngest", "asz_register_adapters", "ingest_dir"]

NAME = "langsmith-ingest"


def ingest_dir(source_root: str | os.PathLike) -> Path:
    """``<source_root>/_ingest/langsmith``; a path already ending in ``_ingest/langsmith`` is kept as it is."""
    p = Path(source_root)
    if p.name == INGEST.name and p.parent.name == INGEST.parent.name:
        return p
    return p / INGEST


def _settings() -> Settings:
    """thread_keys and scope of the ``langsmith-ingest`` entry of ./asz.yaml (defaults when absent or unreadable)."""
    try:
        from asz_core.config import load_config

        return _from_options(load_config(settings={NAME: SETTINGS}).adapter(NAME).options)
    except Exception:
        return Settings()


def _from_options(options) -> Settings:
    return Settings(option(options, "thread_keys"), option(options, "scope"), option(options, "provider_bodies"))


class LangsmithIngest(Adapter):
    """LangChain / LangGraph traffic received as LangSmith runs, landed as ``transcript`` streams (dialect ``langsmith/1``).

    Not stateless like the file adapters: discovery reads and writes
    ``<root>/_ingest/langsmith`` (inbox, state, materialised sources); run it
    under the root's collector lock (``asz collect`` does).
    """

    name = NAME
    # 0.2.0: each dropped member's why is its own (reasons.py; trial 23a F10); 0.3.0: a run member the dialect does not
    # know lands verbatim as an unknown part (dialect.KNOWN_MEMBERS; F9)
    version = "0.3.0"
    dialects = (DIALECT,)
    kinds = ("transcript", "provider_body")
    capabilities = Capabilities(tool_calls=True, reasoning=True, usage=True, children=True)
    source_env = ("ASZ_LANGSMITH_ROOT",)
    description = "LangChain / LangGraph runs received as LangSmith traffic (asz ingest langsmith)"
    source_in_storage = True  # its source is the storage root's _ingest/langsmith
    glossaries = {DIALECT: GLOSSARY}
    flag_rules = {DIALECT: FLAG_RULES}

    def __init__(self, settings: Settings | None = None):
        self.settings = settings

    def configure(self, entry) -> None:
        """``thread_keys``, ``scope`` and ``provider_bodies`` from the configuration the command read (``--config`` included)."""
        self.settings = _from_options(entry.options)

    def start_receiver(self, storage: Path, entry) -> str | None:
        """Start the LangSmith receiver in a daemon thread (``listen``, ``token`` of ``entry``); returns its address.

        Used by ``asz server`` and watch-mode ``asz collect`` when
        ``langsmith-ingest`` is enabled: arrivals are staged under ``storage``
        and landed by each collect pass. Raises OSError when the address cannot be bound.
        """
        from .ingest_cmd import start_receiver

        return start_receiver(storage, entry)

    def staged_folders(self, source_root: Path) -> list[Path]:
        """``[<storage root>/_ingest/langsmith/inbox]``: where the receiver stages each accepted request, so that
        ``asz server`` runs a pass soon after a trace arrives (trial 23a F14)."""
        return [ingest_dir(source_root) / "inbox"]

    def default_source_root(self, env: Mapping[str, str] | None = None) -> Path:
        """``$ASZ_LANGSMITH_ROOT``, else ``storage.root`` of ./asz.yaml (default ``./data``): the storage root."""
        env = os.environ if env is None else env
        if env.get("ASZ_LANGSMITH_ROOT"):
            from asz_core.config import user_path

            return user_path(Path(env["ASZ_LANGSMITH_ROOT"]))
        try:
            from asz_core.config import load_config

            return Path(load_config().root)
        except Exception:
            return Path("data")

    def discover(self, source_root: Path, *, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
        """Materialise staged arrivals, then list one ``transcript`` source per session and stream.

        ``source_root`` is the storage root (or its ``_ingest/langsmith``).
        ``include``/``exclude`` are not used (conversations are named by the
        app, not by a path). An unwritable ingest directory is an error of
        the discovery, never an exception.
        """
        out = Discovery()
        ingest = ingest_dir(source_root)
        base = ingest.parent.parent
        try:
            found = materialise(ingest, self.settings or _settings(), out)
        except OSError as exc:
            out.errors.append((str(ingest), f"cannot materialise staged arrivals: {exc.strerror or exc}"))
            return out
        for session, kind, stream, path in found:
            try:
                src = path.relative_to(base).as_posix()
            except ValueError:
                src = path.as_posix()
            out.sources.append(Source(session=session, kind=kind, path=path, src=src, dialect=DIALECT, stream=stream))
        out.pending = [(f"run {w.get('id', '?')}", f"a {w.get('op', 'post')} waiting for its parent run (pass {w.get('tries', 0)} of {WAIT_PASSES})")
                       for w in waiting_arrivals(ingest)]
        return out

    def convert_line(self, source: Source, line: bytes, ord: int, off: int) -> Record:
        """One materialised line → one record: an arrival (:func:`~asz_adapters_langchain.dialect.convert_line`) or,
        from a ``provider_body`` source, a body (:func:`~asz_adapters_langchain.dialect.convert_body`); never raises."""
        if source.kind == "provider_body":
            return convert_body(source, line, ord, off)
        return convert_line(source, line, ord, off)

    def convert_document(self, source: Source, data: bytes) -> Record:
        """No snapshot documents: a whole document is read as line 1."""
        return convert_line(source, data, 1, 0)


@hookimpl
def asz_register_adapters() -> list[type[Adapter]]:
    """The adapters this plugin provides: ``[LangsmithIngest]``."""
    return [LangsmithIngest]


@hookimpl
def asz_register_settings() -> dict:
    """The keys of the ``langsmith-ingest`` entry of asz.yaml (:mod:`asz_adapters_langchain.settings`)."""
    return {NAME: SETTINGS}


@hookimpl
def asz_register_commands(cli) -> None:
    """``asz ingest langsmith`` (:mod:`asz_adapters_langchain.ingest_cmd`)."""
    from .ingest_cmd import register

    register(cli)
