"""The adapter conformance kit's pytest mixin; the contract is described in :mod:`asz_core.testing`.

Imported only by pytest runs (it needs pytest): ``from asz_core.testing import AdapterConformance``
loads it on first use, so the rest of :mod:`asz_core.testing` (the scenario commands) runs in an
install without the ``[test]`` extra.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import ClassVar

import attrs
import pytest

from ..plugins.adapter import VOCABULARY, Adapter, undeclared_flag
from ..sessiondata import FLAGS, SDReader, VocabularyError, check_vocabulary
from ..sessiondata.model import FILE_KINDS
from .accounted import unaccounted
from .glossary_read import contradicted
from .landing import SamplesRoot, collect_once, landed_records
from .usage_reach import figures_unreached

__all__ = ["AdapterConformance"]


#: Tokens no one model call reports (in, out, a cache read or write): 100 million, fifty times the largest context
#: window offered today; :func:`made_up_counts` wants a larger count (or a
#: negative one) written in the source line it was converted from.
UNLIKELY_COUNT = 100_000_000
MADE_UP = "usage counts its sources do not hold"


def _outside_vocabulary(where: str, rec) -> list[str]:
    """``[where: what check_vocabulary says of rec]``, or [] when its values are Session Data's."""
    try:
        check_vocabulary(rec)
    except VocabularyError as exc:
        return [f"{where}: {exc}"]
    return []


def made_up_counts(where: str, data: bytes, rec) -> list[str]:
    """What is wrong with the usage counts of ``rec`` (converted from ``data``, at ``where``): each that is not an
    integer of 64 bits (seed 000), and each no call reports (negative, or more than :data:`UNLIKELY_COUNT`) that
    ``data`` does not hold as it stands: an adapter that makes one up (trial 43b F2: ``in -5`` and ``out 10**15``
    landed and ``asz ls`` priced them at $120,000,000,000) is named with the line and the count."""
    u, bad = getattr(rec, "usage", None), []
    for name, v in (() if u is None else (("in", u.in_), ("out", u.out), ("cache_read", u.cache_read),
                                          ("cache_write", u.cache_write), ("cache_write_1h", u.cache_write_1h))):
        if type(v) is not int or not -(2**63) <= v < 2**63:
            bad.append(f"{where}: usage.{name} {v!r} is not an integer of 64 bits")
        elif (v < 0 or v > UNLIKELY_COUNT) and str(v).encode() not in data:
            bad.append(f"{where}: usage.{name} {v:,} is no count a call reports, and the line does not hold it")
    return bad


def _shown_in(root: Path) -> tuple[set, bool, set, set, set]:
    """``(part kinds, any usage, streams, call ids, result ids)`` of the landed records of ``root``; a call part with
    no id fails (:meth:`AdapterConformance.test_capabilities_show_in_the_samples`)."""
    kinds, usage, streams, calls, results = set(), False, set(), set(), set()
    for _p, h, _r, rec in landed_records(root):
        streams.add(h.stream)
        usage = usage or rec.usage is not None
        for p in rec.parts:
            kinds.add(p.k)
            if p.k == "call":
                assert p.id, "a call part needs its id"
                calls.add(p.id)
            if p.k == "result" and p.of:
                results.add(p.of)
    return kinds, usage, streams, calls, results


def _landed_tree(root: Path) -> dict[str, bytes]:
    """Every landed file and cursor of a root by relative path; a cursor without its ``updated_at`` line (the clock)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and (p.suffix in (".sd", ".sk", ".cursor")) and not p.name.startswith("."):
            data = p.read_bytes()
            if p.suffix == ".cursor":
                data = b"".join(ln for ln in data.splitlines(keepends=True) if not ln.startswith(b"updated_at"))
            out[str(p.relative_to(root))] = data
    return out


def nothing_landed(adapter: Adapter, samples: Path, source_root: Path, counters: object) -> str:
    """The kit's message when a pass over the samples landed nothing: the samples folder and its copy (the source
    root the adapter was given), its top entries, and what ``adapter.discover`` finds there: the sources, what it
    skipped and its errors, up to 5 of each with their reasons (trial 20: ``the samples landed nothing`` alone, for
    samples one folder too deep for discover)."""
    top = sorted(p.name + ("/" if p.is_dir() else "") for p in Path(source_root).iterdir())[:8]
    said = [f"the samples landed nothing: samples {samples} (copied to the source root {source_root}, holding "
            f"{', '.join(top) or 'nothing'}); the pass counted sources={getattr(counters, 'sources', '?')} "
            f"errors={getattr(counters, 'errors', '?')} skipped={getattr(counters, 'skipped', '?')}"]
    try:
        d = adapter.discover(source_root)
    except Exception as exc:
        return "\n".join([*said, f"{adapter.name}.discover({source_root}) raised {type(exc).__name__}: {exc}"])
    said.append(f"{adapter.name}.discover({source_root}) found {len(d.sources)} source(s), skipped {len(d.skipped)}, "
                f"errors {len(d.errors)}, pending {len(d.pending)}")
    said += [f"  source: {s.src} ({s.kind}, {s.dialect})" for s in d.sources[:5]]
    said += [f"  {what}: {path}: {why}" for what, rows in (("skipped", d.skipped), ("error", d.errors), ("pending", d.pending))
             for path, why in rows[:5]]
    if not d.sources:
        said.append("is samples the folder discover() expects as its source root (not one level above or below)?")
    return "\n".join(said)


def made_copy(samples: Path, dst: Path) -> Path:
    """``dst``, made a copy of the folder ``samples`` (it must not exist)."""
    shutil.copytree(samples, dst)
    return dst


def _converted(adapter: Adapter, source_root: Path) -> list[tuple[str, object, object]]:
    """Every record the samples under ``source_root`` convert to, as ``(where, source, record)``: ``where`` is
    ``src:line`` for an append source's complete lines, ``src`` for a document (read as the collector reads it)."""
    return [(where, s, rec) for where, s, _data, rec in _converted_from(adapter, source_root)]


def _converted_from(adapter: Adapter, source_root: Path) -> list[tuple[str, object, bytes, object]]:
    """:func:`_converted` with the bytes each record was converted from: ``(where, source, bytes, record)``."""
    out = []
    for s in adapter.discover(source_root).sources:
        if s.mode == "append":
            data = s.path.read_bytes()
            off = 0
            for n, line in enumerate(data[: data.rfind(b"\n") + 1].split(b"\n")[:-1], 1):
                out.append((f"{s.src}:{n}", s, line, adapter.convert_line(s, line, n, off)))
                off += len(line) + 1
        else:
            doc = adapter.read_document(s).rstrip(b"\n")
            out.append((s.src, s, doc, adapter.convert_document(s, doc)))
    return out


def _named_again(adapter_class: type[Adapter], source_root: Path) -> str:
    """What differs between two ``discover`` calls over the same unchanged folder (two fresh adapters): the sources
    only the first or only the second names, by session, kind, stream or batch and src; '' when they agree. A source
    named otherwise each time lands again each pass, under another session (trial 35a F4)."""
    def named(a: Adapter) -> set[tuple[str, str, str, str]]:
        return {(s.session, s.kind, s.stream or s.batch, s.src) for s in a.discover(source_root).sources}

    one, two = named(adapter_class()), named(adapter_class())
    if one == two:
        return ""
    said = lambda keys: "; ".join(f"session {k[0]} {k[1]} {k[2] or 'main'} {k[3]}" for k in sorted(keys)[:3])
    return (f": discover() names the unchanged samples otherwise each time: only the first call gave {said(one - two)}, "
            f"only the second {said(two - one)}: a source's session, kind, stream and src must come from the source "
            "(its path, its bytes), never from a clock, a counter or uuid4()")


def _first_difference(one: dict[str, bytes], two: dict[str, bytes]) -> str:
    """The files two landed trees (:func:`_landed_tree`) hold differently, and the first line that differs in the
    first of them, both versions cut to 300 bytes; '' when they are the same."""
    differ = sorted(k for k in one.keys() | two.keys() if one.get(k) != two.get(k))
    if not differ:
        return ""
    first = differ[0]
    said = f"{len(differ)} landed file(s) differ ({', '.join(differ[:4])}{', …' if len(differ) > 4 else ''})"
    a, b = one.get(first, b"").splitlines(), two.get(first, b"").splitlines()
    for n, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return f"{said}; {first} line {n} is\n  {x[:300]!r}\nin one and\n  {y[:300]!r}\nin the other"
    return f"{said}; {first} holds {len(a)} line(s) in one, {len(b)} in the other"


def resumed_copies(collected: Path) -> list[str]:
    """The lines a root holds byte for byte in two sessions under ids that each name their own session, one phrase
    per pair of sessions (``sessions a, b hold 3 line(s) landed in each under ids naming each: a:1 / b:1; …``); two sessions holding exactly the same lines (repeats counted), no more, are left
    out: two copies of one transcript, not a resume, which goes on after the lines it repeats (trial 35a F7)."""
    by_line: dict[tuple[str, int], dict[str, str]] = {}  # (source line's sha, bytes) -> session -> id
    lines_of: dict[str, list[tuple[str, int]]] = {}  # session -> its lines (sha, bytes), repeats kept
    for _path, header, _row, rec in landed_records(collected):
        lines_of.setdefault(header.session, []).append((rec.sha, rec.bytes))
        if rec.id and rec.sha and header.session in rec.id:  # an id naming the session whose file holds it
            by_line.setdefault((rec.sha, rec.bytes), {})[header.session] = rec.id
    held = {session: tuple(sorted(lines)) for session, lines in lines_of.items()}
    twice: dict[tuple[str, ...], list[str]] = {}
    for ids in by_line.values():
        if len(ids) == 2 and len({held[s] for s in ids}) == 1:  # tuples compared whole
            continue  # two sessions holding the same lines, no more: two copies of one transcript, neither resumed
        if len(set(ids.values())) > 1:
            twice.setdefault(tuple(sorted(ids)), []).append(" / ".join(ids[s] for s in sorted(ids)))
    return [f"sessions {', '.join(sessions)} hold {len(pairs)} line(s) landed in each under ids naming each: "
            f"{'; '.join(sorted(pairs)[:4])}{'; …' if len(pairs) > 4 else ''}" for sessions, pairs in sorted(twice.items())]


def changed_ids(adapter_class: type[Adapter], source_root: Path) -> list[str]:
    """``src:line: (ids) the first time, (ids) the second`` for each sample line two fresh adapters convert to records
    with other ids (record id, parent, call, each part's id) (trial 35a F4)."""
    def ids(rec) -> tuple:
        return (rec.id, rec.parent, rec.call, tuple(p.id for p in rec.parts))

    one, two = _converted(adapter_class(), source_root), _converted(adapter_class(), source_root)
    return [f"{w}: {ids(x)!r} the first time, {ids(y)!r} the second" for (w, _s, x), (_w, _t, y) in zip(one, two)
            if ids(x) != ids(y)]


RESUMED_SAID = ("{}: a record a runtime copies into a resumed session must keep the id it first landed with (prefix an "
                "id with the session that first wrote the record, not the one whose file holds the copy), or the copy is "
                "counted twice:\n")
SAID_FIELDS = ("id", "parent", "call", "run", "continues", "tool", "child", "batch", "label", "started_by", "from_", "time",
               "trigger", "flags", "usage", "model")
IDS_SAID = ("{}: the same line converts to other ids each time (record id, parent, call, part ids); make them from the "
            "source line, e.g. its own id or the session id and the line's ord:\n")
PARALLEL_SAID = ("{} declares sessions_in_parallel, but two collects of the same samples at the same clock, in one process "
                 "and in two, land different bytes: {} (one process: {}; two: {}). Record ids and everything else a record "
                 "holds must come from the source line alone, never from uuid4(), a clock or what the adapter object "
                 "learnt from another session")


def _landed_again(adapter_class: type[Adapter], source_root: Path, c) -> str:
    """What a second pass over unchanged samples that landed again (counters ``c``) says (trial 35a F4)."""
    return (f"a second pass over the unchanged samples landed {c.records} record(s) in {c.landed} file(s) again "
            f"({c.summary()})" + (_named_again(adapter_class, source_root) or ": discover() names the sources the same "
                                  "way each time, so the cursor did not hold: does discover change a source's mode or path?"))


UNACCOUNTED = ("{adapter} leaves content of {n} field(s) of the samples unaccounted for: in no part, under no dropped "
               "entry's member, in no unknown part (write a part for it, list it under dropped with its size and why, "
               "or keep its bytes in an unknown part):\n")


def _why_no_fork() -> str:
    """Why :func:`asz_core.collect.workers.can_fork` said no: the platform, or the threads running in this process
    (which an earlier test may have left: they end the skip's meaning, so they are named)."""
    import threading

    running = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
    if not running:
        return "this platform cannot fork worker processes"
    return f"this process cannot fork worker processes: other threads run ({', '.join(running)})"


class AdapterConformance:
    """Mixin of conformance tests. Set ``adapter_class`` and ``samples`` (a source root) in a subclass."""

    adapter_class: ClassVar[type[Adapter]]
    samples: ClassVar[Path]
    #: Capabilities the adapter declares that these samples cannot show, each with the reason
    #: (e.g. ``{"reasoning": "the real sessions we may ship hold none"}``); the check says so instead of failing.
    unshown_capabilities: ClassVar[dict[str, str]] = {}
    #: Member paths (no indices: ``attachment.stdout``) left out with no ``dropped`` entry (known gaps), with the reason.
    unaccounted_members: ClassVar[dict[str, str]] = {}

    # ------------------------------------------------------------------ fixtures

    @pytest.fixture
    def adapter(self) -> Adapter:
        """A fresh instance of the adapter under test."""
        return self.adapter_class()

    @pytest.fixture
    def source_root(self, tmp_path: Path) -> Path:
        """A private copy of the samples, so tests may append to them."""
        return made_copy(Path(self.samples), tmp_path / "source")

    @pytest.fixture
    def collected(self, tmp_path: Path, adapter: Adapter, source_root: Path) -> Path:
        """A storage root holding one collect pass over the samples, the test's own (it may collect into it again)."""
        root = tmp_path / "root"
        c = collect_once(root, adapter, source_root)
        assert c.landed > 0, nothing_landed(adapter, Path(self.samples), source_root, c)
        return root

    @pytest.fixture(scope="class")
    @classmethod
    def samples_source(cls, tmp_path_factory: pytest.TempPathFactory) -> Path:
        """A copy of the samples made once for the test class (trial 43b F6: one a check); only read it."""
        return made_copy(Path(cls.samples), tmp_path_factory.mktemp("samples") / "source")

    @pytest.fixture(scope="class")
    @classmethod
    def samples_root(cls, samples_source: Path) -> SamplesRoot:
        """One collect pass over ``samples_source``, parsed, made once for the test class (:class:`.SamplesRoot`); only
        read it (``collected`` is a test's own)."""
        shared = SamplesRoot(samples_source, samples_source.parent / "root", adapter := cls.adapter_class())
        assert shared.counters.landed > 0, nothing_landed(adapter, Path(cls.samples), samples_source, shared.counters)
        return shared

    # ------------------------------------------------------------------ checks

    def test_implements_the_required_methods(self) -> None:
        """``Adapter`` is an abstract base class: the class under test leaves no required method out."""
        missing = sorted(getattr(self.adapter_class, "__abstractmethods__", ()))
        assert not missing, f"{self.adapter_class.__name__} does not implement {', '.join(missing)}"

    def test_declares_itself(self, adapter: Adapter) -> None:
        """Name, version, dialects and kinds are declared; kinds are Session Data file kinds."""
        assert adapter.name and adapter.version and adapter.dialects
        assert adapter.kinds and set(adapter.kinds) <= set(FILE_KINDS)
        assert adapter.identity == f"{adapter.name}/{adapter.version}"

    def test_glossary_covers_the_vocabulary(self, adapter: Adapter) -> None:
        """Every vocabulary name has a term; a native name says where; an empty one carries a note and no where."""
        for dialect in adapter.dialects:
            terms = {t.unified: t for t in adapter.glossary(dialect)}
            missing = [n for n in VOCABULARY if n not in terms]
            assert not missing, f"{dialect}: glossary misses {missing}"
            for t in terms.values():
                if t.native:
                    assert t.where, f"{dialect}: {t.unified!r} names {t.native!r} but not where it appears"
                else:
                    assert t.note and not t.where, f"{dialect}: derived term {t.unified!r} needs a note and no location"

    def test_glossary_names_what_the_records_carry(self, samples_root: SamplesRoot, adapter: Adapter) -> None:
        """No term the glossary calls derived is a field or flag-drawn step the samples' records carry (trial 47c F5)."""
        bad = contradicted(adapter, landed_records(samples_root.root))  # .glossary_read's module docstring says why
        assert not bad, f"{adapter.name}: the glossary calls derived what the samples' records carry:\n" + "\n".join(bad)

    def test_flag_rules_are_in_the_vocabulary(self, adapter: Adapter) -> None:
        """Each declared flag rule names a flag of the closed vocabulary and says its rule."""
        for dialect in adapter.dialects:
            for rule in adapter.flag_map(dialect):
                assert rule.flag in FLAGS, f"{dialect}: {rule.flag!r} is not a Session Data flag"
                assert rule.rule.strip(), f"{dialect}: flag {rule.flag!r} has no rule"

    def test_values_are_session_data_values(self, adapter: Adapter, samples_source: Path) -> None:
        """Every record the samples convert to holds only Session Data values in ``from``, ``trigger``, flags, part kinds
        and part states (the writer refuses any other), and usage counts its line holds (:func:`made_up_counts`)."""
        bad = []
        for where, _s, data, rec in _converted_from(adapter, samples_source):
            bad += _outside_vocabulary(where, rec) + made_up_counts(where, data, rec)
        assert not bad, f"{adapter.name} writes values outside Session Data's vocabularies, or {MADE_UP}:\n" + "\n".join(bad[:20])

    def test_no_line_left_unaccounted(self, samples_root: SamplesRoot, adapter: Adapter) -> None:
        """Each piece of content of every line is accounted for (seed 000, Parts and Dropped; :mod:`.accounted`), naming
        the line, the field and its first words (trial 35a F3); no record says nothing of its line."""
        bad = [f"{h.src}:{rec.ord} ({rec.bytes} bytes)" for _p, h, _r, rec in landed_records(samples_root.root)
               if not rec.parts and not rec.dropped and not any(getattr(rec, f, None) for f in SAID_FIELDS)]
        assert not bad, "records that say nothing of their line (no parts, no dropped entry, no identifier):\n" + "\n".join(bad[:20])
        lost = [f"{where}: {field}" for where, _s, data, rec in _converted_from(adapter, samples_root.source_root)
                for field in unaccounted(data, rec, self.unaccounted_members)]
        assert not lost, UNACCOUNTED.format(adapter=adapter.name, n=len(lost)) + "\n".join(lost[:20]) + "\n…" * (len(lost) > 20)

    def test_documents_cite_every_record_with_text(self, samples_root: SamplesRoot) -> None:
        """The samples parse into conversations, and each asz.view document cites every record with text
        (``summary.coverage``: cited == records; a gap is named in ``summary.problems`` as ``not drawn: …``)."""
        samples_root.parsed_clean()
        views = samples_root.views()
        assert views, "the samples parse into no conversation"
        for conv, doc in views.items():
            summary = doc["summary"]
            cov = summary["coverage"]
            gaps = [p for p in summary.get("problems", ()) if p.startswith("not drawn")]
            assert cov["cited"] == cov["records"], f"{conv}: the document cites {cov['cited']} of {cov['records']} records with text: {gaps}"

    def test_every_file_verifies(self, samples_root: SamplesRoot) -> None:
        """The collected root, parsed as ``asz collect`` leaves it, verifies clean (digests, contiguity, names, cursors)."""
        from ..verify.walk import verify_root

        report = verify_root(samples_root.root)
        assert report.ok, "\n".join(report.lines())

    def test_headers_names_and_seq(self, samples_root: SamplesRoot, adapter: Adapter) -> None:
        """Headers name this adapter and its dialects; kinds are declared; names match headers; seq is unique per session."""
        from ..storage.layout import landed_files, session_dirs

        for sdir in session_dirs(samples_root.root):
            seqs = []
            for ln, path in landed_files(sdir):
                r = SDReader(path, decode=False)
                for _ in r:
                    pass
                h = r.header
                assert h.adapter == adapter.identity and h.dialect in adapter.dialects, path
                assert h.kind in adapter.kinds and h.kind == ln.kind, path
                assert h.seq == ln.seq and h.session == sdir.name, path
                seqs.append(h.seq)
            assert len(seqs) == len(set(seqs)), f"{sdir}: duplicate seq"

    def test_every_source_line_is_a_record(self, samples_root: SamplesRoot, adapter: Adapter) -> None:
        """Each complete line of every append source is exactly one record with its ord, off, bytes and sha."""
        source_root = samples_root.source_root
        disc = adapter.discover(source_root)
        landed: dict[str, list] = {}
        for _path, header, _row, rec in landed_records(samples_root.root):
            landed.setdefault((header.session, header.src), []).append(rec)
        for s in disc.sources:
            if s.mode != "append":
                data = adapter.read_document(s).rstrip(b"\n")
                recs = landed.get((s.session, s.src), [])
                assert recs, f"{s.src}: the document landed no record"
                rec = recs[-1]
                assert (rec.ord, rec.off, rec.bytes) == (1, 0, len(data)), f"{s.src}: a document is one record at ord 1, off 0"
                assert rec.sha == hashlib.sha256(data).hexdigest()[:12], f"{s.src}: sha"
                continue
            data = s.path.read_bytes()
            body = data[: data.rfind(b"\n") + 1]
            recs = landed.get((s.session, s.src), [])
            off = 0
            lines = body.split(b"\n")[:-1]
            assert len(recs) == len(lines), (f"{s.src}: {len(lines)} lines, {len(recs)} records landed in session "
                                             f"{s.session}" + _named_again(self.adapter_class, source_root))
            for n, (line, rec) in enumerate(zip(lines, recs), 1):
                assert (rec.ord, rec.off, rec.bytes) == (n, off, len(line)), f"{s.src}:{n}"
                assert rec.sha == hashlib.sha256(line).hexdigest()[:12], f"{s.src}:{n}"
                off += len(line) + 1

    def test_flags_only_from_declared_rules(self, adapter: Adapter, samples_source: Path) -> None:
        """Every flag on a record the samples convert to has a rule the adapter declares for the source's dialect (seed
        000, Flags; ``asz collect`` refuses such a line, :func:`~asz_core.plugins.adapter.undeclared_flag`, so the
        collected root's checks error on it); the message names the source line (``src:line``) and the field (trial 25a
        F7: it named the landed file's row)."""
        declared = {d: frozenset(r.flag for r in adapter.flag_map(d)) for d in adapter.dialects}
        bad = []
        for where, s, rec in _converted(adapter, samples_source):
            if (said := undeclared_flag(rec, declared.get(s.dialect, frozenset()), s.dialect)) is not None:
                bad.append(f"{where}: {said[0]}: {said[1]}")
        assert not bad, f"{adapter.name} sets flags by no rule it declares:\n" + "\n".join(bad[:20])

    def test_record_ids_unique_between_sessions(self, samples_root: SamplesRoot, adapter: Adapter) -> None:
        """No two sessions of the samples share a record id unless one continues the other (it opens by repeating the
        other's records, as a resumed session does). Assembly reads ids root-wide: a record whose id landed already is
        a repeat, and ids shared otherwise are open ``shared_id`` entries in both conversations, whose records and calls
        each counts (docs/adapters.md, A Record's fields). A runtime numbering its records per session (``msg_1``,
        ``msg_2``, …) makes them unique by prefixing the session id (trial 25a F3). The message names the sessions and
        the ids."""
        from ..flow.asm_links import SHARED_REASON

        holders: dict[str, set[str]] = {}  # a shared id -> the sessions holding it
        for conv, doc in samples_root.views().items():
            for u in doc.get("unresolved") or ():
                if u.get("kind") == "shared_id" and u.get("state") == "open" and u.get("reason", "").startswith(SHARED_REASON):
                    holders.setdefault(u.get("ref", ""), {conv}).update(u["reason"][len(SHARED_REASON):].split(", "))
        by_sessions: dict[tuple[str, ...], list[str]] = {}
        for rid, sessions in holders.items():
            by_sessions.setdefault(tuple(sorted(sessions)), []).append(rid)
        bad = [f"sessions {', '.join(sessions)} share {len(ids)} id(s): {', '.join(sorted(ids)[:8])}{', …' if len(ids) > 8 else ''}"
               for sessions, ids in sorted(by_sessions.items())]
        assert not bad, (f"{adapter.name}: record ids must be unique across a storage root, but sessions that do not "
                         f"continue each other share ids (make them unique, e.g. prefixed by the session id):\n"
                         + "\n".join(bad[:20]))

    def test_record_ids_of_a_resumed_copy_kept(self, samples_root: SamplesRoot, adapter: Adapter) -> None:
        """A line landed byte for byte in two sessions (a runtime copying records into a resumed session, which opens
        by repeating them) keeps one id: an id prefixed by the session holding the copy is a new record's, so the
        copy and its calls are counted twice, in both conversations, and the resumed one continues nothing (house26;
        docs/adapters.md, A Record's fields); two copies of one transcript pass (:func:`resumed_copies`, trial 35a F7)."""
        bad = resumed_copies(samples_root.root)
        assert not bad, RESUMED_SAID.format(adapter.name) + "\n".join(bad[:20])

    def test_ids_the_same_each_time(self, samples_source: Path) -> None:
        """Two fresh adapters convert each line to the same ids, never from ``uuid4()`` or a clock (trial 35a F4)."""
        bad = changed_ids(self.adapter_class, samples_source)
        assert not bad, IDS_SAID.format(self.adapter_class.name) + "\n".join(bad[:10])

    def test_undescribable_bytes_kept_as_unknown(self, tmp_path: Path, adapter: Adapter, source_root: Path) -> None:
        """A line that is not JSON and one with invalid UTF-8 land as unknown parts whose raw bytes are the line."""
        disc = adapter.discover(source_root)
        target = next((s for s in disc.sources if s.mode == "append"), None)
        if target is None:
            pytest.skip("the adapter has no append sources")
        junk = [b"this line {is not json", b"\xff\xfe not utf-8 \xc3"]
        with open(target.path, "ab") as f:
            for j in junk:
                f.write(j + b"\n")
        root = tmp_path / "root-unknown"
        collect_once(root, adapter, source_root)
        found = [rec for _p, h, _r, rec in landed_records(root) if h.src == target.src and rec.bytes in (len(junk[0]), len(junk[1]))]
        raws = {p.raw() for rec in found for p in rec.parts if p.k == "unknown"}
        assert set(junk) <= raws

    def test_second_collect_lands_nothing(self, collected: Path, adapter: Adapter, source_root: Path) -> None:
        """A second pass over unchanged sources lands no file and no record."""
        c = collect_once(collected, adapter, source_root)
        assert (c.landed, c.records) == (0, 0), _landed_again(self.adapter_class, source_root, c)

    def test_appending_a_line_lands_one_record(self, collected: Path, adapter: Adapter, source_root: Path) -> None:
        """Appending one complete line to an append source lands exactly one record."""
        disc = adapter.discover(source_root)
        target = next((s for s in disc.sources if s.mode == "append"), None)
        if target is None:
            pytest.skip("the adapter has no append sources")
        data = target.path.read_bytes()
        last = data.rstrip(b"\n").rsplit(b"\n", 1)[-1]
        with open(target.path, "ab") as f:
            f.write(last + b"\n")
        c = collect_once(collected, adapter, source_root)
        said = f"appending one line to {target.src} landed {c.records} record(s) in {c.landed} file(s) ({c.summary()})"
        assert (c.landed, c.records) == (1, 1), said + _named_again(self.adapter_class, source_root)

    def test_sessions_land_in_parallel_as_in_one_process(self, tmp_path: Path, adapter: Adapter, samples_source: Path) -> None:
        """An adapter declaring ``sessions_in_parallel`` lands the samples in two worker processes byte for byte as in one."""
        from ..collect.workers import can_fork

        if not adapter.sessions_in_parallel:
            pytest.skip(f"{adapter.name} does not declare sessions_in_parallel: asz collect lands its sessions one by one")
        if not can_fork():
            pytest.skip(_why_no_fork())
        if len(adapter.discover(samples_source).sessions()) < 2:
            pytest.skip("the samples hold one session: landing in parallel needs two")
        stamp = 1_800_000_000_000_000_000
        one, two = tmp_path / "one-process", tmp_path / "two-processes"
        a = collect_once(one, adapter, samples_source, stamp_ns=stamp)
        b = collect_once(two, self.adapter_class(), samples_source, stamp_ns=stamp, jobs=2)
        differ = _first_difference(_landed_tree(one), _landed_tree(two))
        assert not differ and a.summary() == b.summary(), PARALLEL_SAID.format(adapter.name, differ or "the pass lines "
                                                                              "differ", a.summary(), b.summary())

    def test_capabilities_show_in_the_samples(self, samples_root: SamplesRoot, adapter: Adapter) -> None:
        """What the adapter declares it carries appears in the landed samples (tool calls, reasoning, usage, children, media)."""
        caps = adapter.capabilities
        unknown = set(self.unshown_capabilities) - {"tool_calls", "reasoning", "usage", "children", "media"}
        assert not unknown, f"unshown_capabilities names no capability: {sorted(unknown)}"
        kinds, usage, streams, calls, results = _shown_in(samples_root.root)
        shown = {
            "tool_calls": "call" in kinds and "result" in kinds and bool(calls & results),
            "reasoning": "reasoning" in kinds,
            "usage": usage,
            "children": len(streams - {"", "main"}) >= 1,
            "media": "media" in kinds,
        }
        for cap, reason in self.unshown_capabilities.items():
            assert getattr(caps, cap), f"{cap} is listed as unshown but not declared"
            assert not shown[cap], f"{cap} is listed as unshown ({reason}) but the samples show it: remove it from the list"
        caps = attrs.evolve(caps, **{cap: False for cap in self.unshown_capabilities})
        if caps.tool_calls:
            assert "call" in kinds and "result" in kinds and calls & results, "tool calls declared but none joined in the samples"
        if caps.reasoning:
            assert "reasoning" in kinds, "reasoning declared but absent from the samples"
        if caps.usage:
            samples_root.parsed_clean()
            assert not (said := figures_unreached(samples_root.root, adapter.name, samples_root.views())), said  # (39b F2, 46b F5)
        if caps.children:
            assert len(streams - {"", "main"}) >= 1, "children declared but the samples have no child stream"
        if caps.media:
            assert "media" in kinds, "media declared but absent from the samples"
