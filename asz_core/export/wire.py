"""What is sent: one OTLP log record per landed file and round (origin-digest §8.4; issue 21).

:func:`outbox` lists what a root holds to send, in push order (session by
session, its landed files by seq, then its rounds); :func:`log_record` makes
the record of one file and :func:`logs_request` the request of a batch.

Resource attributes (strings): ``service.name`` (``export.otlp.service_name``,
else the runtime of the session, e.g. ``Claude Code``), ``service.instance.id``
(``instance_id``, else ``user@host``), ``service.layer`` (``layer``,
``AI_AGENT``), ``telemetry.sdk.name`` ``asz``, ``telemetry.sdk.version`` (asz's
version), ``telemetry.sdk.language`` ``python`` (the original wrote ``go``:
the language of the program that sent it), ``asz.root.id`` (:data:`ROOT_ID`: the sending root's id). Scope:
``github.com/apache/skywalking-ai-sessionizer`` with asz's version.

Record attributes: ``asz.format`` (``sd``/``sf``), ``asz.format.version``
(``1``), ``asz.file`` (path relative to the root, ``/``-separated),
``asz.file.kind`` (the header's kind; ``round`` for a round),
``asz.file.digest`` (SHA-256 hex of the whole file), ``asz.lines`` (int:
every line, header and closing included), ``asz.session``,
``asz.from_time``/``asz.through_time`` (RFC 3339 strings; absent when the
file has no time); sd only ``asz.seq`` (int), ``asz.stream``, ``asz.run``
(present when the header names them); sf only ``asz.conversation``,
``asz.round`` (int), ``asz.session.from_time``, ``asz.session.through_time``,
``asz.conversation.title`` (the title ``asz ls`` gives, read from the session's landed files through the round:
:class:`RoundTitles`; absent when they give none) and the counts ``asz.conversation.talks|steps|
streams|segments|unresolved`` (ints; ``changes``, ``lines_added``,
``lines_removed``, ``llm_calls``, ``subagents``, ``bash_runs`` when the round
header has them); ``asz.chain.replaces`` (:data:`REPLACES`) on a round 1 that
replaces a chain the receiver took (``<path> <sha256>`` of that chain's last
round sent; push.md, A chain built anew); ``asz.chain.assemble`` (:data:`ASSEMBLE`) on a landed file of a session
the receiver holds from another root (push.md, A root re-made); ``asz.rest`` (:data:`REST`) on the rest of a stream;
``asz.reread`` (:data:`REREAD`, int) on a landed file of a source's new reading (push.md, A source read again). Body: the file's bytes (``bytes_value``). Time: the last
record time of the file, else the session's latest known time; a round's is
the session's last activity.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import attrs
import orjson
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs, ScopeLogs
from opentelemetry.proto.resource.v1.resource_pb2 import Resource

from .. import __version__
from ..flow.chain import SessionChains
from ..sessiondata import jsonbytes
from ..sessiondata.times import format_rfc3339, parse_instant
from ..storage.layout import landed_files, session_dirs
from ..storage.readings import reread_of_file

__all__ = ["kvs", "SCOPE", "OutFile", "RoundTitles", "outbox", "log_record", "logs_request", "resource", "runtime_of", "attr_value", "file_digest", "REPLACES", "ASSEMBLE", "REST", "REREAD", "ROOT_ID", "CLAIMED_SERVICE", "CLAIMED_INSTANCE"]

#: The instrumentation scope name every record is sent under (§8.4).
SCOPE = "github.com/apache/skywalking-ai-sessionizer"
#: The runtime a dialect's sessions come from (``service.name`` when none is configured).
_RUNTIMES = {"claude-code": "Claude Code", "claude-code-provider": "Claude Code", "kiro": "Kiro", "langsmith": "LangChain",
             "mock": "asz scenario"}
_ROUND_COUNTS = ("talks", "steps", "streams", "segments", "unresolved", "changes", "lines_added", "lines_removed", "llm_calls",
                 "subagents", "bash_runs")


#: The record attribute of a round 1 that replaces the chain this endpoint took before ``asz parse SESSION --anew``
#: set it aside: ``<root-relative path> <sha256 hex>`` of that chain's last round sent (:func:`.admit.admit`).
REPLACES = "asz.chain.replaces"
#: The record attribute (value ``elsewhere``) of a landed file whose session's rounds the sending root holds back: the
#: receiver holds earlier files of the session from another root, so no round of this root can follow its chain there;
#: an asz receiver then assembles the session's round for the file itself (push.md, A root re-made; trial 24a F1).
ASSEMBLE = "asz.chain.assemble"
#: The record attribute (value ``1``) of a landed file that is the rest of a stream this root made for a receiver
#: (:mod:`.push_rest`, listed in ``_export/rests.list``): every record of it repeats one this root holds in an earlier
#: file of its stream. A receiver that holds those records from this root lands it as records landed again, as this
#: root holds them (push.md, The rest of a stream; the original asz sends no such attribute and ignores it).
REST = "asz.rest"
#: The resource attribute naming the sending storage root (32 hex digits, made once per root and kept in it:
#: :func:`~asz_core.storage.sender_roots.root_id`): an asz receiver keeps it in each sender line, so two roots sending
#: under one ``service.instance.id`` are told apart and said (trial 34b F3); the original sends none and ignores it.
ROOT_ID = "asz.root.id"
#: The gRPC metadata (binary, UTF-8) ``asz push`` sends with each call beside its token: its ``service.name`` (the
#: probe's, :data:`~asz_core.export.push.PROBE_SERVICE` unless ``export.otlp.service_name``) and ``service.instance.id``,
#: as its requests' resources say them. A receiver that refuses a call for its token before receiving its message names
#: the sender from these (:mod:`.receive_grpc`, review38 R2); the original sends none and ignores them.
CLAIMED_SERVICE = "asz-service-name-bin"
CLAIMED_INSTANCE = "asz-service-instance-id-bin"
#: The record attribute (int) of a landed file holding the new reading of a source read again from its start (``asz
#: sources --reset-conflict S --reread``): the seq that reading starts at, its cursor's ``reread_seq``
#: (:func:`~asz_core.storage.readings.reread_of_file`). An asz receiver walks the files of that stream and kind from it
#: on as the new reading, as the sending root does (trial 34b F2); one before 2026-12-06 ignores it and refuses the
#: reading's first file (its records do not continue the stream there), which the pusher then says.
REREAD = "asz.reread"


@attrs.define
class OutFile:
    """One file to send: ``rel`` (root-relative, ``/``-separated), ``path``, ``session`` (directory name), ``fmt`` (sd|sf)."""

    rel: str
    path: Path
    session: str
    fmt: str


def outbox(root: str | os.PathLike, chains: SessionChains | None = None) -> Iterator[OutFile]:
    """Every landed ``.sd`` file and round of ``root``, in push order (§8.4): session by session
    (sorted by name), its files by seq, then the rounds of its conversations (a conversation is
    its round 1's session's, or its directory's name's when round 1 names none); rounds of a
    conversation whose session has no directory come last. Skeletons are never sent. The rounds
    are those ``chains`` (:class:`~asz_core.flow.chain.SessionChains`, read now when not given) listed."""
    root = Path(root)
    chains = chains if chains is not None else SessionChains(root)
    by: dict[str, list[Path]] = {}
    for name, files in chains.files.items():
        if files:
            by.setdefault(chains.named[name] or name, []).extend(rf.path for rf in files)
    for sdir in session_dirs(root):
        for ln, p in landed_files(sdir):
            yield OutFile(p.relative_to(root).as_posix(), p, sdir.name, "sd")
        for p in by.pop(sdir.name, []):
            yield OutFile(p.relative_to(root).as_posix(), p, sdir.name, "sf")
    for session, paths in sorted(by.items()):
        for p in paths:
            yield OutFile(p.relative_to(root).as_posix(), p, session, "sf")


def file_digest(path: str | os.PathLike) -> str:
    """SHA-256 hex of a file's whole bytes (``asz.file.digest``). Raises OSError."""
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


def attr_value(v: object) -> AnyValue:
    """An OTLP AnyValue: bool, int (int_value), float (double_value), bytes (bytes_value) or str."""
    if isinstance(v, bool):
        return AnyValue(bool_value=v)
    if isinstance(v, int):
        return AnyValue(int_value=v)
    if isinstance(v, float):
        return AnyValue(double_value=v)
    if isinstance(v, bytes):
        return AnyValue(bytes_value=v)
    return AnyValue(string_value=str(v))


def kvs(pairs: list[tuple[str, object]]) -> list[KeyValue]:
    """OTLP attributes of ``(key, value)`` pairs; None and '' values are left out."""
    return [KeyValue(key=k, value=attr_value(v)) for k, v in pairs if v is not None and v != ""]


def runtime_of(dialect: str) -> str:
    """The runtime a dialect belongs to (``claude-code/1`` → ``Claude Code``); the dialect's name when unknown."""
    name = dialect.split("/", 1)[0]
    return _RUNTIMES.get(name, name or "unknown")


def resource(service_name: str, instance_id: str, layer: str, root: str | os.PathLike | None = None) -> Resource:
    """The resource of §8.4 (all strings), with :data:`ROOT_ID` when ``root`` (the sending storage root) is given."""
    return Resource(attributes=kvs([
        ("service.name", service_name), ("service.instance.id", instance_id), ("service.layer", layer),
        ("telemetry.sdk.name", "asz"), ("telemetry.sdk.version", __version__), ("telemetry.sdk.language", "python"),
        (ROOT_ID, _root_id(root) if root is not None else ""),
    ]))


def _root_id(root: str | os.PathLike) -> str:
    """:func:`~asz_core.storage.sender_roots.root_id` of ``root``; '' (not sent) when it can be neither read nor made."""
    from ..storage.sender_roots import root_id

    try:
        return root_id(root)
    except OSError:
        return ""


@attrs.define
class Described:
    """A file read for sending: its ``record``, ``digest``, ``size`` in bytes, ``dialect`` (sd) and last ``time_ns``."""

    record: LogRecord
    digest: str
    size: int
    dialect: str
    time_ns: int


def _sd_attrs(data: bytes) -> tuple[list[tuple[str, object]], str, int, int]:
    """Attributes of a landed file from its bytes, its dialect, first and last record time (ns, 0 = none)."""
    lines = data.split(b"\n")
    head = jsonbytes.loads(lines[0])
    first = last = 0
    for line in lines[1:]:
        if not line:
            continue
        try:
            t = parse_instant(orjson.loads(line).get("time"))
        except (orjson.JSONDecodeError, AttributeError):
            t = None
        if t:
            first = t if not first or t < first else first
            last = t if t > last else last
    pairs: list[tuple[str, object]] = [
        ("asz.format", "sd"), ("asz.format.version", str(head.get("schema", "sd/1")).split("/")[-1]),
        ("asz.file.kind", head.get("kind", "")), ("asz.session", head.get("session", "")),
        ("asz.from_time", format_rfc3339(first) if first else ""), ("asz.through_time", format_rfc3339(last) if last else ""),
        ("asz.seq", int(head.get("seq", 0))), ("asz.stream", head.get("stream", "")), ("asz.run", head.get("batch", "")),
    ]
    return pairs, str(head.get("dialect", "")), first, last


class RoundTitles:
    """The title each round of a root is sent with (``asz.conversation.title``): the title ``asz ls`` gives its
    conversation, as far as its session's landed files through the round say
    (:meth:`~asz_core.view.titles.LandedTitles.title`), not the header's; for a round with no talk (header
    ``talks`` 0) and no runtime title whose chain through it continues another conversation (a resumed copy),
    ``(continues ID) TITLE`` (:func:`~asz_core.view.titles.continued_title`, the one rule asz ls follows). The header's is assembly's, read from the
    index, which holds no content: it may be a label written for another session's record (a Claude Code
    ``summary`` record naming another session's message), which only the landed records tell. One session's landed
    files are kept at a time (:func:`outbox` sends a session's rounds together)."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)
        self.session = ""
        self.titles = None

    def __call__(self, data: bytes) -> str | None:
        """The title of the round whose bytes are ``data``; None when its header does not read (it is sent as it is)."""
        try:
            head = jsonbytes.loads(data.split(b"\n", 1)[0])
        except (ValueError, AttributeError, TypeError):
            return None
        return self.of_head(head)

    def of_head(self, head: Any) -> str | None:
        """The title of the round whose header (its first line, decoded) is ``head``; None when it does not read."""
        from ..view.titles import LandedTitles

        try:
            session, through = head.get("session"), int(head.get("through_seq", 0))
        except (ValueError, AttributeError, TypeError):
            return None
        if not isinstance(session, str) or not session or "/" in session or session.startswith("."):
            return None
        if session != self.session or self.titles is None:
            self.session, self.titles = session, LandedTitles(self.root, session)
        title = self.titles.title(through)
        if head.get("talks") == 0 and not self.titles.runtime_title(through):
            # no talk and no runtime title of its own: a resumed copy is named by what it continues, as asz ls names it
            earlier = self._continues(head)
            if earlier:
                from ..view.titles import continued_title

                return continued_title(earlier, title)
        return title

    def _continues(self, head: Any) -> str:
        """The conversation the chain of round ``head`` continues through that round (the first of
        :func:`~asz_core.view.links.links_of`'s ``earlier``, as the document's ``summary.continues``); '' when none,
        or when its rounds through it do not read (the title is then the landed one, as before)."""
        from ..flow.chain import Chain
        from ..flow.fold import FoldError, fold_rounds
        from ..flow.round import RoundError, read_round
        from ..view.links import links_of

        try:
            number, rounds = int(head.get("round", 0)), []
            for rf in Chain(self.root, head.get("conversation")).round_files():
                if rf.number > number:
                    break
                if rf.number != len(rounds) + 1:  # a gap or a second file: the chain check's to name
                    return ""
                rounds.append(read_round(rf.path))
            return next(iter(links_of(fold_rounds(rounds)).earlier), "")
        except (RoundError, FoldError, OSError, ValueError, TypeError):
            return ""


def _sf_attrs(data: bytes, title: str | None = None, titles: Callable[[Any], str | None] | None = None
              ) -> tuple[list[tuple[str, object]], int]:
    head = jsonbytes.loads(data.split(b"\n", 1)[0])
    if titles is not None:
        title = titles(head)
    pairs: list[tuple[str, object]] = [
        ("asz.format", "sf"), ("asz.format.version", str(head.get("schema", "sf/1")).split("/")[-1]), ("asz.file.kind", "round"),
        ("asz.session", head.get("session", "")), ("asz.from_time", head.get("from_time", "")),
        ("asz.through_time", head.get("through_time", "")), ("asz.conversation", head.get("conversation", "")),
        ("asz.round", int(head.get("round", 0))), ("asz.session.from_time", head.get("session_from_time", "")),
        ("asz.session.through_time", head.get("session_through_time", "")), ("asz.conversation.title", head.get("title", "") if title is None else title),
    ]
    pairs += [(f"asz.conversation.{k}", int(head[k])) for k in _ROUND_COUNTS if isinstance(head.get(k), int)]
    return pairs, parse_instant(head.get("session_through_time")) or 0


def log_record(f: OutFile, data: bytes, *, digest: str = "", session_time_ns: int = 0, title: str | None = None,
               titles: Callable[[Any], str | None] | None = None) -> Described:
    """The log record of one file from its bytes ``data`` (``digest``: their SHA-256 hex, computed when '').
    ``session_time_ns`` is the session's latest known time, used for a file with no record time. ``title``: a round's
    ``asz.conversation.title`` (:class:`RoundTitles`), else its header's; ``titles``, when given, gives it from the
    round's header as read here (:meth:`RoundTitles.of_head`), so the header is read once.
    A time past what OTLP's ``time_unix_nano`` holds (unsigned 64-bit ns: after 2554-07-21, e.g. a
    record dated 9999-12-31) is sent as 0, OTLP's "unknown"; the ``asz.*_time`` attributes keep it whole.
    Raises ValueError (orjson.JSONDecodeError) for a file whose header is not JSON."""
    digest = digest or hashlib.sha256(data).hexdigest()
    dialect, t = "", 0
    if f.fmt == "sd":
        pairs, dialect, _, t = _sd_attrs(data)
        pairs.append((REREAD, reread_of_file(f.path) or None))  # a source's new reading (trial 34b F2)
    else:
        pairs, t = _sf_attrs(data, title, titles)
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    pairs[1:1] = [("asz.file", f.rel), ("asz.file.digest", digest), ("asz.lines", lines)]
    t = _otlp_time(t) or _otlp_time(session_time_ns)
    rec = LogRecord(time_unix_nano=t, observed_time_unix_nano=time.time_ns(), body=AnyValue(bytes_value=data),
                    attributes=kvs(pairs))
    return Described(rec, digest, len(data), dialect, t)


def _otlp_time(ns: int) -> int:
    """``ns`` when OTLP's fixed64 ``time_unix_nano`` holds it, else 0 (unknown)."""
    return ns if 0 < ns < 1 << 64 else 0


def logs_request(groups: list[tuple[Resource, list[LogRecord]]], scope_version: str = __version__) -> ExportLogsServiceRequest:
    """One ExportLogsServiceRequest: one ResourceLogs per (resource, records) group, all under :data:`SCOPE`."""
    req = ExportLogsServiceRequest()
    for res, records in groups:
        rl = ResourceLogs(resource=res)
        rl.scope_logs.append(ScopeLogs(scope=InstrumentationScope(name=SCOPE, version=scope_version), log_records=records))
        req.resource_logs.append(rl)
    return req
