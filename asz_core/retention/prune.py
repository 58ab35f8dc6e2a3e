"""Retention: removing whole sessions' landed files, leaving skeletons (seed 000, Skeletons; origin-digest §2.6; issue 21).

``storage.retention.after`` says when a session qualifies: its last activity
(the ``session_through_time`` of its conversations' head rounds) is older
than that. It must also be whole in its chain: every conversation's head
round reaches the last landed file. With ``require_accepted`` (the default)
every landed file and round of the session must be in the state the root
keeps of the configured endpoint (``export.otlp.endpoint``: ``push.state``
when it was pushed to last, else ``_export/endpoints/<endpoint>.state``;
:func:`~asz_core.export.state.state_of`) with its current digest and no
``rejected`` line; a session with any file that endpoint did not accept is
kept whole. A push to another endpoint (``asz push --endpoint``, a test
receiver) never makes a session removable (trial 41a F2: it did, and the
configured endpoint never got the session), and with no endpoint configured
nothing goes (:data:`NO_ENDPOINT`).
A file the receiver refused because it holds every record of it already counts as accepted: held from another root
(``elsewhere … all``) or in the files of the credential whose session it is there (``owned … all``: an identical copy
pushed with another credential; trial 43a F6); an answer that it lacks records of it (``part``) never does
(:func:`not_accepted`). The session's line says where its records are (:func:`held_said`), its skeletons too
(``removed.elsewhere``, ``removed.owned``).

A session goes whole, in a crash-safe order, under its collector lock and
``_export/.lock``: ``<session>/removal.state`` records the generation and
time first; then, file by file, the skeleton is written (fsynced, read-only)
before the landed file is deleted, so a crash leaves the landed file, both
(a reader reads the landed file), or the skeleton; the next run resumes
with the same generation. Then ``index/`` is deleted (rebuilt from the
skeletons: the same entries), then the removed text is taken out of the
derived files under ``_index/`` (:mod:`asz_core.reading.purge`: the search
index's rows and the stored summaries, wiped from the files), and
``removal.state`` last. A session holding a ``removal.state`` is finished
by the next run whatever the configuration says now (it was decided).
Rounds stay: the structure rebuilds from the skeletons identically.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import attrs
import orjson

from ..export.settings import RetentionConfig, default_instance_id
from ..export.state import PushState, held_elsewhere, held_owned, held_there, owner_of, receiver_answer, state_of
from ..flow.chain import Chain, SessionChains, conversation_dirs
from ..flow.index import IndexBuildError, update_index
from ..reading.purge import REMOVAL_STATE  # the per-session file marking a removal in progress (generation, at)
from ..sessiondata.times import format_rfc3339, parse_instant
from ..storage.landed_count import landed_changed
from ..storage.layout import landed_files, session_dirs
from ..storage.root import read_state, session_lock, write_state
from ..sessiondata.reader import header_line
from ..sessiondata.nolink import LinkRefused, link_said
from ..sessiondata.skeleton import skeleton_path, write_skeleton
from ..termsafe import shell_word

__all__ = ["PruneReport", "SessionPlan", "held_said", "plan_sessions", "prune", "REMOVAL_STATE", "NO_ENDPOINT"]

#: Why nothing goes with ``require_accepted`` when no endpoint is configured (a session's ``kept`` reason, and the note
#: ``asz prune`` says once).
NO_ENDPOINT = ("export.otlp.endpoint is not set: with storage.retention.require_accepted (the default) retention removes "
               "only sessions the configured endpoint accepted, and a push to another one (asz push --endpoint) does not "
               "count; set it to the team receiver (docs/push.md, Retention)")



@attrs.define
class SessionPlan:
    """What retention decided for one session: ``remove`` or the ``reason`` it is kept, its ``files`` (root-relative)."""

    session: str
    remove: bool
    reason: str = ""
    files: list[str] = attrs.Factory(list)
    last_activity: str = ""
    conversations: list[str] = attrs.Factory(list)


@attrs.define
class PruneReport:
    """Sessions removed (``removed``), files that became skeletons (``files``) and their size before (``bytes``),
    sessions kept with a reason; ``held``: session -> where the receiver holds the records of its files it refused
    (:func:`held_said`), for a removed session holding such files."""

    removed: list[str] = attrs.Factory(list)
    held: dict[str, str] = attrs.Factory(dict)
    files: int = 0
    bytes: int = 0
    kept: list[SessionPlan] = attrs.Factory(list)
    problems: list[str] = attrs.Factory(list)
    #: staging an adapter keeps beside the landed files (LangSmith's ``done/``) deleted: files, their bytes, and why
    #: what was old enough stayed (:meth:`~asz_core.plugins.adapter.Adapter.prune_staging`)
    staging_files: int = 0
    staging_bytes: int = 0
    staging_kept: list[str] = attrs.Factory(list)


def _heads(root: Path) -> dict[str, list[dict]]:
    """Per session, the head round header of each of its conversations (and its round files, root-relative). Raises
    ValueError when a conversation's rounds folder is a symbolic link: its sessions cannot be told without entering
    it, so nothing is pruned until it is put back (review48: a traceback, LinkRefused, removing nothing)."""
    out: dict[str, list[dict]] = {}
    for cdir in conversation_dirs(root):
        try:
            files = Chain.at(cdir).round_files()
        except LinkRefused as exc:
            raise ValueError(f"{link_said(exc.filename, 'the rounds folder')}; nothing is pruned while a conversation's "
                             f"rounds are read through a link (the sessions they chain cannot be told): asz verify --root "
                             f"{shell_word(root)} names it") from None
        if not files:
            continue
        with open(files[-1].path, "rb") as f:
            head = orjson.loads(f.readline())
        head["_rounds"] = [rf.path.relative_to(root).as_posix() for rf in files]
        head["_conversation"] = cdir.name
        out.setdefault(str(head.get("session") or cdir.name), []).append(head)
    return out


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


def not_accepted(root: Path, state: PushState, rels: list[str], rounds: list[str]) -> list[str]:
    """The landed files ``rels`` and rounds ``rounds`` of a session the receiver has not accepted
    (:func:`~asz_core.export.state.receiver_answer`). A session whose landed files the receiver holds, some of them
    refused because it holds every record of each already (from another root: ``elsewhere … all`` in ``push.state``,
    trial 19 F4; in the files of the credential whose session it is there: ``owned … all``, trial 43a F6) has its
    records there under the other root's or credential's files, and its rounds there are that chain: this root's
    rounds, refused or held back with those files, are not asked for. A ``part`` line (the receiver holds some records
    of that file only) is no such answer: the rounds are asked for then."""
    bad = [r for r in rels if receiver_answer(state, r, _digest(root / r)) != "accepted"]
    sessions = {r.split("/", 1)[0] for r in rels}  # its files removed before count too (trial 24a F2: an asz receiver
    # writes the rounds of the files that land after them itself, receive.assemble_held)
    # only an answer that it holds every record (``all``): a ``part`` one leaves records of it nowhere but here
    whole = [r for r, (h, _) in state.elsewhere.items() if h == "all"] + \
        [r for r, (_, h, _) in state.owned.items() if h == "all"]
    if not bad and any(r.split("/", 1)[0] in sessions for r in whole):
        return []
    return bad + [r for r in rounds if receiver_answer(state, r, _digest(root / r)) != "accepted"]


def held_said(root: Path, state: PushState, rels: list[str]) -> str:
    """Where the receiver of ``state`` holds the records of the landed files ``rels`` (root-relative, still in the root)
    it refused because it holds every one already (:func:`~asz_core.export.state.held_there`), as ``asz prune`` says it
    beside the session (trial 43a F6): ``ENDPOINT holds every record of its N file(s) in the files of credential
    NAME, which sent the session first`` (``owned … all``), ``… from another root`` (``elsewhere … all``), or both
    counted apart; '' when it refused none so."""
    by: dict[str, list[str]] = {}
    for rel in rels:
        if rel in state.rejected and (root / rel).is_file():
            how, where = held_there(state, rel, _digest(root / rel))
            if how:
                by.setdefault(how, []).append(where)
    said = []
    if owners := by.get("owned"):
        said.append(f"{len(owners)} file(s) in the files of credential {', '.join(sorted(set(owners)))}, which sent "
                    "the session first")
    if others := by.get("elsewhere"):
        said.append(f"{len(others)} file(s) from another root")
    return f"{state.endpoint} holds every record of its {' and of its '.join(said)}" if said else ""


def _observed_last(root: Path, conversations: list[str]) -> int:
    """The last activity (unix ns, 0 when none) of conversations none of whose records has a time (a session of
    ``asz hook``'s execution records only): their list rows' ``to``, the observations' own times, which ``asz ls``
    gives as LAST ACTIVITY (:meth:`~asz_core.view.summary.DocumentView.recorded_range`; trial 39c F6: prune said
    ``last activity unknown`` for a session ``asz ls`` dated)."""
    from ..reading.listing import conversation_rows

    tos = [r["to"] for r in conversation_rows(root, ids=conversations) if isinstance(r.get("to"), int) and r["to"] > 0]
    return max(tos) * 1_000_000 if tos else 0


def plan_sessions(root: str | os.PathLike, cfg: RetentionConfig, *, endpoint: str = "",
                  now_ns: int | None = None) -> list[SessionPlan]:
    """Decide, for every session with landed files, whether retention removes it now (see the module doc):
    ``endpoint`` is the configured one as ``push.state`` spells it (:func:`~asz_core.export.push.endpoint_name`;
    '' when none is configured). Raises ValueError for a state file that does not read."""
    root = Path(root)
    now_ns = now_ns if now_ns is not None else time.time_ns()
    heads = _heads(root)
    state = state_of(root, endpoint)
    plans = []
    chains: SessionChains | None = None
    for sdir in session_dirs(root):
        files = landed_files(sdir)
        if not files and not (sdir / REMOVAL_STATE).exists():
            continue
        rels = [p.relative_to(root).as_posix() for _, p in files]
        plan = SessionPlan(sdir.name, False, files=rels)
        plans.append(plan)
        hs = heads.get(sdir.name, [])
        plan.conversations = [h["_conversation"] for h in hs]
        if (sdir / REMOVAL_STATE).exists():
            plan.remove = True  # a removal begun: finished whatever the configuration says now
            continue
        if cfg.after is None:
            plan.reason = "storage.retention.after is not set"
            continue
        if not hs:
            plan.reason = "no rounds: parse it first"
            continue
        last_seq = files[-1][0].seq if files else 0
        if any(int(h.get("through_seq", 0)) < last_seq for h in hs):
            plan.reason = f"its head round does not reach the last landed file (seq {last_seq}): parse it first"
            continue
        last = max((parse_instant(h.get("session_through_time")) or 0) for h in hs) or _observed_last(root, plan.conversations)
        plan.last_activity = format_rfc3339(last) if last else ""
        if not last or now_ns - last < cfg.after * 1e9:
            plan.reason = f"last activity {plan.last_activity or 'unknown'} is within storage.retention.after"
            continue
        if cfg.require_accepted:
            bad = not_accepted(root, state, rels, [r for h in hs for r in h["_rounds"]])
            if bad:
                plan.reason = unaccepted_reason(root, sdir, state, bad)
                continue
        # last, as the dearest check: a session that does not verify is never removed, accepted or not (push holds it
        # back; its skeletons would keep what changed; trial 15, F4)
        from ..verify import unverified  # loaded only when a session gets this far

        if chains is None:  # the root's chains, read once for every session checked (not once a session)
            chains = SessionChains(root)
        why = unverified(root, sdir.name, chains=chains)
        if why:
            plan.reason = f"it does not verify ({why}); asz verify --root {shell_word(root)} {shell_word(sdir.name)} names the problems"
            continue
        plan.remove = True
    return plans


def unaccepted_reason(root: Path, sdir: Path, state: PushState, bad: list[str]) -> str:
    """Why a session with files ``bad`` the configured endpoint (``state``'s, '' when none is configured) did not
    accept is kept, in words that fit the root (trial 22a, F20; trial 41a F2): files that endpoint has not accepted; a
    receiving root's session (``asz receive`` landed it: a sender record, no ``session.state``), which is the team's
    copy, not a copy awaiting a receiver; no endpoint configured (:data:`NO_ENDPOINT`); nothing pushed there (only to
    another endpoint, or nowhere: no ``push.state``)."""
    if state.pushed:
        return f"{len(bad)} file(s) {state.endpoint} (export.otlp.endpoint) has not accepted (first: {bad[0]})"
    from ..storage.senders import senders_path

    if senders_path(root, sdir.name).is_file() and not (sdir / "session.state").exists():
        return ("asz receive landed it: this root is the receiver, the copy the pushing hosts' retention relies on, and "
                "it has pushed none of it to another receiver (no push.state); with require_accepted, retention removes "
                "only what another receiver accepted, so it is kept (storage.retention.require_accepted: false would "
                "remove it, leaving no copy)")
    if not state.endpoint:
        return NO_ENDPOINT
    if (root / "push.state").is_file():
        return (f"nothing of this root was pushed to {state.endpoint} (export.otlp.endpoint): it holds none of its "
                f"{len(bad)} file(s), and a push to another endpoint does not count (asz push sends them there)")
    return (f"nothing of this root was pushed (no push.state): {state.endpoint} holds none of its {len(bad)} file(s) "
            "yet; with require_accepted, retention removes only what the configured endpoint accepted (asz push sends "
            "them)")


def _forget_text(root: Path, cids: list[str]) -> None:
    """Take the removed sessions' text out of ``_index/`` (:mod:`asz_core.reading.purge`); the search index files of
    other asz versions (:func:`~asz_core.reading.search.other_indexes`), which this asz does not write, are deleted
    whole (derived data: the version that reads one builds it again from what is left). Raises OSError when a
    derived file exists and cannot be written (``removal.state`` then stays, and the next run tries again)."""
    import sqlite3

    from ..reading.purge import forget_found, forget_named, forget_summaries
    from ..reading.search import SearchError, index_path, other_indexes, update_index as update_search

    if not cids:
        return
    try:
        # a summary of theirs titled another conversation (trial 41c F2): its rows held that text too
        cids = sorted(set(cids) | forget_named(root, cids))
        if index_path(root).is_file():
            update_search(root, conversations=cids, purge=True)
        for other in other_indexes(root):  # another asz version's search index holds the text too: it builds it again
            for p in (other, other.with_name(other.name + "-wal"), other.with_name(other.name + "-shm")):
                p.unlink(missing_ok=True)
        forget_summaries(root, cids)
        forget_found(root, cids)
    except (SearchError, sqlite3.Error) as exc:
        raise OSError(f"the derived files under _index/ still hold its text: {exc}") from None


def metered_data(dialect: str, data) -> object:
    """What of a data part (decoded) of ``dialect`` its adapter keeps in a skeleton for its usage figures
    (:meth:`asz_core.Adapter.metered_data`: Kiro's credits and turns; trial 29a F2), None when it keeps nothing, no
    adapter speaks the dialect, or the adapter does not override the method. Raises what the adapter's method raises:
    the skeleton's writer, which calls it part by part, keeps nothing for that part
    (:func:`~asz_core.sessiondata.skeleton.skeleton_bytes`' ``keep``)."""
    from ..plugins.manager import adapter_overriding

    a = adapter_overriding(dialect, "metered_data")
    return None if a is None else a.metered_data(dialect, data)


def fixed_wording(dialect: str, text: str) -> str | None:
    """What of ``text`` a skeleton keeps as the runtime's fixed wording, read by the adapter of ``dialect``: ``text``
    whole when it is all fixed wording (:meth:`asz_core.Adapter.fixed_wording`: Claude Code's interrupt notice, its
    answer to a refused call with no reason; trial 47a F1, F2), else its fixed lead when what follows is someone's
    words (:meth:`asz_core.Adapter.fixed_prefix`: that answer before the person's reason), else None (also when no
    adapter speaks the dialect or it overrides neither method). Raises what the adapter's methods raise (the
    skeleton's writer then keeps nothing of that part)."""
    from ..plugins.manager import adapter_overriding

    a = adapter_overriding(dialect, "fixed_wording")
    if a is not None and a.fixed_wording(dialect, text) is True:
        return text
    a = adapter_overriding(dialect, "fixed_prefix")
    lead = a.fixed_prefix(dialect, text) if a is not None else None
    return lead if isinstance(lead, str) and lead and text.startswith(lead) else None


def _remove_session(root: Path, plan: SessionPlan, state: PushState, owner: str) -> int:
    sdir = root / plan.session
    marker = sdir / REMOVAL_STATE
    st = read_state(marker)
    if "generation" not in st:
        gens = [0]
        for ln, p in landed_files(sdir, skeletons=True):
            if p.suffix == ".sk":
                gens.append(int(orjson.loads(header_line(p))["removed"].get("generation", 0)))
        st = {"generation": str(max(gens) + 1), "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        write_state(marker, [("generation", st["generation"]), ("at", st["at"])])
    n = 0
    for _, p in landed_files(sdir):
        rel = p.relative_to(root).as_posix()
        digest = _digest(p)
        write_skeleton(p, at=st["at"], generation=int(st["generation"]), receiver=receiver_answer(state, rel, digest), owner=owner,
                       elsewhere=held_elsewhere(state, rel, digest), owned=held_owned(state, rel, digest), keep=metered_data,
                       fixed=fixed_wording)
        if os.name == "nt":  # a read-only file is not removed there; on POSIX the folder's mode decides, and a
            os.chmod(p, 0o644)  # SIGTERM between a chmod and the unlink left a writable landed file (test_sigterm)
        p.unlink()
        n += 1
    shutil.rmtree(sdir / "index", ignore_errors=True)
    try:
        update_index(sdir)  # the same entries, now read from the skeletons
    except IndexBuildError:
        pass  # derived: the next parse says what does not read
    return n  # removal.state goes once the text is out of _index/ too (prune)


def _size(root: Path, files: list[str]) -> int:
    """Bytes of the root-relative ``files`` (one gone since it was listed counts 0)."""
    n = 0
    for rel in files:
        try:
            n += (root / rel).stat().st_size
        except OSError:
            pass
    return n


def prune(root: str | os.PathLike, cfg: RetentionConfig, *, endpoint: str = "", dry_run: bool = False,
          instance_id: str = "", now_ns: int | None = None) -> PruneReport:
    """Apply retention to ``root`` once; returns the :class:`PruneReport`.

    ``endpoint``: the configured endpoint (``export.otlp.endpoint`` as
    :func:`~asz_core.export.push.endpoint_name` spells it; '' when none), the
    one whose acceptance counts and whom the skeletons name as owner.
    ``dry_run`` decides without changing anything. Raises LockBusy when
    another pusher or pruner holds ``_export/.lock``, ValueError for a state
    file that does not read.
    """
    from ..export.push import export_lock

    root = Path(root)
    rep = PruneReport()
    with export_lock(root):
        state = state_of(root, endpoint)
        owner = owner_of(endpoint, instance_id or default_instance_id())
        done: list[SessionPlan] = []
        landed_changed()  # skeletons stand for landed files from here on (view.named_titles reads the root again)
        try:
            _remove_planned(root, cfg, rep, done, state, owner, dry_run, now_ns)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: what went is said (a session being removed is finished next run)
            _drop_own_temporaries(root)
            raise PruneInterrupted(rep) from None
        try:
            _forget_text(root, [c for p in done for c in (p.conversations or [p.session])])
        except OSError as exc:
            rep.problems.append(f"{', '.join(p.session for p in done)}: {exc}; finished by the next run")
            return rep
        for p in done:
            (root / p.session / REMOVAL_STATE).unlink(missing_ok=True)
        _prune_staging(root, cfg, rep, dry_run, now_ns)
    return rep


def _drop_own_temporaries(root: Path) -> None:
    """Remove the skeletons' temporaries this process left (``.NAME.sk.PID.tmp``): a stop's signal arriving between
    :func:`~asz_core.sessiondata.durable.write_once`'s ``finally`` and its unlink leaves one (the full suite of
    session 35, once). Each is a copy never linked: nothing landed is touched."""
    for tmp in root.glob(f"*/streams/*/.*.sk.{os.getpid()}.tmp"):
        tmp.unlink(missing_ok=True)


class PruneInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped a prune: ``report`` holds the sessions removed whole before it (a session it was
    removing keeps its removal state, ``REMOVAL_STATE``, and the next ``asz prune`` finishes it)."""

    def __init__(self, report: PruneReport):
        super().__init__()
        self.report = report


def _remove_planned(root: Path, cfg: RetentionConfig, rep: PruneReport, done: list, state, owner: str, dry_run: bool,
                    now_ns: int | None) -> None:
    """The sessions :func:`plan_sessions` plans, each kept (``rep.kept``) or removed under its session lock (``rep``'s
    counts, and ``done``; with ``dry_run`` only counted)."""
    from ..storage.root import LockBusy

    for plan in plan_sessions(root, cfg, endpoint=state.endpoint, now_ns=now_ns):
        if not plan.remove:
            rep.kept.append(plan)
            continue
        size = _size(root, plan.files)
        if said := held_said(root, state, plan.files):
            rep.held[plan.session] = said
        if dry_run:
            rep.removed.append(plan.session)
            rep.files += len(plan.files)
            rep.bytes += size
            continue
        try:
            with session_lock(root, plan.session):
                rep.files += _remove_session(root, plan, state, owner)
            rep.bytes += size
            rep.removed.append(plan.session)
            done.append(plan)
        except LockBusy as exc:
            rep.problems.append(f"{plan.session}: a collector holds it ({exc.path}); kept for the next run")
        except (OSError, ValueError) as exc:
            rep.problems.append(f"{plan.session}: {exc}")


def _prune_staging(root: Path, cfg: RetentionConfig, rep: PruneReport, dry_run: bool, now_ns: int | None) -> None:
    """Each adapter's staging older than ``storage.retention.after`` that has landed (its ``prune_staging``), added
    to ``rep``; nothing when ``after`` is not set. An adapter's OSError is a problem of the run, the others go on."""
    if cfg.after is None:
        return
    from ..plugins.manager import get_plugin_manager

    before = (now_ns if now_ns is not None else time.time_ns()) - int(cfg.after * 1e9)
    for name, adapter in sorted(get_plugin_manager().adapters().items()):
        try:
            files, size, kept = adapter.prune_staging(root, before, dry_run)
        except OSError as exc:
            rep.problems.append(f"{name} staging: {exc}; kept for the next run")
            continue
        rep.staging_files, rep.staging_bytes = rep.staging_files + files, rep.staging_bytes + size
        rep.staging_kept += kept
