"""One push pass: every landed file and round not yet sent goes to the receiver (origin-digest §8.1, §8.4; issue 21).

:func:`push` holds ``<root>/_export/.lock`` (one pusher per root), reads
``push.state``, and sends what is due in push order (:func:`.wire.outbox`),
in requests of at most ``batch_bytes`` file bytes (a larger file goes alone),
no faster than ``max_bytes_per_minute``. After each answer ``push.state`` is
replaced: a file lands in it only once the receiver took it, so a crash
repeats the request in flight and never loses one (the receiver takes the
same file again as a no-op). A busy receiver (HTTP 429/503, gRPC
RESOURCE_EXHAUSTED) pauses the pass with backoff; any other failure stops
it, leaving the rest due for the next pass.

The summary line (§8.1, and one key after it): ``[HH:MM:SS] files=N metrics=N
bytes=47.9MB wire=48.0MB requests=N paused=0s rejected=N errors=N held=N (1.1s)``:
``files`` sent, ``metrics`` data points sent, ``bytes`` their file bytes,
``wire`` the encoded requests, ``paused`` time spent waiting on a busy receiver
or the rate limit, ``rejected`` records the receiver's partial-success answers
rejected (a real refusal: ``asz push`` exits 1), ``held`` the records it refused
only because it holds every record of them already, from another root or another
credential's files (:meth:`.push_elsewhere.Elsewhere.held_whole`; no failure. Trial
30d F2: they were counted in ``rejected`` beside a note saying "not an error", and
the pass exited 1).
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path
from typing import Callable, TextIO

import attrs
import orjson

from ..logstamp import log_stamp
from ..sessiondata.times import format_duration
from ..flow.chain import SessionChains
from ..flow.round import parse_round_file_name
from ..storage.layout import CONVERSATIONS, ROUNDS, session_dirs, session_listing
from ..storage.root import FileLock
from .admit import landed_seq, removed_digest, round_reads
from .push_elsewhere import NOT_TAKEN, Elsewhere
from .push_refusals import Refusals
from .push_rest import Rests, rests_made
from .settings import ExportConfig, default_instance_id, split_endpoint, token_said
from .state import PushState, receiver_answer
from .transport import Answer, Poked, Sender, sender
from .wire import ASSEMBLE, REPLACES, REST, Described, OutFile, RoundTitles, kvs, log_record, logs_request, outbox, resource, runtime_of
from ..termsafe import LineStream, shell_word

__all__ = ["PushReport", "PushInterrupted", "PROBE_OVER", "NOT_TAKEN", "push", "held_back", "replaced_chains", "export_lock", "endpoint_name", "human_bytes"]


def human_bytes(n: int) -> str:
    """``512B``, ``1.5KB``, ``47.9MB``, ``1.0GB`` (powers of 1000, one decimal)."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return f"{n}B"


@attrs.define
class PushReport:
    """What a pass sent (see the module doc); ``problems`` are the ``error:`` lines told."""

    files: int = 0
    metrics: int = 0
    bytes: int = 0
    wire: int = 0
    requests: int = 0
    paused: float = 0.0
    rejected: int = 0
    errors: int = 0
    #: records the receiver refused only because it holds every record of them already (not in ``rejected``)
    held: int = 0
    seconds: float = 0.0
    problems: list[str] = attrs.Factory(list)
    #: ``"<id8> <state>"`` of each conversation whose metrics were held back: it does not verify (not in the §8.1 line)
    metrics_held_back: list[str] = attrs.Factory(list)
    #: a pass with nothing due whose empty request found no connection (its note said): the receiver was not reached,
    #: what ``asz push --require-receiver`` exits 1 on (trial 27b F8: a dead receiver was silent on quiet days)
    unreached: bool = False

    @property
    def ok(self) -> bool:
        """True when everything due was sent and nothing was rejected (``asz push`` exits 0); files the receiver
        holds whole already (``held``) fail nothing."""
        return not (self.errors or self.rejected)

    def summary(self, clock: float | None = None) -> str:
        """The §8.1 summary line, ``held=N`` after its last key (before the time)."""
        return (f"{log_stamp(clock)} files={self.files} metrics={self.metrics} bytes={human_bytes(self.bytes)} wire={human_bytes(self.wire)} "
                f"requests={self.requests} paused={format_duration(self.paused)} rejected={self.rejected} errors={self.errors} "
                f"held={self.held} ({self.seconds:.1f}s)")


def export_lock(root: str | os.PathLike, timeout: float = 0.0) -> FileLock:
    """``<root>/_export/.lock``: one pusher (and one pruner) per root."""
    return FileLock(Path(root) / "_export" / ".lock", timeout)


def endpoint_name(cfg: ExportConfig, endpoint: str | None = None) -> str:
    """The endpoint as ``push.state`` records it: with its scheme (``grpc://127.0.0.1:4317``). Raises ValueError."""
    e = endpoint or cfg.endpoint
    proto, hostport, secure, base = split_endpoint(e, cfg.protocol, cfg.tls)
    return e if "://" in e else f"{proto}://{hostport}{base}"


#: A batch larger than this (wire bytes) is preceded, once per pass, by an empty request (:meth:`_Pass.probe`): a
#: refused smaller one costs no more than the probe's round trip.
PROBE_OVER = 64 * 1024
#: Seconds of pauses for one request a busy receiver is waited for beyond the pass's ``attempts`` tries (:meth:`_Pass.request`).
BUSY_PATIENCE = 60.0
#: The ``service.name`` of the probe's resource (it carries no runtime's file) unless ``export.otlp.service_name``.
PROBE_SERVICE = "asz push"




class Notes:
    """The notes of lasting states a pass says on ``err`` (``note: TEXT``), each under its subject (a session, or
    which metrics were not sent). ``before`` (None: say every note) is a watching collector's record of what its
    previous pass said, subject -> words: a note whose subject had the same words then is not said again (trial 19,
    F4: a note on every pass, every 10 minutes, for ever); :meth:`done` makes this pass's notes that record, so a
    subject said no more is forgotten and said again if it comes back."""

    def __init__(self, err: TextIO, before: dict[str, str] | None):
        self.err, self.before, self.now = err, before, {}

    def say(self, subject: str, text: str) -> None:
        self.now[subject] = text
        if self.before is None or self.before.get(subject) != text:
            print(f"note: {text}", file=self.err, flush=True)

    def done(self) -> None:
        """This pass's notes become the record (a pass whose requests failed keeps the one before)."""
        if self.before is not None:
            self.before.clear()
            self.before.update(self.now)


class _Pass(Elsewhere, Rests):
    def __init__(self, root: Path, cfg: ExportConfig, snd: Sender, state: PushState, err: TextIO,
                 backoff: float, attempts: int, sleep: Callable[[float], None], notes: Notes | None = None,
                 each: bool = False):  # each: a line per session of every kind (asz push --each-session)
        self.root, self.cfg, self.snd, self.state, self.err, self.each = root, cfg, snd, state, err, each
        self.notes = notes if notes is not None else Notes(err, None)  # what it says of lasting states
        self.backoff, self.attempts, self.sleep = backoff, attempts, sleep
        self.rep = PushReport()
        self.window: list[tuple[float, int]] = []  # (monotonic time, wire bytes) of the last minute
        self.instance = cfg.instance_id or default_instance_id()
        self.services: dict[str, str] = {}
        self.failure = ""  # why the last request failed
        self.failed_batch = 0  # due files taken from the outbox and not sent when a request failed
        self.refused: dict[str, tuple[int, str]] = {}  # session -> lowest seq (and path) of a landed file the receiver rejected
        self.rejected_before = set(state.rejected)  # files an earlier pass had rejected (still_rejected)
        for rel in sorted(state.rejected):
            self._refused(rel)
        self.held_rounds: dict[str, int] = {}  # session -> rounds not sent: they read a rejected file
        self.held_metrics: dict[str, int] = {}  # why the metrics of sessions were not sent -> how many (metrics.py)
        self.held: set[str] = set()  # sessions held_back() keeps from sending: their metrics are not sent either
        self.metrics_owner = state.endpoint  # the endpoint a sent.json of before belongs to (metrics.sent_path)
        self.verdicts: dict[str, str] = {}  # session -> what asz verify finds wrong with it ('' when it verifies)
        self.unverified: dict[str, int] = {}  # session -> its due files and rounds held back: it does not verify
        self.chains: SessionChains | None = None  # the root's chains, read once by logs(): what it sends and checks
        self.replaced = replaced_chains(root, state)  # conversation -> (claim, paths): a chain sent, then built anew
        self.probed = False  # whether the receiver took an empty request this pass (:meth:`probe`)
        # sessions of which the receiver holds every record of a refused file from another root: their later files
        # ask it to assemble their rounds (:data:`.wire.ASSEMBLE`; trial 24a F1)
        self.held_elsewhere = {rel.split("/", 1)[0] for rel, (held, _) in state.elsewhere.items() if held == "all"}
        self.init_rests()  # the rests of the stream this pass makes and sends (push_rest.Rests)
        self.refusals = Refusals(root, each)  # what the answers refused, said per session at the pass's end (trial 31a F5)

    def problem(self, message: str) -> None:
        self.rep.errors += 1
        self.rep.problems.append(message)
        print(f"error: {message}", file=self.err, flush=True)

    def service(self, session: str, dialect: str) -> str:
        if self.cfg.service_name:
            return self.cfg.service_name
        if session not in self.services and dialect:
            self.services[session] = runtime_of(dialect)
        return self.services.get(session, "unknown")

    def _throttle(self, wire: int) -> None:
        limit = self.cfg.max_bytes_per_minute
        if not limit:
            return
        while True:
            now = time.monotonic()
            self.window = [(t, b) for t, b in self.window if now - t < 60.0]
            used = sum(b for _, b in self.window)
            if not self.window or used + wire <= limit:
                self.window.append((now, wire))
                return
            wait = 60.0 - (now - self.window[0][0]) + 0.01
            self._pause(wait)

    def _pause(self, seconds: float) -> None:
        """Wait ``seconds`` (the rate limit, a busy receiver), counted in ``paused``; Ctrl-C during it counts only the
        time waited (trial 24a F6: an interrupted pass said the whole planned wait, ``paused=1m`` in a 4 s pass)."""
        start = time.monotonic()
        try:
            self.sleep(seconds)
        except KeyboardInterrupt:
            self.rep.paused += min(seconds, time.monotonic() - start)
            raise
        self.rep.paused += seconds

    def request(self, kind: str, req) -> Answer:
        """Send ``req`` (after the rate limit), pausing and repeating while the receiver is busy: ``attempts`` tries,
        and more while the pauses for it add up to :data:`BUSY_PATIENCE` seconds at most (a receiver answering
        ``Retry-After: 1`` while another request of the session lands is asked again for that long; fix44a)."""
        wire = req.ByteSize()
        self._throttle(wire)
        attempt, waited = 0, 0.0
        while True:
            ans = self.snd.send(kind, req)
            if ans.sent:  # what went on the wire: a request with no connection to go on is neither (trial 15, F15)
                self.rep.requests += 1
                self.rep.wire += wire
            if ans.ok or ans.error:
                return ans
            pause = ans.pause if ans.pause is not None else self.backoff * (2 ** attempt)
            attempt += 1
            if attempt >= self.attempts and waited + pause > BUSY_PATIENCE:
                return Answer(error=f"the receiver stayed busy after {attempt} attempts ({format_duration(waited)} "
                                    "waited)")
            self._pause(pause)
            waited += pause

    def probe(self) -> Answer | None:
        """Before the pass's first batch over :data:`PROBE_OVER` bytes, one empty logs request (an
        ``ExportLogsServiceRequest`` with one resource, this instance's (``service.name`` :data:`PROBE_SERVICE`), and
        no record: valid OTLP, nothing lands; the receiver counts it as this instance seen): a receiver that refuses it (a wrong or missing token: HTTP 401, gRPC
        UNAUTHENTICATED; no such path; no connection) refuses the batch too, so its failed :class:`Answer` is returned
        and the batch's bytes never go out (a wrong token cost a whole batch of upload, up to 8 MB). None when it was
        taken (or the receiver is busy: the batch's own request waits), and on every later call."""
        if self.probed:
            return None
        self.probed = True
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
        from opentelemetry.proto.logs.v1.logs_pb2 import ResourceLogs

        # the resource, with no record, names this instance to the receiver (its seen list: trial 32c F3)
        ans = self.snd.send("logs", ExportLogsServiceRequest(resource_logs=[ResourceLogs(
            resource=resource(self.cfg.service_name or PROBE_SERVICE, self.instance, self.cfg.layer, self.root))]))
        self.rep.requests += ans.sent
        return ans if ans.error else None

    def idle_check(self) -> None:
        """A pass with nothing due sends one empty logs request (:meth:`probe`), so a receiver that refuses this root
        (a wrong or missing token, no such path) is said on the day it changes, not on the next day with something to
        send (trial 24a F8: a wrong token went unnoticed, ``files=0 … errors=0``, no request made). Its refusal is an
        error; a receiver it finds no connection to is one note (nothing was due, nothing is left behind)."""
        ans = self.probe()
        if ans is None:
            return
        if ans.sent:
            self.problem(f"push to {self.state.endpoint}: nothing was due, and the receiver refused an empty request: "
                         f"{ans.error} (the next file due would be refused too)")
        else:
            self.rep.unreached = True
            self.notes.say("no connection", f"push to {self.state.endpoint}: nothing was due; the receiver was not "
                                            f"reached: {ans.error}")

    def flush(self, batch: list[tuple[OutFile, Described, str]]) -> bool:
        """Send one batch of log records; marks them in push.state. False when the pass must stop."""
        if not batch:
            return True
        groups: list[tuple[str, list]] = []
        for f, d, service in batch:
            if not groups or groups[-1][0] != f"{f.session}\x00{service}":
                groups.append((f"{f.session}\x00{service}", []))
            groups[-1][1].append(d.record)
        req = logs_request([(resource(key.split("\x00", 1)[1], self.instance, self.cfg.layer, self.root), recs) for key, recs in groups])
        ans = (self.probe() if req.ByteSize() > PROBE_OVER else None) or self.request("logs", req)
        if not ans.ok:
            self.failure = ans.error
            return False
        # an asz receiver says ``rejected <path>: why`` per file; a path named only inside another's reason (``<path>,
        # landed before it in the stream, ends at …``) was taken
        named = {f.rel for f, _, _ in batch if f"rejected {f.rel}:" in ans.message} if ans.rejected else set()
        held: list[str] = []  # refused only because the receiver holds every record of them already
        refused: list[str] = []  # the others it refused
        # the files the receiver could not write: due again, no line in push.state (trial 34b F1)
        skip = self.refusals.not_stored(ans.message, [(f.rel, f.session) for f, _, _ in batch if f.rel in named])
        for f, d, _ in (b for b in batch if b[0].rel not in skip):
            rejected = bool(ans.rejected) and (not named or f.rel in named)
            self.state.mark(f.rel, d.digest, rejected)
            if not rejected and self._replaces(f) is not None:  # the receiver set the old chain aside: forget it
                self.state.forget(self.replaced.pop(f.rel.split("/")[1])[1])
            if rejected:
                self._refused(f.rel)
                self._elsewhere(f.rel, ans.message)
                self._owned(f.rel, ans.message)
                if f.rel in named and self.held_whole(f.rel, d.record.body.bytes_value):
                    held.append(f.rel)
                else:
                    refused.append(f.rel)
            self.rep.files += 1
            self.rep.bytes += d.size
        self.rep.held += len(held)
        self.rep.rejected += max(0, ans.rejected - len(held) - len(skip))
        self.refusals.add(ans.message, held, refused)  # said at the pass's end, a line per session (trial 31a F5)
        self.state.save()
        return True

    def logs(self) -> bool:
        """Send every due landed file and round, in batches; False when a request failed (the pass stops there,
        and the problem counts every file still due: the failed batch's and all after it)."""
        held = held_back(self.root, self.state)
        self.held = set(held)
        if not self._removed_said(held):  # the receiver was not reached: its one line (trial 41a F7)
            return False
        files = self._rests_first(set(held))
        going = self._send_logs(files)
        if going and self.rests_new():  # the receiver said in this pass which records it lacks: sent now
            files = self._rests_first(set(held))
            going = self._send_logs(files)
        again = self.rests_taken() if going else set()
        if again:
            files = (f for f in outbox(self.root, self.chains) if f.session in again)
            going = self._send_logs(files)
            self.settled(again)  # held whole now: this pass's first refusals of them fail nothing (trial 34b F4)
        self.refusals.say(self.err)  # held (and in one note of their session: still_rejected) and rejected
        for session, n in self.unverified.items():
            self.problem(f"{session}: does not verify ({self.verdicts[session]}); none of its {n} due file(s) and "
                         f"round(s) is sent, so {self.state.endpoint} never holds evidence that does not verify "
                         f"(asz verify --root {shell_word(self.root)} {shell_word(session)} names the problems)")
        for session, n in self.held_rounds.items():
            seq, rel = self.refused[session]
            if rel in self.state.elsewhere or rel in self.state.owned:
                continue  # the receiver holds the session from another root or credential: said in still_rejected
            self.problem(f"{session}: {n} round(s) not sent: they read seq {seq}, {rel}, which {self.state.endpoint} rejected")
        self.still_rejected(set(held))
        if going:
            return True
        left = self.failed_batch + sum(1 for f in files if _due_digest(self.state, f) is not None)
        self.problem(f"push to {self.state.endpoint}: {token_said(self.failure)} ({left} file(s) left for the next pass)")
        return False

    def _rests_first(self, held: set[str]):
        """Make the rests due (:meth:`Rests.make_rests`), read the root's chains, and give the files to send, the rests
        first: the files the receiver refused go again after them (:mod:`.push_rest`)."""
        self.make_rests()  # the records the receiver lacks of a stream it holds from another root (trial 24a F3)
        self.chains = SessionChains(self.root)
        files = (f for f in outbox(self.root, self.chains) if f.session not in held)
        return iter(sorted(files, key=lambda f: f.rel not in self.rest_files)) if self.rest_files else files

    def _replaces(self, f: OutFile) -> str | None:
        """The ``asz.chain.replaces`` value when ``f`` is round 1 of a conversation whose chain this endpoint took and
        that was built anew since (:func:`replaced_chains`); None otherwise."""
        if f.fmt != "sf" or not f.path.name.startswith("r000001-"):
            return None
        got = self.replaced.get(f.rel.split("/")[1])
        return got[0] if got else None

    def _does_not_verify(self, session: str) -> bool:
        """True when ``session`` fails the checks ``asz verify --root ROOT SESSION`` makes (:func:`asz_core.verify.unverified`,
        run once per pass, for a session with a file due): then none of its files and rounds is sent (trial 15, F4: a
        re-sealed file went out and was accepted, and retention would have removed the one copy that showed it).
        The session's chains are found in the pass's one look at the root's chains (:class:`SessionChains`), so the
        check reads the session's own files and chains only. A session with no directory (rounds only) is not
        checked here."""
        if session not in self.verdicts:
            from ..verify import unverified

            try:
                self.verdicts[session] = unverified(self.root, session, chains=self.chains)
            except FileNotFoundError:
                self.verdicts[session] = ""
            except (OSError, ValueError) as exc:
                self.verdicts[session] = f"cannot be verified: {exc}"
        if not self.verdicts[session]:
            return False
        self.unverified[session] = self.unverified.get(session, 0) + 1
        return True

    def _refused(self, rel: str) -> None:
        at = landed_seq(rel)
        if at is not None and (at[0] not in self.refused or at[1] < self.refused[at[0]][0]):
            self.refused[at[0]] = (at[1], rel)

    def _reads_refused(self, f: OutFile, data: bytes) -> bool:
        """True when ``f`` is a round reading (or after) a landed file of its session the receiver rejected: the
        receiver's root would name a file it never got (origin-digest §2.6), so the round is held back."""
        if f.fmt != "sf" or f.session not in self.refused:
            return False
        reads = round_reads(data)
        if reads is None or reads[2] < self.refused[f.session][0]:
            return False
        self.held_rounds[f.session] = self.held_rounds.get(f.session, 0) + 1
        return True

    def _send_logs(self, files) -> bool:
        batch: list[tuple[OutFile, Described, str]] = []
        size = 0
        latest: dict[str, int] = {}
        titles = RoundTitles(self.root)
        self.rests_listed = rests_made(self.root)
        for f in files:
            try:
                data = f.path.read_bytes()
            except OSError as exc:
                self.problem(f"{f.rel}: cannot read: {exc.strerror or exc}")
                continue
            digest = hashlib.sha256(data).hexdigest()
            claim = self._replaces(f)
            again = claim is not None and f.rel in self.state.rejected  # refused before this pass could say it replaces
            if (not self.state.due(f.rel, digest) and not again) or f.session in self.refusals.unstored or self._reads_refused(f, data) or self._does_not_verify(f.session):
                continue
            try:
                d = log_record(f, data, digest=digest, session_time_ns=latest.get(f.session, 0), titles=titles.of_head)
            except orjson.JSONDecodeError as exc:
                self.problem(f"{f.rel}: line 1: header: not JSON ({exc})")
                continue
            except (ValueError, AttributeError, TypeError) as exc:
                self.problem(f"{f.rel}: line 1: header: cannot be described for sending ({exc})")
                continue
            if claim is not None:
                d.record.attributes.extend(kvs([(REPLACES, claim)]))
            if f.fmt == "sd" and (f.session in self.held_elsewhere or f.rel in self.rest_files):  # no round of ours can follow its chain there
                d.record.attributes.extend(kvs([(ASSEMBLE, "elsewhere")]))
            if f.fmt == "sd" and f.rel in self.rests_listed:  # a rest of a stream this root made (push_rest)
                d.record.attributes.extend(kvs([(REST, "1")]))
            latest[f.session] = max(latest.get(f.session, 0), d.time_ns)
            if batch and size + d.size > self.cfg.batch_bytes:
                if not self.flush(batch):
                    self.failed_batch = len(batch) + 1  # the batch, and f that would have opened the next one
                    return False
                batch, size = [], 0
                if self.refusals.full:  # the receiving root is full: what follows would be refused too (trial 41a F1)
                    self.failed_batch, self.failure = 1, self.refusals.stopped()  # f would have opened the next batch
                    return False
            if f.session not in self.refusals.unstored:  # the answer may just have said an earlier file of it was not stored
                batch.append((f, d, self.service(f.session, d.dialect)))
                size += d.size
        self.failed_batch = len(batch)
        return self.flush(batch)


def _due_digest(state: PushState, f: OutFile) -> str | None:
    """The SHA-256 of ``f`` when it is due at ``state``'s endpoint (never sent with these bytes); None when it was sent
    or cannot be read."""
    try:
        digest = hashlib.sha256(f.path.read_bytes()).hexdigest()
    except OSError:
        return None
    return digest if state.due(f.rel, digest) else None


def replaced_chains(root: Path, state: PushState) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Conversations whose rounds ``state``'s endpoint took and that are gone from the root (its chain was set aside,
    ``asz parse SESSION --anew``): conversation id → (``<path> <sha256>`` of the last of them the endpoint accepted,
    every such round path). A new round 1 names that one as replaced (:data:`.wire.REPLACES`): the receiver then sets
    its chain aside too and takes the new one (push.md, A chain built anew). Without the claim it would refuse the new
    round 1 (one round per number) on every pass and fall behind the new chain for good."""
    gone: dict[str, list[tuple[int, str]]] = {}
    for rel in state.pushed:
        parts = rel.split("/")
        if len(parts) == 4 and parts[0] == CONVERSATIONS and parts[2] == ROUNDS and not (root / rel).exists():
            number = parse_round_file_name(parts[3])
            if number is not None:
                gone.setdefault(parts[1], []).append((number[0], rel))
    out = {}
    for conversation, rounds in gone.items():
        taken = [(n, rel) for n, rel in rounds if rel not in state.rejected]
        if taken:
            head = max(taken)[1]
            out[conversation] = (f"{head} {state.pushed[head]}", tuple(rel for _, rel in rounds))
    return out


def held_back(root: Path, state: PushState) -> dict[str, list[str]]:
    """Sessions retention removed landed files of before ``state``'s endpoint received them: session → those paths.

    A skeleton is local, never sent (seed 000, Skeletons), so such a session
    cannot arrive whole: its rounds would name files the receiver never gets
    and its root would not verify. A removed file counts as received when
    ``push.state`` of this endpoint holds it with the digest its skeleton keeps
    and the receiver accepted it (:func:`~asz_core.export.state.receiver_answer`, the rule retention removed it by:
    a file refused because the receiver holds every record of it from another root, ``elsewhere … all``, counts as
    received; trial 24a F2: prune removed such a session, then every pass exited 1 for it).
    """
    out: dict[str, list[str]] = {}
    for sdir in session_dirs(root):
        for ln, p in session_listing(sdir, skeletons=True).files:
            if ln.ext != "sk":
                continue
            rel = p.with_suffix(".sd").relative_to(root).as_posix()
            sent = state.pushed.get(rel)  # the skeleton is read only for a file this endpoint was sent
            if sent is None or receiver_answer(state, rel, removed_digest(p)) != "accepted":  # retention's rule
                out.setdefault(sdir.name, []).append(rel)
    return out


class PushInterrupted(KeyboardInterrupt):
    """Ctrl-C during a pass: ``report`` is what it sent until then (None when it had not started sending), with its
    ``seconds`` set; push.state keeps every file the receiver took, so the next pass sends the rest."""

    def __init__(self, report: "PushReport | None", seconds: float):
        super().__init__()
        self.report = report
        if report is not None:
            report.seconds = seconds


def push(root: str | os.PathLike, cfg: ExportConfig, *, endpoint: str | None = None, err: TextIO | None = None,
         backoff: float = 1.0, attempts: int = 6, lock_timeout: float = 0.0,
         sleep: Callable[[float], None] = time.sleep, retry_elsewhere: bool = False, retry_rejected: bool = False,
         said: dict[str, str] | None = None,
         budget_of: Callable[[str], int] | None = None, each: bool = False, progress: Callable | None = None) -> PushReport:
    """One pass over ``root`` to ``endpoint`` (default ``cfg.endpoint``); returns the :class:`PushReport`.

    Raises ValueError when no endpoint is configured or it is unusable,
    :class:`~asz_core.storage.root.LockBusy` when another pusher holds the
    root, and ValueError naming ``push.state`` and the line when that file is
    damaged; :class:`PushInterrupted` (a KeyboardInterrupt) on Ctrl-C. ``backoff`` is the first pause in seconds when the receiver is
    busy and says no Retry-After (doubling, ``attempts`` tries per request). ``retry_elsewhere``: the files recorded
    as held by the receiver from another root are due again (:meth:`PushState.retry_elsewhere`), said on ``err``.
    ``retry_rejected``: every file the receiver rejected is due again (:meth:`PushState.retry_rejected`; a receiver
    that could not write a file rejected it so before 2026-12-06: trial 34b F1), said on ``err``.
    ``said``: what the calling process's previous pass said of lasting states (a watching collector's, kept across its
    passes; :class:`Notes`): a note is said again only when its words change, or once its state came back; updated
    (None: every note is said). ``budget_of``: adapter name -> its configured ``max_delta_bytes``, what the rest of a
    stream is cut at (:func:`.push_rest.make_rest`; None: the default 2 MiB). ``each`` (``asz push
    --each-session``): every note and error of a kind that two sessions or more share is said a line per session,
    not one line with their count and first ids (trial 41a F5). ``progress``: ``(root, paths push.state held as sent,
    err) -> watcher``, whose ``poke()`` is called after each answered request and whose ``of`` is set to the pass
    (:class:`~asz_core.cli.push_progress.PushProgress`: where a long pass is, on ``err``).
    """
    root = Path(root)
    name = endpoint_name(cfg, endpoint) if (endpoint or cfg.endpoint) else ""
    if not name:
        raise ValueError("no endpoint: set export.otlp.endpoint in asz.yaml or give --endpoint")
    # every line one line, its controls escaped: a receiver's answer (a reason, an HTTP reason phrase, gRPC details) is
    # its own words and never steers the operator's terminal (fix35a)
    err = LineStream(err if err is not None else sys.stderr)
    start = time.monotonic()
    with export_lock(root, lock_timeout):
        for stale in root.glob(".push.state.*.tmp"):  # a pass killed while replacing push.state
            stale.unlink(missing_ok=True)
        loaded = PushState.load(root)
        state = loaded.for_endpoint(name)  # another endpoint's state kept, this one's taken up (state.py)
        if retry_elsewhere:
            again = state.retry_elsewhere(lambda rel: (root / rel).is_file())  # a removed file cannot go again
            state.save()
            print(f"note: --retry-elsewhere: {len(again)} file(s) recorded as held by {name} from another root are "
                  "sent again", file=err, flush=True)
        if retry_rejected:
            again = state.retry_rejected(lambda rel: (root / rel).is_file())
            state.save()
            print(f"note: --retry-rejected: {len(again)} file(s) {name} rejected on earlier passes are sent again; it "
                  "answers anew", file=err, flush=True)
        snd = sender(cfg, name, (cfg.service_name or PROBE_SERVICE, cfg.instance_id or default_instance_id()))
        p = None
        notes = Notes(err, said)
        watch = progress(root, set(state.pushed), err) if progress is not None else None  # trial 46d F4
        try:
            p = _Pass(root, cfg, Poked(snd, watch.poke) if watch else snd, state, err, backoff, attempts, sleep, notes, each)
            if watch:
                watch.of = p
            p.metrics_owner = loaded.endpoint  # whose receipts a sent.json of before holds (metrics.sent_path)
            p.budget_of = budget_of  # the rest of a stream is cut as its adapter's collector cuts
            going = p.logs() if cfg.logs else True
            if going and cfg.metrics:
                from .metrics import send_metrics

                send_metrics(p)
                if p.held_metrics:
                    from .metrics import metrics_not_sent

                    notes.say("metrics not sent", metrics_not_sent(p.held_metrics, name))
                held = p.rep.metrics_held_back
                if held:
                    notes.say("metrics held back", f"the metrics of {len(held)} conversation(s) held back, none of their "
                              f"points sent: they do not verify ({', '.join(held)}; asz verify names the problems)")
            if going and not p.rep.requests:
                p.idle_check()
            if going:
                notes.done()
        except KeyboardInterrupt:
            raise PushInterrupted(p.rep if p is not None else None, time.monotonic() - start) from None
        finally:
            snd.close()
    p.rep.seconds = time.monotonic() - start
    return p.rep
