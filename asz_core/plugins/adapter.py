"""The adapter contract: what every adapter, built-in or third-party, declares and does.

An adapter is a class registered through the ``asz`` entry-point group (see
:mod:`asz_core.plugins.manager`). It declares its name, contract version,
dialects, the file kinds it lands, its source defaults, its flag mapping and
its glossary (origin-digest §5, §6), and it does two things:

* :meth:`Adapter.discover` lists the sources of a source root, grouped by
  session (what a collect pass reads);
* :meth:`Adapter.convert_line` / :meth:`Adapter.convert_document` turn one
  source line or one whole document into one :class:`~asz_core.Record`
  (seed 000, Producing Session Data).

:class:`Adapter` is an abstract base class: :meth:`Adapter.default_source_root`,
:meth:`Adapter.discover`, :meth:`Adapter.convert_line` and
:meth:`Adapter.convert_document` are required (``abc.abstractmethod``), so a
class missing one cannot be instantiated and ``asz adapters list`` shows it
as a ``failed`` row naming the methods. Two methods have defaults that suit sources which are files:
:meth:`Adapter.read_document` (the bytes of a ``mode="document"`` source) and
:meth:`Adapter.source_exists` (whether a source discovery no longer lists is
gone). What the readers ask an adapter about the records it landed (titles,
prompt blocks, credits, turns, …) are the hooks of
:class:`~asz_core.plugins.reading_hooks.ReadingHooks`, a mixin of :class:`Adapter`.

The collector (:mod:`asz_core.collect`) owns cursors, cutting, landing and
locking, so an adapter never writes the storage root itself.
"""

from __future__ import annotations

import abc
import os
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Mapping, Sequence

import attrs

from ..sessiondata.model import Record
from ..sessiondata.vocabulary import (CLAIM_STATES, CONTENT_STATES, GLOSSARY_NAMES, QUALITIES, RELATION_TYPES, ROLES, STEP_KINDS,
                                      STREAM_ROLES, STRUCTURAL_KINDS)
from .reading_hooks import AddedCredits, ReadingHooks

__all__ = [
    "Term", "FlagRule", "undeclared_flag", "adapter_version", "Capabilities", "Source", "Discovery",
    "REFUSED_EVENTS", "os_error_text", "link_outside", "Adapter", "AddedCredits", "SOURCE_MODES", "VOCABULARY",
    "build_glossary", "RELATION_TYPES", "QUALITIES", "CLAIM_STATES", "CONTENT_STATES", "STREAM_ROLES", "ROLES",
    "STRUCTURAL_KINDS", "STEP_KINDS", "Setting", "BodyInfo"
]

#: Every model name a glossary must cover (origin-digest §4.5 and §6); defined in :mod:`asz_core.sessiondata.vocabulary`.
VOCABULARY: tuple[str, ...] = GLOSSARY_NAMES


#: The modes a :class:`Source` can have: a file of lines, a file that is one document, a document inside a file.
SOURCE_MODES = ("append", "snapshot", "document")


@attrs.frozen
class Term:
    """One glossary entry: the model name, the runtime's word for it, where it appears, a note.

    An empty ``native`` is a real answer (the runtime has no word; asz derives
    it) and then ``note`` must say so and ``where`` stays empty; a non-empty
    ``native`` must say ``where`` it appears (origin-digest §6).
    """

    unified: str
    native: str = ""
    where: str = ""
    note: str = ""


def build_glossary(named: Mapping[str, tuple[str, str, str]], derived: Mapping[str, str] | None = None, *, default_note: str) -> tuple[Term, ...]:
    """A complete glossary in :data:`VOCABULARY` order (origin-digest §6).

    ``named`` maps a model name to ``(native, where, note)``; every other
    vocabulary name gets an empty native name and the note ``derived[name]``,
    else ``default_note`` (what the runtime has no word for, and why).
    """
    derived = derived or {}
    out = []
    for name in VOCABULARY:
        if name in named:
            native, where, note = named[name]
            out.append(Term(unified=name, native=native, where=where, note=note))
        else:
            out.append(Term(unified=name, note=derived.get(name, default_note)))
    return tuple(out)


@attrs.frozen
class FlagRule:
    """A flag and the rule over source fields that sets it (seed 000, Flags)."""

    flag: str
    rule: str


def undeclared_flag(record: Record, declared: frozenset[str] | set[str], dialect: str) -> tuple[str, str] | None:
    """The first flag of ``record`` no rule of ``declared`` (the flags of ``dialect``'s :class:`FlagRule` list) sets, as
    ``(field, message)``: ``("flags[0]", "record ord 7 (id 'a2'): 'finished' has no flag rule in dialect goose/1 (its
    rules: external_input)")``; None when every flag has one. An adapter sets a flag only by a rule it declares (seed
    000, Flags; docs/adapters.md): ``asz collect`` refuses the line as it refuses a value outside the vocabulary (trial
    25a F7) and the conformance kit names the source line."""
    if not record.flags or declared.issuperset(record.flags):
        return None
    for i, flag in enumerate(record.flags):
        if flag not in declared:
            name = f"record ord {record.ord}" + (f" (id {record.id!r})" if record.id else "")
            return (f"flags[{i}]", f"{name}: {flag!r} has no flag rule in dialect {dialect} "
                                   f"(its rules: {', '.join(sorted(declared)) or 'none'})")
    return None


def adapter_version(adapter: str, name: str | None = None) -> tuple[int, ...] | None:
    """The version of a landed file header's ``adapter`` value (``name/version``, :attr:`Adapter.identity`) as
    integers, ``"kiro/0.4.0"`` -> ``(0, 4, 0)``; None when the version is not dotted integers (``0.3.0rc1``, ``''``)
    or when ``name`` is given and the header names another adapter. The one reading of a version that
    :meth:`Adapter.landed_without` answers by and ``asz conversation``'s ``landed by`` line orders by. Never raises."""
    got, _, version = adapter.partition("/")
    parts = version.split(".")
    if (name is not None and got != name) or not all(p.isascii() and p.isdigit() for p in parts):
        return None
    return tuple(int(p) for p in parts)


@attrs.frozen
class Capabilities:
    """What a dialect can carry; the conformance kit decides which checks apply from these, never from the name."""

    tool_calls: bool = False
    reasoning: bool = False
    usage: bool = False
    children: bool = False
    media: bool = False
    snapshots: bool = False


@attrs.define
class Source:
    """One source a pass reads.

    ``path`` is absolute; ``src`` is relative to the adapter's source root with
    forward slashes (it becomes the header's ``src``). ``mode`` is one of
    :data:`SOURCE_MODES`:

    * ``append``: a file that is a stream of lines (append cursor);
    * ``snapshot``: a file that is one document (snapshot cursor);
    * ``document``: one document that is not a file of its own, such as a row
      of a database (snapshot cursor). Its bytes come from
      :meth:`Adapter.read_document`, whether it still exists from
      :meth:`Adapter.source_exists`. ``path`` is the file that holds it and
      ``src`` is that file's ``src``, then ``#``, then what names the document
      inside it (``<file src>#<fragment>``, origin-digest §2.2 for the cursor).

    ``stream`` is ``main`` or an agent id; ``batch`` a workflow run id.
    """

    session: str
    kind: str
    path: Path
    src: str
    dialect: str
    stream: str = ""
    batch: str = ""
    mode: str = "append"


#: How a :class:`Discovery` ``skipped`` reason begins that names hook events an observer refused (the ``changes``
#: adapter: ``asz hook``'s ``log/plugin.log``): ``asz collect`` says each such entry as a ``note:``, not only counts it
#: (trial 27a F8).
REFUSED_EVENTS = "asz hook refused "
#: How the reason begins of a skipped entry naming the execution records ``asz hook`` could not write (a full disk:
#: trial 33b F5), told as :data:`REFUSED_EVENTS` is.
UNWRITTEN_EVENTS = "asz hook could not write "


@attrs.define
class Discovery:
    """What discovery found: sources, noise skipped (path, reason) and errors (path, message).

    ``conflicts`` lists (path, reason) of sources refused because another
    source already lands into their session's stream and kind (Claude Code: the
    same session file in two project folders); the collector tells each once
    per process as ``conflict: <path>: <reason>`` and counts it in
    ``conflicts=`` on every pass (origin-digest §5.1: refuse the second, count
    a conflict). An adapter may also hand over both sources of one stream
    (Claude Code does): the collector keeps the one the stream's cursor
    follows, else the first, and adds the others here
    (:func:`asz_core.collect.second_source.refuse_seconds`). ``pending`` lists (what, why) the adapter holds but does not hand over yet,
    such as received runs waiting for their parent; the collector counts them
    in ``pending=``, so ``asz collect --once`` exits 1 while anything waits.
    ``notes`` lists (path, message) the adapter says of what it reads that is no source and no problem of one (Claude
    Code: an observer hook in ``settings.json`` that would not start); a collect tells each once per process as
    ``note: <path>: <message>``, the same one from two adapters once (:meth:`asz_core.collect.report.Report.note_once`),
    not counted; ``asz sources`` lists each once (``--json``: ``notes``).
    """

    sources: list[Source] = attrs.Factory(list)
    skipped: list[tuple[str, str]] = attrs.Factory(list)
    errors: list[tuple[str, str]] = attrs.Factory(list)
    pending: list[tuple[str, str]] = attrs.Factory(list)
    conflicts: list[tuple[str, str]] = attrs.Factory(list)
    notes: list[tuple[str, str]] = attrs.Factory(list)

    def sessions(self) -> dict[str, list[Source]]:
        """Sources grouped by session id, in discovery order."""
        out: dict[str, list[Source]] = {}
        for s in self.sources:
            out.setdefault(s.session, []).append(s)
        return out


def os_error_text(exc: OSError, what: str = "file") -> str:
    """``exc`` as a plain message for a ``Discovery.errors`` entry or an ``error:`` line, without its class name.

    ``what`` names the thing that is missing (``file``, ``directory``): a
    missing one is ``no such <what>``; any other error is its system message
    with a lower-case first letter (``not a directory``, ``permission
    denied``). Never raises.
    """
    import errno

    if exc.errno == errno.ENOENT:
        return f"no such {what}"
    text = exc.strerror or str(exc) or "unreadable"
    return text[:1].lower() + text[1:]


def link_outside(entry: os.DirEntry | str | os.PathLike, real_roots: str | Sequence[str]) -> str:
    """The resolved target of ``entry`` when it is a symbolic link leading outside every one of ``real_roots``, else ''.

    ``real_roots`` are real paths (``os.path.realpath``) of the directories a
    link may lead into: the source root, for discovery. A link inside one of
    them, or an entry that is not a link, gives '' (follow it); a link out of
    all of them gives its target, for a ``Discovery.skipped`` reason. A
    ``DirEntry`` is asked without a ``stat``. Raises OSError only when the
    entry cannot be inspected.
    """
    path = entry.path if isinstance(entry, os.DirEntry) else os.fspath(entry)
    if not (entry.is_symlink() if isinstance(entry, os.DirEntry) else os.path.islink(path)):
        return ""
    target = os.path.realpath(path)
    for root in [real_roots] if isinstance(real_roots, str) else real_roots:
        if target == root or target.startswith(root.rstrip(os.sep) + os.sep):
            return ""
    return target


def discovery_failure(exc: Exception) -> str:
    """The message for an exception an adapter's ``discover`` raised: ``discovery failed: <why>``.

    An OSError is said plainly (:func:`os_error_text`: ``no such file or directory``); any
    other exception is an adapter bug and keeps its class name, which is what
    says what went wrong (``KeyError: 'x'``). Never raises.
    """
    why = os_error_text(exc, "file or directory") if isinstance(exc, OSError) else f"{type(exc).__name__}: {exc}"
    return f"discovery failed: {why}"


@attrs.frozen
class Setting:
    """One key an adapter reads from its own entry of ``asz.yaml`` (declared through ``asz_register_settings``).

    ``key`` is the name under ``adapters[]``; ``default`` the value when the
    entry does not give it; ``check`` takes the decoded YAML value and returns
    the value :meth:`Adapter.configure` sees in ``entry.options[key]``, or
    raises ValueError whose message says what is wrong (the configuration
    error then names the file and ``adapters[i].<key>``); ``help`` is one line
    for the documentation.
    """

    key: str
    default: Any
    check: Callable[[Any], Any]
    help: str = ""


@attrs.frozen
class BodyInfo:
    """What :meth:`Adapter.body_meta` reads from one provider-body file.

    ``meta`` is the :class:`asz_core.BodyMeta` (None when the file is not a
    whole body yet or not one at all), ``problem`` why not, ``value`` the decoded
    JSON when it decoded.
    """

    meta: Any
    problem: str = ""
    value: Any = None


class Adapter(ReadingHooks, abc.ABC):
    """Abstract base class of every adapter. Subclasses set the class attributes and implement the required methods.

    The hooks the readers call (:meth:`label_target`, :meth:`prompt_title`, :meth:`credits`, …) come from
    :class:`~asz_core.plugins.reading_hooks.ReadingHooks`; the ones the collector calls are here.

    Class attributes: ``name`` (configuration and entry-point name, e.g.
    ``claude-code-local``), ``version`` (contract version; the header's
    ``adapter`` is ``name/version``), ``dialects``, ``kinds`` (file kinds it
    lands), ``capabilities``, ``source_env`` (environment variables naming its
    source root, for documentation) and ``description``.
    """

    name: ClassVar[str] = ""
    version: ClassVar[str] = "0.1.0"
    dialects: ClassVar[tuple[str, ...]] = ()
    kinds: ClassVar[tuple[str, ...]] = ()
    capabilities: ClassVar[Capabilities] = Capabilities()
    description: ClassVar[str] = ""
    #: Glossary per dialect; the default :meth:`glossary` serves it.
    glossaries: ClassVar[Mapping[str, Sequence[Term]]] = {}
    #: Flag rules per dialect; the default :meth:`flag_map` serves them.
    flag_rules: ClassVar[Mapping[str, Sequence[FlagRule]]] = {}
    tool_roles: ClassVar[Mapping[str, Mapping[str, str]]] = {}  # {dialect: {tool: "shell"|"file_write"}}: flow/tool_names.py
    #: True when landing one session needs nothing this object learnt while landing another: ``convert_line``,
    #: ``convert_document``, ``read_document`` and ``source_exists`` answer from their arguments and the source
    #: files alone. ``asz collect --jobs N`` then lands sessions in N processes at once; otherwise, one by one.
    sessions_in_parallel: ClassVar[bool] = False
    #: Provider bodies (seed 000, Provider bodies): ``(request suffix, response suffix)`` of the body files of a flat
    #: directory. An adapter that declares them is collected by the provider pass
    #: (:func:`asz_core.provider_collect.provider_pass`) instead of the cursor collector, and implements :meth:`body_meta`.
    body_suffixes: ClassVar[tuple[str, str] | None] = None
    #: True when ``asz collect`` collects this adapter whenever its default source root exists, even though the
    #: configuration does not list it (Claude Code's provider bodies: capture is switched on outside asz).
    collect_when_present: ClassVar[bool] = False
    #: True when the adapter's source root is the storage root or a folder inside it by design (langsmith-ingest reads
    #: its inbox under ``<root>/_ingest/langsmith``): ``asz collect`` and ``asz server`` then do not refuse the overlap
    #: of the two roots that they refuse for every other adapter (:func:`asz_core.cli.root_overlap.refuse_overlap`).
    source_in_storage: ClassVar[bool] = False
    #: True when the runtime resumes a conversation as a new session whose file repeats the earlier session's records
    #: under their ids, then goes on (Claude Code's ``--resume``): of two sessions holding the same records, one with
    #: no record of its own is the earlier one, which the other continues. False when the runtime resumes a session in
    #: place, under its own id (Kiro): a session repeating another's records is then a copy of it (a copied or backed-up
    #: folder, whole or in part), and the one whose records are all in the other is the copy, drawn and counted in the
    #: session holding them (trial 34a F3: a later partial copy took two calls of nine from the session holding them
    #: whole). Read by :mod:`asz_core.flow.shared_ids` through the dialect of the session's landed files.
    resumes_as_new_session: ClassVar[bool] = True

    @property
    def identity(self) -> str:
        """The header's ``adapter`` value: ``name/version``."""
        return f"{self.name}/{self.version}"

    # -- declarations ---------------------------------------------------------------------

    def _check_dialect(self, dialect: str) -> None:
        if dialect not in self.dialects:
            raise KeyError(f"{self.name} does not speak dialect {dialect!r}; it speaks {', '.join(self.dialects)}")

    def glossary(self, dialect: str) -> list[Term]:
        """Every vocabulary term for ``dialect`` (see :data:`VOCABULARY`), from :attr:`glossaries` by default.

        Raises KeyError for a dialect the adapter does not speak."""
        self._check_dialect(dialect)
        return list(self.glossaries.get(dialect, ()))

    def flag_map(self, dialect: str) -> list[FlagRule]:
        """Each flag the dialect sets and the rule over source fields that sets it, from :attr:`flag_rules` by default.

        Raises KeyError for a dialect the adapter does not speak."""
        self._check_dialect(dialect)
        return list(self.flag_rules.get(dialect, ()))

    @abc.abstractmethod
    def default_source_root(self, env: Mapping[str, str] | None = None) -> Path:
        """The source root used when neither ``--source`` nor configuration names one (required)."""

    def has_default_sessions(self, env: Mapping[str, str] | None = None) -> bool:
        """True when this adapter's runtime has sessions at its :meth:`default_source_root` (``env`` as there).

        ``asz collect`` asks it of each installed adapter the default adapter list leaves out (no ``adapters`` in the
        configuration), on every run, to tell the user their sessions are not collected; so it must be cheap (a few
        ``stat`` calls of the runtime's known store paths, never a walk of the root) and never raise.

        Default, for an adapter that does not say (trial 39b F5: a plugin written before this method existed, on a
        machine running only its runtime, got ``error: …/.claude/projects: no such source root`` from plain ``asz
        collect`` and collected nothing): True when :meth:`default_source_root` is a directory holding any entry (one
        directory read, its first entry), False for an adapter whose source lies in the storage root
        (:attr:`source_in_storage`) or that reads provider bodies (:attr:`body_suffixes`), and when the folder is
        missing, empty or unreadable. An adapter whose default folder can hold other things says it exactly."""
        if self.source_in_storage or self.body_suffixes:
            return False
        try:
            with os.scandir(self.default_source_root(env)) as entries:
                return next(entries, None) is not None
        except Exception:  # an adapter's answer never stops a collect
            return False

    def has_staged(self, source_root: Path) -> bool:
        """True when this adapter's source lies in the storage root (:attr:`source_in_storage`) and what a pass would
        land waits under ``source_root`` (the storage root the command resolved, or the folder its
        :attr:`source_env` variable names: :func:`asz_core.cli.jobs.storage_source_root`). ``asz collect``, ``asz
        sources`` and ``asz server`` with the default adapter list then collect it beside that list, as for an adapter
        :meth:`has_default_sessions` answers True for (trial 40a F2: two requests staged sat in its inbox while plain
        ``asz collect --once`` landed none and said nothing). Asked on every run: cheap, never raises.

        Default: one of :meth:`staged_folders` directly holds a file whose name does not start with ``.`` (a
        receiver's temporary file) (:func:`~asz_core.plugins.staged.staged_names`); False for an adapter whose source
        is not in the storage root."""
        from .staged import staged_names

        if not self.source_in_storage:
            return False
        try:
            return bool(staged_names(self.staged_folders(Path(source_root))))
        except Exception:  # an adapter's answer never stops a collect
            return False

    def staged_reason(self, source_root: Path) -> str:
        """What besides a staged request file gives a pass work under ``source_root`` (:meth:`has_staged`), in words
        following ``but`` in :func:`~asz_core.cli.adapter_note.present_note` (``a receiver is listening on … now``;
        trial 40d F4: the note said ``0 request file(s) staged``); ``''`` when nothing does (default). Never raises."""
        return ""

    def unread_default_sources(self, env: Mapping[str, str] | None = None) -> list[Path]:
        """The runtime's other folders holding sessions now, apart from :meth:`default_source_root`, read after it
        (:meth:`default_source_roots`; Claude Code: ``~/.config/claude/projects``, ``CLAUDE_CONFIG_DIR`` entries).
        Cheap (listings of known store paths, never a session read); never raises. Default: []."""
        return []

    def default_source_roots(self, env: Mapping[str, str] | None = None) -> list[Path]:
        """The folders read when neither ``--source`` nor configuration names one: :meth:`default_source_root` (the
        root's own), then :meth:`unread_default_sources` (:mod:`asz_core.collect.folders`). Never raises."""
        return [Path(self.default_source_root(env)), *map(Path, self.unread_default_sources(env))]

    def default_source_candidates(self, env: Mapping[str, str] | None = None) -> list[Path]:
        """Every folder the runtime may keep sessions in, whether or not it exists now, in the order asz would prefer
        them were every one there (Claude Code: ``~/.claude/projects`` and ``~/.config/claude/projects``, or the
        ``CLAUDE_CONFIG_DIR`` entries'): the folders a pass reading the default folders is given. A landed source in
        none of them, nor in a folder the pass reads, was not looked at and is not gone (``asz_core.collect.looked_at``;
        docs/storage-root.md, Several source folders). Cheap, never raises. Default: :meth:`default_source_roots`."""
        return self.default_source_roots(env)

    def suggest_source(self, source_root: Path) -> Path | None:
        """The folder the user most likely meant when a pass found no session under ``source_root`` (one level off:
        Claude Code's project folder or configuration folder for its ``projects`` folder), or None. ``asz collect``
        names it in its "no session found" note as ``did you mean --source <it>``. Must be cheap (a listing of
        ``source_root``) and never raise. Default: None."""
        return None

    def read_folders(self, source_root: Path) -> list[Path]:
        """The folders under ``source_root`` whose trees this adapter reads, for the storage-root overlap check.

        ``asz collect``, ``asz server`` and ``asz sources --reland`` refuse a storage root that is ``source_root``,
        holds it, or is, lies inside or holds one of these folders (:func:`asz_core.cli.root_overlap.refuse_overlap`);
        a storage root inside ``source_root`` but outside every one of them is accepted, so an adapter whose source
        root is a home directory (Kiro) lists the stores it reads there and a root such as ``~/asz-data`` is not
        refused. The paths need not exist (a store the runtime makes later counts). The unlisted-adapter note names
        the ones that exist. What the adapter reads of ``source_root`` itself must be its top-level files only when
        ``source_root`` is not listed. Default: ``[source_root]`` (the whole tree). Must be cheap (``stat`` calls,
        never a walk) and never raise.
        """
        return [Path(source_root)]

    def staged_folders(self, source_root: Path) -> list[Path]:
        """The folders under ``source_root`` where this adapter's own receiver stages arrivals (an adapter with
        :attr:`source_in_storage`): ``asz server`` looks at them once a second and runs a pass soon after a file appears
        there (:mod:`asz_core.cli.server_follow`; trial 23a F14), as it does for a changed source file. Only the names
        of the files directly in them are looked at. The paths need not exist. Must be cheap and never raise.
        Default: ``[]``."""
        return []

    def configure(self, entry: Any) -> None:
        """Take this adapter's entry of the configuration the command read (``asz.yaml`` or ``--config``).

        ``entry`` is an :class:`asz_core.config.AdapterConfig` (name, source_root, include, exclude, collector) whose
        ``options`` maps each key the adapter's plugin declares through ``asz_register_settings`` to its checked value
        (absent keys are absent: use the :class:`Setting`'s default). Called by ``asz collect``/``sources``/``server``
        before discovery. The default does nothing; an adapter with settings of its own reads them here, so ``--config``
        reaches it.
        """

    def start_receiver(self, storage: Path, entry: Any) -> str | None:
        """Start what receives this adapter's traffic while ``asz collect`` (watch) or ``asz server`` runs.

        ``storage`` is the storage root; ``entry`` the adapter's configuration entry (enabled). Starts a daemon thread
        and returns the address it listens on, or None when the adapter receives nothing (the default). Raises OSError
        with a plain message when it cannot listen.
        """
        return None

    def prune_staging(self, storage: Path, before_ns: int, dry_run: bool = False) -> tuple[int, int, list[str]]:
        """Retention of what this adapter stages in the storage root ``storage`` beside the landed files (LangSmith's
        ``_ingest/langsmith/done/``): delete what was staged before ``before_ns`` (unix ns) and has landed, crash-safe
        (a kill at any point repeats work, never loses it). ``asz prune`` calls it with ``storage.retention.after``'s
        cut. Returns ``(files, bytes, why kept)``: what was (``dry_run``: would be) deleted, and a sentence per reason
        nothing could go. Default ``(0, 0, [])``: nothing staged. May raise OSError."""
        return 0, 0, []

    def root_notes(self, storage: Path) -> list[str]:
        """What this adapter's staging in the storage root ``storage`` knows that no landed record can say, one
        sentence each (LangSmith: the times no receiver listened on the root, when what an app sent was lost whole;
        trial 28c F3). ``asz ls`` prints them under its table and ``asz verify`` as warnings. Asked only of a root holding
        ``_ingest/`` (:data:`asz_core.plugins.staged.STAGING`), where every adapter stages. Default []."""
        return []

    def body_meta(self, name: str, data: bytes) -> BodyInfo:
        """The identifiers one provider-body file names (``name`` its file name, ``data`` its bytes).

        Required when :attr:`body_suffixes` is set; never raises (a body that does not decode gives a :class:`BodyInfo`
        with ``meta=None`` and the problem).
        """
        raise NotImplementedError(f"{self.name} declares no provider bodies")

    # -- work -----------------------------------------------------------------------------

    @abc.abstractmethod
    def discover(self, source_root: Path, *, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
        """List the sources under ``source_root``; unreadable places go to ``errors``, noise to ``skipped`` (required)."""

    @abc.abstractmethod
    def convert_line(self, source: Source, line: bytes, ord: int, off: int) -> Record:
        """Convert one complete source line (without its newline) into one record (required).

        Must never raise for bad input: what cannot be described becomes an
        ``unknown`` part. Sets ``ord``, ``off``, ``bytes`` and ``sha`` from the line.
        """

    @abc.abstractmethod
    def convert_document(self, source: Source, data: bytes) -> Record:
        """Convert one whole document (snapshot or document source) into one record with ord 1 and off 0 (required).

        An adapter whose sources are all ``append`` files may return
        ``self.convert_line(source, data, 1, 0)``.
        """

    def document_unfinished(self, source: Source, data: bytes) -> str:
        """Why ``data`` (a snapshot file's bytes, trailing newlines trimmed) reads as a document caught while the
        runtime was rewriting it (a torn read: Kiro's ``session.json`` cut mid-way), or '' when it reads whole.

        The collector does not land such bytes on first sight: the pass counts the source in ``partial=`` and the
        next pass reads it again, so the whole version lands once it is written; bytes that stay so while the file
        is unchanged for the idle window (``Collector.torn_after_ns``, 10 minutes) land as they are (docs/adapters.md,
        Snapshots read mid-rewrite). Asked only for ``mode="snapshot"`` sources (a ``document`` source is a committed
        row), and only when the content changed since it last landed. Never raise (an exception counts as '').
        Default: '' (every document reads whole)."""
        return ""

    def read_document(self, source: Source) -> bytes:
        """The current bytes of a ``mode="document"`` source (origin-digest §2.2, snapshot cursor).

        The collector calls it where it reads a snapshot file, then trims trailing newlines and compares the SHA-256
        with the cursor's ``content_sha256``. Default: the bytes of the file ``source.path``. Raises FileNotFoundError
        when the document is gone (the cursor becomes ``source_gone``), any other OSError when it cannot be read now (an
        error; the next pass tries again), ValueError when ``source`` names no document this adapter can read.
        """
        return Path(source.path).read_bytes()

    def source_exists(self, source: Source) -> bool:
        """Whether a source that discovery did not list this pass still exists (origin-digest §2.2, pruned sources).

        The collector asks this before it marks a cursor ``source_gone``. It
        rebuilds ``source`` from the cursor: ``src`` is the cursor's
        ``source``; ``path`` is the source root joined with ``src`` (for
        ``mode="document"``, with the part of ``src`` before ``#``); ``mode``
        is ``append``, ``snapshot`` or ``document``; ``session``, ``kind``,
        ``stream`` and ``batch`` come from the storage directory; ``dialect``
        is ''. Default: whether ``source.path`` exists (a missing file or a
        missing parent directory is False). Raises OSError when it cannot
        tell (the cursor is then left as it is).
        """
        try:
            os.stat(source.path)
        except (FileNotFoundError, NotADirectoryError):
            return False
        return True

    def project_folder(self, src: str) -> str | None:
        """The folder of a source's name (``src`` relative to the source root, forward slashes; a document's ``#``
        suffix left out) that groups its sessions with others in one source folder, or None when the adapter keeps
        no such folder (the default). Claude Code: the project folder, ``-home-me-proj`` of
        ``-home-me-proj/<id>.jsonl``. A pass whose folders hold none of that name did not look where the source was
        landed from, so a missing file there is not ``gone`` (:mod:`asz_core.collect.looked_at`; trial 30c F5);
        without the folder every missing source the pass's first folder would hold is gone (origin-digest §2.2).
        Never raises; no file read."""
        return None

    def project_folder_named(self, cwd: str) -> str | None:
        """The name the runtime gives the folder it keeps the sessions started in working directory ``cwd`` in
        (Claude Code: ``-home-user-spotter`` of ``/home/user/spotter``), or None when it names none (the default).
        asz names a project by its ``cwd``; ``asz usage --project`` given such a folder name matches nothing and its
        hint names the projects whose folder this is (docs/ccusage.md, Projects; trial 48a F6). Never raises."""
        return None

def env_path(env: Mapping[str, str] | None, key: str) -> str:
    """``env[key]`` or ``os.environ[key]`` or '' (helper for default source roots)."""
    source = os.environ if env is None else env
    return source.get(key, "") or ""
