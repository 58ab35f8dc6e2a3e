"""``asz receive``: an OTLP logs receiver that lands what ``asz push`` sends into a storage root (issue 21; §8.4).

gRPC and HTTP/protobuf share one port. A front listener reads the first
bytes of each connection without consuming them: a connection that opens
with the HTTP/2 client preface (``PRI * HTTP/2.0``, what a gRPC client sends
on a plain-text channel) is relayed byte for byte to a grpcio server bound to
an ephemeral loopback port inside the same process; any other connection is
HTTP/1.1, served right there (``POST /v1/logs``, ``POST /v1/metrics``, body
``application/x-protobuf``). One process, one port, and grpcio speaks the
gRPC protocol (the official ``opentelemetry-proto`` service definitions). The
front, its HTTP handler, timeouts and connection cap: :mod:`.receive_http`.
With a token file of named credentials, a session's files land only from the
credential that sent its first (:mod:`.owners`).

Each log record lands at the path its ``asz.file`` attribute names after
its body's SHA-256 is checked against ``asz.file.digest``
(:func:`.land.land`). A record that is refused (a mismatch, a path outside
the root or not shaped like a landed file or round, another file already
at the path) is counted in the answer's partial success, whose
``error_message`` names each refused path and why; nothing of it is written.
Metrics requests are answered (accepted) and not kept: a receiving root
derives its own from the files. With a token, every request must carry
``Authorization: Bearer <token>`` (gRPC: ``authorization`` metadata, checked before the call's message is
received: :mod:`.receive_grpc`); without
it HTTP answers 401 and gRPC UNAUTHENTICATED, saying ``a bearer token is
required`` when the request carried no ``Authorization``, and ``the bearer
token does not match`` when it carried another (a new user's wrong token was
told one is required; the token itself is never echoed).
"""

from __future__ import annotations

import hmac
import os
import sys
import threading
import time
from concurrent import futures
from pathlib import Path
from typing import TextIO

import grpc
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

from .admit import HOLDS_ALL, LACKS, landed_seq
from .land import Refused, clear_dead_temporaries, index_sessions, land
from .owners import CANNOT_ADD, OWNED_AT, STOPPING, Busy, one_at_a_time, owned_by, release, sessions_of
from .receive_grpc import LogsServicer, MetricsServicer, Running, TokenCheck, stop_calls
from .receive_http import DRAIN, MAX_BODY, Front, Server
from .receive_record import complete_left, record_before, record_landed, record_senders, unacknowledged
from .receive_refused import cannot_write, reads_no_refused, reads_only_held
from .receive_seen import METRICS, PROBES, Summed, attrs_of, request_files, seen_request
from .wire import ASSEMBLE, REPLACES, REREAD, REST, ROOT_ID
from ..logstamp import log_stamp
from ..termsafe import EscapingStream, line_value
from ..storage.erased_list import erased_refusal
from ..storage.landing import clear_left
from ..storage.seen_list import ACCEPTED, Seen
from ..storage.senders import instance_word

__all__ = ["Receiver", "RootUnusable", "answer_logs", "DEFAULT_LISTEN", "BUSY", "WORKERS"]

#: What the receiver's summed line says of the requests answered busy (:class:`~asz_core.export.owners.Busy`).
BUSY = ("answered {n} request(s) busy, nothing of them landed (their session's turn did not come soon, or the receiver "
        "was stopping): their senders send them again after Retry-After")
#: The receiver's gRPC workers (its inner server's thread pool).
WORKERS = 8

#: Where ``asz receive`` listens when not told: loopback, the OTLP gRPC port.
DEFAULT_LISTEN = "127.0.0.1:4317"
_MAX_MESSAGE = MAX_BODY


def said(err: TextIO | None, line: str) -> None:
    """One line of what the receiver did, ``[HH:MM:SS] LINE`` (local time), on ``err`` (nothing when None): one line
    whatever a sender put in it (:func:`~asz_core.termsafe.line_value`: a newline or U+2028 in an instance id or a path
    as ``\\n``, ``\\u2028``, a zero-width character as ``\\u200b``), so no sender writes a line of the log or hides
    a character in it (review34, after trial 34c F3)."""
    if err is not None:
        print(f"{log_stamp()} {line_value(line)}", file=err, flush=True)


def answer_logs(root: Path, req: ExportLogsServiceRequest, err: TextIO | None = None,
                quiet: bool = False, credential: str | None = None,
                receiver: "Receiver | None" = None) -> ExportLogsServiceResponse:
    """:func:`_answer_logs`, announced to readers while it lands (:func:`asz_core.storage.landing.landing`: a reader's
    :func:`~asz_core.storage.landing.settle` waits for it to give its files their list and sender lines), and held
    open for a stopping ``asz receive`` (:func:`asz_core.sessiondata.durable.held_open`: its files and their sender
    lines are one pair, which the process waits for as it ends, ``durable.settle``). Raises
    :class:`~asz_core.export.owners.Busy`, nothing of the request landed, when its sessions' turn does not come soon
    (:func:`~asz_core.export.owners.one_at_a_time`), when the receiver began to stop while it waited, or when its turn
    came once the process was stopping (``durable.settle`` called: the :class:`~asz_core.sessiondata.durable.StopBeforePair`
    of a pair not begun): each answered as busy, so the sender sends it again (close43, "Not done"; fix44a)."""
    from ..sessiondata.durable import StopBeforePair, held_open, stopping
    from ..storage.landed_count import landed_changed
    from ..storage.landing import landing

    sessions = {s for rl in req.resource_logs for sl in rl.scope_logs for rec in sl.log_records
                for s in _sessions(root, *_file_of(rec)[1:])} if credential else set()
    closing = (lambda: stopping() or receiver.closing.is_set()) if receiver is not None else stopping
    with one_at_a_time(root, sessions, credential, closing):  # 43a F1: a session at a time; else Busy (fix44a)
        try:
            opened = held_open(stop_first=True)
            opened.__enter__()
        except StopBeforePair:  # its turn came once the receiver was stopping: nothing of it begun (close43)
            raise Busy(STOPPING) from None
        try:
            with landing(root) as journal:
                _intend(journal, root, req, credential)  # who sends each file, durable before it lands (trial 45c F1)
                return _answer_logs(root, req, err, quiet, credential, receiver)
        finally:
            opened.__exit__(None, None, None)
            if req.resource_logs:  # a reader in this process (asz server, a test) reads the root's labels again; the
                landed_changed(request_files(req))  # list-row keeper counts the conversations of these files again


def _intend(journal, root: Path, req: ExportLogsServiceRequest, credential: str | None) -> None:
    """Write in the request's ``journal`` (:class:`~asz_core.storage.landing.Journal`) the sender line each file of
    ``req`` is to get, before any lands; a journal the root cannot take is left to the request's writes to say."""
    from ..sessiondata.times import format_rfc3339

    at = format_rfc3339(time.time_ns())
    try:
        journal.intend([{"file": rel, "sha256": str(a.get("asz.file.digest") or "").lower(), "received_at": at,
                         **_who(attrs_of(rl.resource), credential)} for rl in req.resource_logs for sl in rl.scope_logs
                        for a, rel, data in map(_file_of, sl.log_records) if isinstance(rel, str) and data is not None])
    except OSError:
        pass


def _file_of(rec) -> tuple[dict, object, bytes | None]:
    """A log record's attributes, its ``asz.file`` (the path it lands at; not checked) and its body's bytes (None: no
    bytes or string body)."""
    a = attrs_of(rec)
    which = rec.body.WhichOneof("value")
    data = rec.body.bytes_value if which == "bytes_value" else rec.body.string_value.encode("utf-8") if which == "string_value" else None
    return a, a.get("asz.file"), data


def _sessions(root: Path, rel: object, data: bytes | None) -> list[str]:
    """The sessions whose owner a file ``rel`` of bytes ``data`` is checked against (:func:`.owners.sessions_of`);
    ``[]`` for a record that is no file (refused as such)."""
    return sessions_of(root, rel, data) if isinstance(rel, str) and data is not None else []


def _answer_logs(root: Path, req: ExportLogsServiceRequest, err: TextIO | None = None,
                 quiet: bool = False, credential: str | None = None,
                 receiver: "Receiver | None" = None) -> ExportLogsServiceResponse:
    """Land every record of ``req`` in ``root``; the answer counts and names what was refused. On ``err``: one line
    per request, ``[HH:MM:SS] logs: N file(s): L landed, S already there, R rejected, H held`` (left out when
    ``quiet``; ``H``: refused only as held here whole from another root, the pusher's ``held``), then ``rejected PATH: why`` (or ``held PATH: why``) for each file refused
    (always); ``; from INSTANCE (credential NAME)`` ends the line when the request held records (the resource's
    ``service.instance.id``). With a ``receiver``: counted in its seen list (:func:`seen_request`), and a request with
    no record (a probe) has no line but a count in its summed line (:func:`_answered`). Each landed file gets its line in the root's
    sender record (:mod:`asz_core.storage.senders`): the resource's ``service.instance.id`` and ``service.name``,
    ``credential`` (the token file's name of the token the request carried; None: no name) and the time."""
    refused: list[str] = []
    landed = same = 0
    refused_seqs: dict[str, dict[int, str]] = {}  # session directory -> seq -> path of a landed file refused here
    written: list[str] = []
    sent_by: list[dict] = []
    again: list[dict] = []  # files already there: a line only when the record lacks one (landed, then a crash)
    senders: set[str] = set()
    assemble: dict[str, str | None] = {}  # sessions whose sending root's rounds cannot follow the chain here
    # (assemble_held) -> the instance that sent the request's file of it
    names = seen_request(receiver, ACCEPTED, req, credential)  # as it arrived: before its files' received_at
    claimed: set[tuple[str, str]] = set()  # (root, session) this request's credential took first (owned_by)
    held_rels: set[str] = set()  # refused only as held here whole (HOLDS_ALL); a round reading only such is held too
    held_by: dict[tuple, int] = {}  # (session directory, instance, service) -> its files refused as held here whole
    for rl in req.resource_logs:
        res = attrs_of(rl.resource)
        who = _who(res, credential)
        if rl.scope_logs:
            senders.add(instance_word(str(who["instance"])) if who["instance"] is not None else "(no service.instance.id)")
        for sl in rl.scope_logs:
            for rec in sl.log_records:
                a, rel, data = _file_of(rec)
                try:
                    if not isinstance(rel, str) or data is None:
                        raise Refused(f"{rel or '(no asz.file)'}: a record without asz.file or a body is not a file")
                    reads_no_refused(rel, data, refused_seqs, erased_refusal(root, rel), refused)  # docs/push.md
                    owned_by(root, rel, data, credential, claimed)
                    replaces = a.get(REPLACES)
                    if a.get(ASSEMBLE) == "elsewhere" and not rel.startswith("_"):
                        assemble[rel.split("/", 1)[0]] = who["instance"]
                    if land(root, rel, str(a.get("asz.file.digest") or ""), data,
                            replaces=replaces if isinstance(replaces, str) else None,
                            instance=str(who["instance"]) if who["instance"] is not None else None,
                            sent_now=frozenset(e["file"] for e in sent_by if e["instance"] == who["instance"]),
                            rest=a.get(REST) is not None, reread=_seq(a.get(REREAD))):
                        landed += 1
                        written.append(rel)
                        sent_by.append({"file": rel, "sha256": str(a.get("asz.file.digest")).lower(), **who})
                    else:
                        same += 1
                        again.append({"file": rel, "sha256": str(a.get("asz.file.digest")).lower(), **who})
                except Refused as exc:
                    refused.append(f"rejected {exc}")
                    at = landed_seq(rel) if isinstance(rel, str) else None
                    if at is not None:
                        refused_seqs.setdefault(at[0], {})[at[1]] = rel
                        if HOLDS_ALL in str(exc):  # held here whole (the pusher's held=): who else holds it is kept
                            held_rels.add(rel)
                            held_by[k] = held_by.get(k := (at[0], who["instance"], who["service"]), 0) + 1
                            refused[-1] = "held" + refused[-1][len("rejected"):]
                        if HOLDS_ALL in str(exc):  # held here whole: a short listing of it ends (trial 43a F1)
                            if OWNED_AT not in str(exc):  # its records are here from another root: so are its rounds' places
                                assemble[at[0]] = who["instance"]
                            _short(root, at[0], rel, "", who["instance"], err, held=True)
                        elif OWNED_AT in str(exc) or LACKS in str(exc):  # short when it lacks (another credential's
                            _short(root, at[0], rel, str(exc), who["instance"], err)  # session: trial 28a F2)
                    elif reads_only_held(rel, data, refused_seqs, held_rels):  # as the pusher counts it (held_whole)
                        refused[-1] = "held" + refused[-1][len("rejected"):]
                except OSError as exc:  # this root's fault (disk full), not the file's: retryable (trial 34b F1)
                    refused.append(cannot_write(rel, exc))
    try:
        unrecorded = _recorded(root, written, sent_by, again, assemble, err)
    finally:
        release(claimed)  # the sender record holds what landed: the next request reads the owner there
    counts = unacknowledged(unrecorded, written, again, refused, (landed, same))  # trial 41a F1
    return _answered(receiver, err, quiet, credential, names, senders, counts, refused, held_by)


def _who(res: dict, credential: str | None) -> dict:
    """Who sent a resource's records (``res``: its attributes): ``instance`` and ``service`` (its
    ``service.instance.id`` and ``service.name``, None when absent), ``credential``, and ``root`` when it names its
    sending root (``asz.root.id``, :func:`_root_id`; trial 34b F3: none from a pusher before 2026-12-06)."""
    who = {"instance": res.get("service.instance.id"), "service": res.get("service.name"), "credential": credential}
    return {**who, "root": res[ROOT_ID]} if _root_id(res.get(ROOT_ID)) else who


def _root_id(value: object) -> bool:
    """True when ``value`` (a resource's ``asz.root.id``) is a root id as asz makes them, 32 lower-case hex digits;
    anything else is not kept (a sender's word: nothing of it reaches a reader's terminal)."""
    return isinstance(value, str) and len(value) == 32 and all(c in "0123456789abcdef" for c in value)


def _seq(value: object) -> int:
    """A record's ``asz.reread`` as a seq (an int above 0), else 0 (absent, or not a seq: ignored)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _answered(receiver: "Receiver | None", err: TextIO | None, quiet: bool, credential: str | None, names: list[str],
              senders: set[str], counts: tuple[int, int], refused: list[str],
              held_by: dict[tuple, int]) -> ExportLogsServiceResponse:
    """The end of :func:`_answer_logs`: the held lines of the seen list (``held_by``: (session directory, instance,
    service) -> files refused as held here whole), the request's line (or, for a request with no file, its count in
    the receiver's summed line) and the per-file lines on ``err``, and the answer: ``counts`` (landed, already there);
    ``refused`` each file's ``rejected PATH: why`` or ``held PATH: why``."""
    landed, same = counts
    held_n = sum(r.startswith("held ") for r in refused)
    for (session, inst, service), n in sorted(held_by.items(), key=str) if receiver is not None else ():
        receiver.seen.held(session, n, inst if isinstance(inst, str) else None,
                           service if isinstance(service, str) else None, credential)
    if receiver is not None and not landed + same + len(refused):
        if not quiet:
            receiver.summed.add(PROBES, names=names, credential=credential)
    elif not quiet:
        by = f"; from {', '.join(sorted(senders))}" + (f" (credential {instance_word(credential)})" if credential else
                                                       "") if senders else ""
        said(err, f"logs: {landed + same + len(refused)} file(s): {landed} landed, {same} already there, "
                  f"{len(refused) - held_n} rejected, {held_n} held{by}")
    resp = ExportLogsServiceResponse()
    if refused:
        resp.partial_success.rejected_log_records = len(refused)
        # the pusher reads ``rejected PATH:`` for each file refused, held ones too (it tells them apart itself)
        resp.partial_success.error_message = "; ".join("rejected" + r[len("held"):] if r.startswith("held ") else r
                                                       for r in refused)
        if err is not None:
            for line in refused:  # each names a path the sender chose: one line (review34)
                print(line_value(line), file=err, flush=True)
    return resp


def _recorded(root: Path, written: list[str], sent_by: list[dict], again: list[dict], assemble: dict[str, str | None],
              err: TextIO | None) -> dict[str, str]:
    """After a request's files: the landed ones (``written``, root-relative paths) indexed and listed, their senders'
    lines (``sent_by``) kept, and a line for each file already there whose record lacks one (``again``); then each
    session of ``assemble`` (session -> the instance whose file of it asked) assembled here (:func:`assemble_held`,
    given the seqs this request landed and that instance). Returns the files of ``written`` and ``again`` whose
    landing could not be recorded (their sender line, their session's index or look for continuations: a full disk)
    -> why: the answer refuses them as retryable (:data:`.admit.RETRY_RECORD`; trial 41a F1). Raises OSError from the
    writes."""
    failed: dict[str, str] = {}
    if written:
        unindexed = index_sessions(root, written)
        failed.update((r, f"its session's index could not be written: {unindexed[r.split('/', 1)[0]]}")
                      for r in written if r.split("/", 1)[0] in unindexed)
        record_landed(root, written, err)
        failed.update(record_senders(root, sent_by, err))
    if again:
        failed.update(record_senders(root, again, err, unless_named=True))
    # a session continuing another that its sending root did not hold (trial 28a F1); a request with no file looks at
    # none, but the first of a process lists again the pairs an older receiver listed without ids (docs/push.md)
    from .continued import find_twice

    mine = written + [e["file"] for e in again]
    unlooked = find_twice(root, sorted({r.split("/", 1)[0] for r in mine if not r.startswith("_")}), err)
    for r in mine:
        if r.split("/", 1)[0] in unlooked:
            failed.setdefault(r, f"its session was not looked at for continuations: {unlooked[r.split('/', 1)[0]]}")
    now: dict[str, set[int]] = {}  # session -> the seqs landed by this request
    for r in written:
        if (at := landed_seq(r)) is not None:
            now.setdefault(at[0], set()).add(at[1])
    if assemble:
        assemble_held(root, sorted(assemble), err, now, assemble)
    return failed


def _short(root: Path, session: str, rel: str, why: str, instance, err: TextIO | None, held: bool = False) -> None:
    """A refused file holding records this root lacks (``this root lacks N of its M record(s)`` in ``why``): listed in
    ``_received/short.list`` (:mod:`asz_core.storage.short_list`), so this root's verify and ls say the session is
    short (trial 24a F3); one refused because its session is another credential's (:data:`.owners.OWNED`) is listed with
    both names (trial 28a F2). ``held``: the file was refused as held here whole; when it is listed, a ``held`` line ends
    its listing (the sending root sent the rest of its stream since, or the session's owner landed every record of it:
    trial 43a F1). Never raises."""
    import re

    from ..sessiondata.times import format_rfc3339
    from ..storage.short_list import record_held, record_short

    m = re.search(LACKS + r" (\d+) of its (\d+) record", why)
    if m is None and not held:
        return
    owner = re.search(re.escape(OWNED_AT) + r"(\S+?)" + re.escape(CANNOT_ADD) + r"(\S+) ", why)
    try:
        if held:
            record_held(root, session, rel, format_rfc3339(time.time_ns()))
        else:
            record_short(root, session, rel, int(m.group(1)), int(m.group(2)),
                         str(instance) if instance is not None else None, format_rfc3339(time.time_ns()),
                         owner=owner.groups() if owner is not None else None)
    except OSError as exc:
        if err is not None:
            print(f"error: {root}/_received/short.list: cannot list {rel} as holding records this root lacks: "
                  f"{exc.strerror or exc}", file=err, flush=True)


_assemble_lock = threading.Lock()


def assemble_held(root: Path, sessions: list[str], err: TextIO | None, landed_now: dict[str, set[int]] | None = None,
                  instances: dict[str, str | None] | None = None) -> None:
    """Write the rounds of ``sessions`` here for the landed files no round reads (trial 24a F1). They are sessions
    whose sending root's rounds cannot follow the chain here: it sent a file marked :data:`.wire.ASSEMBLE` (the
    receiver holds earlier files of the session from another root, a root re-made or lost and collected again), or
    one this request refused as held here whole. That root holds its rounds back for good (push.md, The same session
    in two roots), so without this no reader here counts its new files. Only a session whose chain here reads through
    a seq below the highest landed (:func:`~asz_core.verify.unparsed.lagging_sessions`), or that has landed files and
    no chain at all (its old root sent no round: collected with ``--no-parse``, or its push stopped between its files
    and its rounds, then lost), is parsed, that session alone (``asz parse SESSION``'s rule: nothing is written for
    another). One line on ``err`` per session assembled, or its problem. Never raises: the files are landed either
    way, and ``asz verify`` and ``asz ls`` say a file no round reads. Once ``asz receive`` is stopping (a parse not
    begun raises :class:`~asz_core.sessiondata.durable.StopBeforePair` in its request thread) the sessions left are said
    ``not assembled … asz receive is stopping`` and the request is answered: its files are taken, their rounds are the
    next pass's work (the session's next file sent here, or ``asz parse SESSION``), as after a crash; docs/push.md.

    ``landed_now``: session -> the seqs the request being answered landed. When given, a session is assembled only
    when every seq its chain lacks landed now, or was sent by the instance that asked (``instances``: session -> the
    request's ``service.instance.id``, by the sender record): a seq another root landed before may have its round still
    to come (a push stopped between its files and its rounds), and a round written here over other windows would take
    its number, refused to that root for good; a seq the asking instance sent is its own lost root's, whose rounds
    will not come (push.md, A root re-made: one instance is taken for one root)."""
    from ..flow.parse import assembling_held, parse_root
    from ..verify.unparsed import lagging_sessions

    with _assemble_lock:
        for session in sessions:
            try:
                lag = lagging_sessions(root, session) or _unchained(root, session)
                if not lag:
                    continue
                lacks = _lacking(root, session, lag[0][1], (landed_now or {}).get(session, set()),
                                 (instances or {}).get(session))
                if landed_now is not None and lacks:
                    said(err, f"not assembled {session}: its seq {lag[0][1] + 1}-{lag[0][2]} were not all landed by this "
                              "request nor sent by its instance (the root that sent the others may still send their "
                              "rounds); asz verify names them")
                    continue
                with assembling_held():  # a sending root's chain: written here, that root sending none of it
                    rep = parse_root(root, [session], jobs=1, lock_timeout=30.0, keep_rounds=False)
            except KeyboardInterrupt:
                if not _stopped_here():
                    raise
                said(err, f"not assembled {', '.join(sessions[sessions.index(session):])}: asz receive is stopping "
                          "(its files are landed with their sender lines and answered as taken; asz verify names the "
                          "files no round reads until the session's next file sent here, or asz parse SESSION on "
                          "this root, writes its rounds)")
                return
            except Exception as exc:  # noqa: BLE001 - a round not written here is said, the files stay landed
                if err is not None:
                    print(f"error: {session}: its rounds for seq {lag[0][1] + 1 if lag else '?'} on were not assembled "
                          f"here: {type(exc).__name__}: {exc}", file=err, flush=True)
                continue
            for o in rep.outcomes:
                if o.problem and err is not None:
                    print(f"error: {o.session}: its rounds were not assembled here: {o.problem}", file=err, flush=True)
                elif o.rounds:
                    said(err, f"assembled {o.session}: round(s) {o.rounds[0].header.round}-{o.rounds[-1].header.round} "
                              f"read seq {lag[0][1] + 1}-{lag[0][2]}, landed here while the sending root holds its rounds "
                              "back (this root holds the session's earlier files from another root)")


def _stopped_here() -> bool:
    """True in a request thread of a stopping ``asz receive`` (:func:`asz_core.sessiondata.durable.settle` called):
    the KeyboardInterrupt there is :class:`~asz_core.sessiondata.durable.StopBeforePair` (or the parse's
    ``ParseInterrupted`` made of it), a pass not begun; in the main thread it is a real Ctrl-C."""
    from ..sessiondata.durable import stopping

    return stopping() and threading.current_thread() is not threading.main_thread()


def _unchained(root: Path, session: str) -> list[tuple[str, int, int]]:
    """``[(session, 0, highest seq)]`` when ``session`` has landed files here and no round (its sending root sent
    none); [] otherwise, and while a writer holds the session's lock (its parse follows its landing)."""
    from ..flow.pending import has_chain
    from ..storage.layout import dir_name, highest_landed_seq
    from ..storage.root import SESSION_LOCK, lock_taken

    sdir = root / dir_name(session)
    if has_chain(root, session) or lock_taken(sdir / SESSION_LOCK):
        return []
    top = highest_landed_seq(sdir)
    return [(session, 0, top)] if top else []


def _lacking(root: Path, session: str, through: int, now: set[int], instance: str | None) -> set[int]:
    """The seqs of ``session``'s landed files here above ``through`` (its chain's last seq read) that were not landed
    ``now`` nor sent by ``instance`` (the sender record names it for every file of the seq; None: no one). A seq this
    root never got (a sending root's file refused here, the rest of a stream landed above it: push.md) is not one."""
    from ..storage.layout import dir_name, session_listing
    from ..storage.senders import file_senders

    above: dict[int, list[str]] = {}
    for ln, p in session_listing(root / dir_name(session), skeletons=True).files:
        if ln.seq > through and ln.seq not in now:
            above.setdefault(ln.seq, []).append(Path(p).relative_to(root).as_posix())
    by = file_senders(root, dir_name(session)) if above and instance is not None else {}
    return {seq for seq, rels in above.items() if instance is None or not all(by.get(r) == instance for r in rels)}


#: Why a request is refused without a token, and with another one (HTTP 401 body, gRPC UNAUTHENTICATED details).
TOKEN_REQUIRED = "a bearer token is required"
TOKEN_MISMATCH = "the bearer token does not match"


class _Auth:
    """The tokens a receiver accepts: ``tokens`` credential name -> token ({'': TOKEN} for one unnamed token, {} none)."""

    def __init__(self, tokens: dict[str, str]):
        self.expected = [(name, f"Bearer {token}".encode()) for name, token in tokens.items() if token]

    def check(self, value: str | None) -> tuple[str, str | None]:
        """``(why, name)``: ``why`` '' when ``value`` (the request's ``Authorization``, None when absent) is accepted,
        else :data:`TOKEN_REQUIRED` (none sent) or :data:`TOKEN_MISMATCH` (another); ``name`` the accepted token's
        credential name (None: no token needed, or one unnamed). Every token is compared, each in the same time
        wherever the values differ (:func:`hmac.compare_digest`)."""
        if not self.expected:
            return "", None
        if not value:
            return TOKEN_REQUIRED, None
        got = value.encode("utf-8", "surrogateescape")
        hits = [name for name, want in self.expected if hmac.compare_digest(got, want)]
        return ("", hits[0] or None) if hits else (TOKEN_MISMATCH, None)

    def refusal(self, value: str | None) -> str:
        """'' when ``value`` is accepted, else why not (:meth:`check`)."""
        return self.check(value)[0]


class RootUnusable(Exception):
    """The receiving root cannot be used (:meth:`Receiver.start`): ``root`` (its path) and ``why`` (the system's words:
    ``not a folder``, ``Read-only file system``, ``Permission denied``, …)."""

    def __init__(self, root: Path, why: str):
        super().__init__(f"{root}: {why}")
        self.root, self.why = root, why


class Receiver:
    """The receiver of one root on ``listen`` (``HOST:PORT``; port 0 picks one). :meth:`start`, then
    :attr:`address`; :meth:`serve_forever` blocks; :meth:`stop` ends it. ``token`` '' = no token needed; a dict is
    credential name -> token (:func:`~asz_core.export.credentials.read_token_file`), each accepted, its name recorded
    with the files its requests land."""

    def __init__(self, root: str | os.PathLike, listen: str = DEFAULT_LISTEN, token: str | dict[str, str] = "",
                 err: TextIO | None = None, quiet: bool = False):
        self.root = Path(root)
        self.quiet = quiet  # no line for a request taken (refusals and rejections are still said)
        self.listen = listen
        self.auth = _Auth(token if isinstance(token, dict) else {"": token})
        # every line it writes has a sender's words (instance ids, paths) with their controls as escapes (trial 34c F3)
        self.err = EscapingStream(err if err is not None else sys.stderr)
        self.grpc_server: grpc.Server | None = None
        self.grpc_port = 0
        self.front: Server | None = None
        self._thread: threading.Thread | None = None
        self._pool: futures.ThreadPoolExecutor | None = None
        self.seen = Seen(self.root, err=self.err)  # _received/seen.list: the requests answered, by instance
        self.closing = threading.Event()  # set as stop() begins: a request waiting for its session's turn is busy
        self.running = Running()  # gRPC calls whose method runs: a stop waits for them (receive_grpc.stop_calls)
        self.summed = Summed(self.err)  # probes and metrics requests: one line a minute at most

    def metrics_said(self, req: ExportMetricsServiceRequest) -> None:
        """Count a metrics request in :attr:`summed` (its data points and the instances its resources name), said
        ``[HH:MM:SS] metrics: N request(s), P data point(s), answered and not kept; from …`` a minute at most, unless
        :attr:`quiet`."""
        if not self.quiet:
            n = sum(len(getattr(m, m.WhichOneof("data")).data_points) for rm in req.resource_metrics
                    for sm in rm.scope_metrics for m in sm.metrics if m.WhichOneof("data"))
            self.summed.add(METRICS, points=n, names=seen_request(None, ACCEPTED, req))

    def said_now(self, everything: bool = False) -> None:
        """Write what :attr:`seen` and :attr:`summed` hold back whose time came (``everything``: all of it, as the
        receiver stops). Called by the front's guard thread four times a second and as it ends. Never raises."""
        self.seen.flush(everything)
        self.summed.flush(everything)

    @property
    def address(self) -> str:
        """``HOST:PORT`` actually bound."""
        host, port = self.front.server_address[:2]  # type: ignore[union-attr]
        return f"{host}:{port}"

    def start(self) -> "Receiver":
        """Bind the front port, make the root ready and start the inner gRPC server. Raises OSError when the port
        cannot be bound (nothing made then: the port is bound first), :class:`RootUnusable` when the root cannot be
        made or written (a file there, a read-only mount, no write permission; trial 41a F4)."""
        host, _, port = self.listen.rpartition(":")
        host = host.strip("[]") or "127.0.0.1"
        self.front = Server((host, int(port)), Front, self)
        try:
            self._root_ready()
        except OSError as exc:
            self.front.server_close()
            self.front = None
            raise RootUnusable(self.root, exc.strerror or str(exc)) from exc
        opts = [("grpc.max_receive_message_length", _MAX_MESSAGE), ("grpc.max_send_message_length", _MAX_MESSAGE)]
        self._pool = futures.ThreadPoolExecutor(max_workers=WORKERS)
        self.grpc_server = grpc.server(self._pool, options=opts, interceptors=[TokenCheck(self)])  # the token first
        logs_service_pb2_grpc.add_LogsServiceServicer_to_server(LogsServicer(self), self.grpc_server)
        metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(MetricsServicer(self), self.grpc_server)
        self.grpc_port = self.grpc_server.add_insecure_port("127.0.0.1:0")
        self.grpc_server.start()
        return self

    def _root_ready(self) -> None:
        """Make the root (its parents too) and tidy what a receiver killed there left. Raises OSError: the root is a
        file (ENOTDIR), or it cannot be written (:func:`~asz_core.storage.frozen.unwritable_why`: a read-only mount,
        no write permission), so no file sent would land."""
        import errno

        from ..storage.frozen import unwritable_why

        if self.root.exists() and not self.root.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "not a folder")
        self.root.mkdir(parents=True, exist_ok=True)
        if why := unwritable_why(self.root):
            raise OSError(errno.EROFS if why == os.strerror(errno.EROFS) else errno.EACCES, why)
        record_landed(self.root, None, self.err)  # sessions a receiver landed and stopped before listing (a crash)
        record_before(self.root, self.err)
        complete_left(self.root, self.err)  # the sender lines a killed receiver's journals name (trial 45c F1)
        clear_left(self.root)  # the lock files of requests a killed receiver left (trial 34b F7)
        clear_dead_temporaries(self.root)  # and its half-written files (trial 39a F3)

    def serve_forever(self) -> None:
        """Serve until :meth:`stop` (or KeyboardInterrupt)."""
        self.front.serve_forever(poll_interval=0.2)  # type: ignore[union-attr]

    def serve_in_thread(self) -> "Receiver":
        """Serve on a daemon thread (tests, ``asz server``)."""
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close both ports: no new connection or request is taken, and each request already read
        (HTTP/1.1, or a gRPC call in progress) lands and is answered first, up to :data:`.receive_http.DRAIN` seconds
        (docs/push.md, The receiver; a gRPC call still landing then, longer: .receive_grpc.stop_calls); a request
        still waiting for its session's turn is answered busy (:class:`~asz_core.export.owners.Busy`)."""
        self.closing.set()
        if self.front is not None:
            self.front.shutdown() if self._thread is not None else None
            self.front.server_close()
        if self.grpc_server is not None:
            before = set(threading.enumerate())
            stop_calls(self.grpc_server, self.running, DRAIN, err=self.err)
            for t in set(threading.enumerate()) - before:  # gRPC's grace timer, woken by the stop: gone before we return
                if t.name.endswith("(cancel_all_calls_after_grace)"):
                    t.join(timeout=5)
        if self.front is not None:
            self.front.drain()
        if self._pool is not None:  # gRPC's stop leaves the handlers' threads alive: a process that forks later must have none
            self._pool.shutdown(wait=True)
        if self._thread is not None:
            self._thread.join(timeout=5)
