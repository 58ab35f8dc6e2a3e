"""Derived metrics sent with a push when ``export.otlp.metrics`` is on (origin-digest §8.4; issue 21).

Three monotonic delta sums per minute, values doubles:

- ``agent.token.usage`` (unit ``tokens``): every model call's usage as the
  conversation's document counts it (``asz usage`` counts the same calls,
  finished or not), one point per (minute of the call, ``session.id``, ``model``,
  ``query_source`` main|subagent, ``type`` input|output|cacheRead|cacheCreation);
- ``agent.mcp.calls`` (unit ``{call}``) and ``agent.mcp.duration`` (unit
  ``ms``): every ``execution/1`` record (a call to an MCP server, observed
  after it ended), per (minute, ``session.id``, ``mcp_server.name``,
  ``mcp_server.source``, ``mcp_tool.name``, ``outcome``, ``query_source``).

What was sent is kept per session and per endpoint in
``<session>/metrics/sent-<endpoint, percent-escaped>.json`` (the counts sent
per call, the execution ids counted, and the head round they were read at),
so each token and execution is counted once at each receiver; the file is
written after the receiver answered, so a crash between the two sends those
points again (a metric can be counted twice then, never lost). A
``sent.json`` written before 2026-12-04 named no endpoint: it belongs to the
endpoint ``push.state`` named when the pass began, and is renamed to that
endpoint's file the first time it is read (:func:`sent_path`; trial 19, F23:
a second endpoint got every file and never a metric).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import orjson
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.metrics.v1.metrics_pb2 import (
    AGGREGATION_TEMPORALITY_DELTA,
    Metric,
    NumberDataPoint,
    ResourceMetrics,
    ScopeMetrics,
    Sum,
)

from .. import __version__
from ..flow.chain import Chain, conversation_dirs
from ..sessiondata import SDReader, parse_instant
from ..sessiondata.mcpname import mcp_split
from ..sessiondata.reader import SDError
from ..storage.layout import landed_files, parse_landed_name, session_dir, session_listing
from .state import endpoint_key
from .wire import SCOPE, kvs, resource

__all__ = ["derive", "held_elsewhere", "metrics_request", "send_metrics", "sent_path", "SENT", "HELD_WHY", "metrics_held_why",
           "metrics_not_sent"]

#: Per-session file of what was sent, before 2026-12-04 (no endpoint named; :func:`sent_path`).
SENT = Path("metrics") / "sent.json"
_TYPES = (("in", "input"), ("out", "output"), ("cache_read", "cacheRead"), ("cache_write", "cacheCreation"))
_MINUTE = 60_000_000_000


def _minute(ns: int | None) -> int:
    """The minute ``ns`` falls in; 0 (OTLP's unknown) for a time past what fixed64 ns hold with its minute (year 2554)."""
    return (ns or 0) // _MINUTE * _MINUTE if (ns or 0) < (1 << 64) - _MINUTE else 0


def _mcp_tool(name: str) -> str:
    """``mcp_tool.name`` of a call (§8): the tool side of the name's MCP split, the whole name when it does not split."""
    split = mcp_split(name)
    return split[1] if split else name


def _executions(sdir: Path, elsewhere: frozenset = frozenset()) -> Iterator[tuple[str, dict, str, bool]]:
    """(execution id, execution/1 object, stream, counted elsewhere) of every landed execution record of a session;
    counted elsewhere: the record is one of ``elsewhere`` (:func:`held_elsewhere`'s keys)."""
    for ln, p in landed_files(sdir):
        if ln.kind != "execution":
            continue
        reader = SDReader(p, decode="dict")
        where = (p.parent.parent.name + "/" + p.parent.name, ln.kind)
        for _, rec in reader:
            for part in rec.get("parts", ()):
                d = part.get("data")
                if isinstance(d, dict) and d.get("schema") == "execution/1" and d.get("id"):
                    yield (str(d["id"]), d, (reader.header.stream if reader.header else "") or "main",
                           (*where, rec.get("ord")) in elsewhere)


def held_elsewhere(root: Path, state, session: str) -> frozenset[tuple[str, str, int]] | None:
    """The records of ``session`` (``(<streams|runs>/<name>, kind, ord)``) the receiver of ``state`` holds from another
    root: those of the files it refused as holding every record of them (``elsewhere … all``) that are in no file it
    took from this root (the rest of a stream, the files landed there since). That root sent their metrics with them
    (docs/push.md, Metrics), so this root counts their calls as sent. None when the metrics of the session cannot be
    sent: a file of it refused otherwise (``part``: the receiver is short; a rejection), or one of those files is no
    longer here (removed by retention: its records cannot be told)."""
    refused = [rel for rel in state.rejected if rel.split("/", 1)[0] == session and rel.endswith(".sd")]
    if any(state.elsewhere.get(rel, ("",))[0] != "all" for rel in refused):
        return None
    taken = [rel for rel in state.pushed if rel.split("/", 1)[0] == session and rel.endswith(".sd")
             and rel not in state.rejected]
    got: list[set] = []
    for rels in (refused, taken):
        keys: set[tuple[str, str, int]] = set()
        for rel in rels:
            p = root / rel
            ln = parse_landed_name(p.name)
            if ln is None or not p.is_file():
                return None
            where = (p.parent.parent.name + "/" + p.parent.name, ln.kind)
            try:
                keys.update((*where, int(d["ord"])) for _, d in SDReader(p, decode=False))
            except (SDError, OSError, KeyError, TypeError, ValueError):
                return None
        got.append(keys)
    return frozenset(got[0] - got[1])


def derive(root: Path, session: str, conversation: str, sent: dict, calls: list | None = None,
           before: dict[str, dict | None] | None = None, elsewhere: frozenset = frozenset()) -> tuple[dict, dict]:
    """New points ``{(metric, minute, attrs tuple): value}`` of a session not in ``sent``, and ``sent`` updated.

    Every provider call whose records carry usage counts, finished or not, as ``asz usage`` counts it (Claude Code
    writes no stop reason on most calls: the last usage landed is the figure). ``sent["usage"]`` keeps, per call
    (:func:`~asz_core.view.document.conversation_call_ids`), the four counts sent so far; a pass sends what a count
    grew by since (a delta at the minute of the record the usage now comes from), never a count that went down. The
    calls an older ``sent.json`` lists under ``calls`` (finished calls, keyed by their time, model, lane and usage)
    count as sent with the usage they have. ``calls`` is :func:`~asz_core.view.document.conversation_call_ids`' list
    when the caller has it (default: read here).

    ``before``: per call id, the usage another root counted of it (:func:`held_elsewhere`,
    :func:`~asz_core.view.document.checked_call_ids_within`): a call this endpoint never got a count of counts as sent
    with that usage, so what is sent is what it grew by since (the records the receiver took from this root); the
    executions of ``elsewhere`` records count as sent. So the receiver's sums hold each token once.
    """
    from ..view.document import conversation_call_ids

    points: dict[tuple, float] = {}
    older = set(sent.get("calls", ()))
    execs = set(sent.get("executions", ()))
    counted: dict[str, list[int]] = {k: list(v) for k, v in (sent.get("usage") or {}).items()}
    seen: dict[str, int] = {}
    for ident, cu in (calls if calls is not None else conversation_call_ids(root, conversation)):
        base = f"{cu.time}|{cu.model}|{cu.lane}|{orjson.dumps(cu.usage).decode() if cu.usage else ''}"
        seen[base] = seen.get(base, 0) + 1
        if not cu.usage:
            continue
        now = [cu.usage.get(k, 0) for k, _ in _TYPES]
        was = counted.get(ident)
        if was is None:
            theirs = (before or {}).get(ident)
            was = (now if cu.state == "final" and f"{base}#{seen[base]}" in older
                   else [theirs.get(k, 0) for k, _ in _TYPES] if theirs else [0] * len(_TYPES))
        counted[ident] = [max(a, b) for a, b in zip(now, was)]
        source = "main" if cu.lane == "main" else "subagent"
        for (_, t), a, b in zip(_TYPES, now, was):
            if a > b:
                key = ("agent.token.usage", _minute(cu.time), (("session.id", session), ("model", cu.model), ("query_source", source), ("type", t)))
                points[key] = points.get(key, 0.0) + (a - b)
    for eid, d, stream, theirs in _executions(session_dir(root, session), elsewhere):
        if eid in execs:
            continue
        execs.add(eid)
        if theirs:
            continue  # counted by the root the receiver holds it from
        server = d.get("server") if isinstance(d.get("server"), dict) else {}
        a = (("session.id", session), ("mcp_server.name", str(server.get("name", ""))), ("mcp_server.source", str(server.get("source", ""))),
             ("mcp_tool.name", _mcp_tool(str(d.get("tool_name", "")))), ("outcome", str(d.get("outcome", ""))),
             ("query_source", "main" if stream == "main" else "subagent"))
        m = _minute(parse_instant(d.get("time")))
        points[("agent.mcp.calls", m, a)] = points.get(("agent.mcp.calls", m, a), 0.0) + 1.0
        if isinstance(d.get("duration_ms"), (int, float)):
            points[("agent.mcp.duration", m, a)] = points.get(("agent.mcp.duration", m, a), 0.0) + float(d["duration_ms"])
    return points, {"usage": dict(sorted(counted.items())), "executions": sorted(execs)}


_UNITS = {"agent.token.usage": "tokens", "agent.mcp.calls": "{call}", "agent.mcp.duration": "ms"}


def metrics_request(points: dict, res) -> ExportMetricsServiceRequest:
    """One request holding ``points`` as monotonic delta sums under :data:`SCOPE` and ``res``."""
    return ExportMetricsServiceRequest(resource_metrics=[_resource_metrics(points, res)])


def _resource_metrics(points: dict, res) -> ResourceMetrics:
    """``points`` as monotonic delta sums under :data:`SCOPE` and ``res``: one resource's part of a request."""
    metrics: dict[str, Metric] = {}
    for (name, minute, a), value in sorted(points.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
        m = metrics.get(name)
        if m is None:
            m = metrics[name] = Metric(name=name, unit=_UNITS[name],
                                       sum=Sum(aggregation_temporality=AGGREGATION_TEMPORALITY_DELTA, is_monotonic=True))
        m.sum.data_points.append(NumberDataPoint(start_time_unix_nano=minute, time_unix_nano=minute + _MINUTE, as_double=value,
                                                 attributes=kvs(list(a))))
    sm = ScopeMetrics(scope=InstrumentationScope(name=SCOPE, version=__version__), metrics=list(metrics.values()))
    return ResourceMetrics(resource=res, scope_metrics=[sm])


def sent_path(sdir: Path, endpoint: str, owner: str) -> Path:
    """``<sdir>/metrics/sent-<key>.json``: what was sent of session ``sdir`` to ``endpoint``
    (:func:`~asz_core.export.state.endpoint_key`). A ``sent.json`` of before, with no endpoint's file yet, is renamed
    to the file of ``owner`` (the endpoint ``push.state`` named when the pass began; ``endpoint`` when '' ), whose
    receipts it holds. Raises OSError when it cannot be renamed."""
    mine = sdir / "metrics" / f"sent-{endpoint_key(endpoint)}.json"
    old = sdir / SENT
    if not mine.is_file() and old.is_file():
        theirs = sdir / "metrics" / f"sent-{endpoint_key(owner or endpoint)}.json"
        if not theirs.is_file():
            os.replace(old, theirs)
    return mine


def _write(path: Path, value: dict) -> None:
    """``value`` as JSON replacing ``path`` whole (:func:`~asz_core.storage.root.write_at_once`, unsynced: a crash
    sends the points again): anything raised from the open on removes its temporary (session 41: it was left)."""
    from ..storage.root import write_at_once

    path.parent.mkdir(parents=True, exist_ok=True)
    write_at_once(path, orjson.dumps(value), False)


#: The most data points one metrics request carries. The points of several conversations go in one request, each under
#: its own resource (as a logs batch holds several sessions' records), and each one's sent file is written after that
#: request's answer (perf47b: one request a conversation was 270 round trips for a 200 MB root, trial 47d F3).
BATCH_POINTS = 4096


class _Waiting:
    """The conversations whose points wait for the next metrics request: (session, resource, points, sent file, what
    the file will hold). Their sent files are written only after the answer of the request that carried them."""

    def __init__(self, p):
        self.p, self.items, self.points = p, [], 0

    def has(self, sent_at: Path) -> bool:
        return any(it[3] == sent_at for it in self.items)

    def add(self, session: str, res, points: dict, sent_at: Path, now_sent: dict) -> bool:
        """Keep one conversation's points; sends them all once :data:`BATCH_POINTS` are waiting. False: that failed."""
        self.items.append((session, res, points, sent_at, now_sent))
        self.points += len(points)
        return self.points < BATCH_POINTS or self.send()

    def send(self) -> bool:
        """One request of every waiting point; the sent files after its answer. False when it failed (said)."""
        if not self.items:
            return True
        items, self.items, self.points = self.items, [], 0
        req = ExportMetricsServiceRequest(resource_metrics=[_resource_metrics(pts, res) for _, res, pts, _, _ in items])
        ans = self.p.request("metrics", req)
        if not ans.ok:
            more = f" and {len(items) - 1:,} more session(s)" if len(items) > 1 else ""
            self.p.problem(f"metrics of {items[0][0]}{more}: {ans.error}")
            return False
        for _, _, pts, sent_at, now_sent in items:
            self.p.rep.metrics += len(pts)
            _write(sent_at, now_sent)
        return True


def send_metrics(p) -> None:
    """Send each session's new points (several conversations' in one request, at most :data:`BATCH_POINTS`; each
    conversation's sent file written after the answer of the request holding its points); ``p`` is the push pass (its
    request, report, problem).

    A session with a landed file the receiver rejected sends none (``p.refused``; counted in ``p.held_metrics``) and
    keeps its ``sent.json`` as it is, so they go once no file of it is refused. A conversation that does not verify
    (its document's state ``incomplete`` or ``mismatch``) sends none either, as ``asz usage`` counts none of its calls:
    a changed file's numbers are what cannot be trusted (listed in ``p.rep.metrics_held_back``, ``sent.json`` kept).
    """
    from ..storage.ids import shown_names
    from ..view.document import checked_call_ids_within

    cdirs = conversation_dirs(p.root)
    shown = shown_names(c.name for c in cdirs)  # a held-back one named so it can be given back to asz verify
    waiting = _Waiting(p)
    p.metrics_of = [0, len(cdirs)]  # conversations looked at, of all: the progress line's (trial 47d F3)
    # the points to send found so far, and their total once every conversation is read (None until then: fix48b)
    p.metrics_found, p.metrics_total = 0, None
    poke = getattr(p.snd, "poke", None)  # a progress line due is said between requests too (transport.Poked)
    for cdir in cdirs:
        p.metrics_of[0] += 1
        if poke is not None:
            poke()
        head = Chain.at(cdir).head_file()
        if head is None:
            continue
        try:
            session = str(orjson.loads(head.path.open("rb").readline()).get("session") or cdir.name)
            sdir = session_dir(p.root, session)
            if not sdir.is_dir():
                continue
            sent_at = sent_path(sdir, p.state.endpoint, p.metrics_owner)
            if waiting.has(sent_at) and not waiting.send():  # another conversation of the session: read what it sent
                return
            sent = orjson.loads(sent_at.read_bytes()) if sent_at.is_file() else {}
            if sent.get("head") == head.path.name and sent.get("executions_seq") == _top_seq(sdir, True) and "usage" in sent:
                continue  # nothing new since its points were sent (its files may be skeletons since: trial 34b F4)
            elsewhere: frozenset | None = frozenset()
            if sdir.name in p.refused:
                elsewhere = held_elsewhere(p.root, p.state, sdir.name)
            if sdir.name in p.refusals.unstored:  # files of it the receiver could not store go again first (trial 34b F1)
                continue
            if elsewhere is None and _held_all(p.state, sdir.name):  # every record there from another root, which
                continue  # sent their metrics; none of this root's own to send (trial 34b F4: said as "rejected")
            if elsewhere is None or session in p.held:  # held: removed before the receiver took it (push.held_back)
                # The receiver refused evidence of this session it does not hold whole: its points would count calls
                # whose records it never took from us. (Records it holds from another root count as that root's.)
                why = metrics_held_why(p, sdir.name)
                p.held_metrics[why] = p.held_metrics.get(why, 0) + 1
                continue
            calls, state, _, before = checked_call_ids_within(p.root, cdir.name, _within(sdir, elsewhere) if elsewhere else None)
            if state != "verified" or session in p.unverified:  # its files were held back too (push.py)
                p.rep.metrics_held_back.append(f"{shown(cdir.name)} {state if state != 'verified' else 'held back'}")
                continue
            points, now_sent = derive(p.root, session, cdir.name, sent, calls, before, elsewhere)
        except Exception as exc:  # noqa: BLE001 - a conversation that does not read sends no metrics, and says so
            p.problem(f"metrics of {cdir.name}: {type(exc).__name__}: {exc}")
            continue
        now_sent.update(head=head.path.name, executions_seq=_top_seq(sdir))
        p.metrics_found += len(points)
        if not points:
            _write(sent_at, now_sent)
        elif not waiting.add(session, resource(p.service(session, _dialect(sdir)), p.instance, p.cfg.layer, p.root),
                             points, sent_at, now_sent):
            return
    p.metrics_total = p.metrics_found  # every conversation read: the progress line can say of how many
    if waiting.send() and poke is not None:
        poke()  # the last request's points counted as sent (its answer's poke came before)


#: Why a session's metrics were not sent (:func:`metrics_held_why`), as the pass's note says it after the count.
HELD_WHY = {"removed": "retention removed landed files of theirs before {endpoint} received them",
            "owned": "{endpoint} holds them as another credential's (that credential's sender sends their metrics)",
            "elsewhere": "{endpoint} holds them from another root and lacks records of them",
            "rejected": "{endpoint} rejected landed files of theirs"}


def metrics_not_sent(held: dict[str, int], endpoint: str) -> str:
    """The note of the sessions whose metrics a pass did not send (``held``: :data:`.metrics.HELD_WHY` key -> how
    many), each count with its real reason (trial 41a F6), largest first."""
    why = "; ".join(f"{n:,} {HELD_WHY[k].format(endpoint=endpoint)}" for k, n in sorted(held.items(), key=lambda x: -x[1]))
    return f"the metrics of {sum(held.values()):,} session(s) not sent: {why}"


def metrics_held_why(p, session: str) -> str:
    """The key of :data:`HELD_WHY` saying why the metrics of ``session`` are not sent on pass ``p`` (trial 41a F6: a
    pass that rejected nothing, held=253, said "rejected landed files of theirs"): ``removed`` (retention removed
    files of it before this endpoint received them), ``owned`` (the receiver refused its files as another
    credential's), ``elsewhere`` (held from another root, some records lacking), else ``rejected``."""
    if session in p.held:
        return "removed"
    refused = [rel for rel in p.state.rejected if rel.split("/", 1)[0] == session]
    if any(rel in p.state.owned for rel in refused):
        return "owned"
    if any(rel in p.state.elsewhere for rel in refused):
        return "elsewhere"
    return "rejected"


def _held_all(state, session: str) -> bool:
    """True when every landed file of ``session`` ``state`` names was refused as held whole from another root
    (``elsewhere … all``) and none was taken from this root: that root sent every record's metrics, this one has none
    of its own (the files may be gone since: retention removes such files, counted as received)."""
    mine = [rel for rel in state.pushed if rel.split("/", 1)[0] == session and rel.endswith(".sd")]
    return bool(mine) and all(rel in state.rejected and state.elsewhere.get(rel, ("",))[0] == "all" for rel in mine)


def _within(sdir: Path, elsewhere: frozenset):
    """``within(seq, ord)`` of :func:`~asz_core.view.document.checked_call_ids_within`: True for a record of
    ``elsewhere`` (:func:`held_elsewhere`), found by its landed file's seq here."""
    where = {ln.seq: (p.parent.parent.name + "/" + p.parent.name, ln.kind) for ln, p in landed_files(sdir)}
    return lambda seq, o: seq in where and (*where[seq], o) in elsewhere


def _top_seq(sdir: Path, skeletons: bool = False) -> int:
    """The highest seq of ``sdir``'s landed files (``skeletons``: of its skeletons too: retention removed nothing
    new since, trial 34b F4); 0 when none."""
    files = session_listing(sdir, skeletons=True).files if skeletons else landed_files(sdir)
    return max((ln.seq for ln, _ in files), default=0)


def _dialect(sdir: Path) -> str:
    """The dialect of a session's first landed file ('' when none reads)."""
    for _, pth in landed_files(sdir):
        try:
            with open(pth, "rb") as f:
                return str(orjson.loads(f.readline()).get("dialect", ""))
        except (OSError, orjson.JSONDecodeError, AttributeError):
            return ""
    return ""
