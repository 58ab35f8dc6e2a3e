"""When no receiver listened on a root: what is known of traces whose every request was lost (trial 28c F3).

A LangSmith client whose receiver does not answer (``asz server`` restarting, a crash, a stop) drops what it sends:
nothing reaches the root, so no record can say it. What the root can know is when it was not listening. Every
receiver on a root (``asz ingest langsmith``, or the one ``asz server`` and watch-mode ``asz collect`` start) writes
``<root>/_ingest/langsmith/listening.json`` when it starts and every :data:`BEAT` seconds while it runs (``pid``,
``since``, ``alive``: RFC 3339 UTC). A receiver that starts and finds the last one's ``alive`` older than
:data:`STALE` seconds, its process gone, appends the time nobody listened to ``gaps.jsonl`` beside it (``{"from",
"to", "seconds"}``, one line each, fsynced) and says it on stderr. ``asz ls`` and ``asz verify`` say the root's gaps
(:func:`gaps`, :func:`gap_line`). A gap is when nothing listened, not proof that something was lost: an app that sent
nothing then lost nothing; an app that sent lost it unless its client retried after the gap. Threads with a
checkpointer say a lost invocation themselves (``questions never arrived``, :func:`.reasons.questions_not_landed`).
"""

from __future__ import annotations

import os
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import orjson

from asz_core.storage.root import owner_alive

from .inbox import INGEST
from .inbox_state import write_atomic

__all__ = ["BEAT", "STALE", "gap_line", "gaps", "listening_now", "record_refusal", "refusal_line", "refusals", "start_beating"]

#: Seconds between two writes of ``listening.json`` while a receiver runs.
BEAT = 5.0
#: A ``listening.json`` whose ``alive`` is older than this many seconds, its process gone, was left by a receiver that stopped.
STALE = 3 * BEAT


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _seconds(text: object) -> float | None:
    """``text`` (RFC 3339, ``Z`` or an offset) as unix seconds; None for anything else (a number, null, a string that
    does not read: a ``listening.json`` damaged or of another version must not stop a receiver from starting)."""
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except (TypeError, ValueError):
        return None


def _running(pid: object) -> bool:
    """Whether ``pid`` (the last receiver's) is another process alive now (:func:`~asz_core.storage.root.owner_alive`;
    a number no pid can be, which ``os.kill`` would refuse with OverflowError, is none)."""
    return isinstance(pid, int) and 0 < pid < 1 << 31 and pid != os.getpid() and owner_alive(pid)


def _gap(ingest: Path) -> dict | None:
    """The time nobody listened before this start, from the last ``listening.json``; None when none (a first start,
    a receiver still beating, or a file that does not read)."""
    try:
        last = orjson.loads((ingest / "listening.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    alive = _seconds(last.get("alive")) if isinstance(last, dict) else None
    now = time.time()
    if alive is None or now - alive < STALE or _running(last.get("pid")):
        return None
    return {"from": last["alive"], "to": _now(), "seconds": round(now - alive, 1)}


def listening_now(ingest: Path) -> bool:
    """Whether a receiver listens on the root of ``ingest`` (``<root>/_ingest/langsmith``) now: its
    ``listening.json`` was written less than :data:`STALE` seconds ago, or names a process alive now. Never raises."""
    try:
        last = orjson.loads((Path(ingest) / "listening.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return False
    if not isinstance(last, dict):
        return False
    alive = _seconds(last.get("alive"))
    return (alive is not None and time.time() - alive < STALE) or _running(last.get("pid"))


def start_beating(storage: Path) -> str:
    """Record this receiver's start under ``storage`` (appending the gap since the last one to ``gaps.jsonl``) and
    keep ``listening.json`` fresh from a daemon thread. Returns the sentence saying the gap, or ''. Never raises: a
    root that cannot be written only goes unsaid."""
    ingest = Path(storage) / INGEST
    said = ""
    try:
        gap = _gap(ingest)
        if gap is not None:
            with open(ingest / "gaps.jsonl", "ab") as f:
                f.write(orjson.dumps(gap) + b"\n")
                f.flush()
                os.fsync(f.fileno())
            said = gap_line(gap)
    except OSError:
        pass
    since = _now()

    def beat() -> None:
        while True:
            try:
                write_atomic(ingest / "listening.json", orjson.dumps({"pid": os.getpid(), "since": since, "alive": _now()}))
            except OSError:
                pass
            time.sleep(BEAT)

    beat_once = orjson.dumps({"pid": os.getpid(), "since": since, "alive": since})
    try:
        write_atomic(ingest / "listening.json", beat_once)
    except OSError:
        pass
    threading.Thread(target=beat, name="asz-langsmith-listening", daemon=True).start()
    return said


def gaps(storage: Path) -> list[dict]:
    """The gaps ``gaps.jsonl`` under ``storage`` lists (each ``{"from", "to", "seconds"}``), in order; [] when none."""
    return [g for g in _lines(Path(storage) / INGEST / "gaps.jsonl")
            if isinstance(g.get("from"), str) and isinstance(g.get("to"), str)]


def _lines(path: Path) -> list[dict]:
    """The JSON objects of the lines of ``path`` that read as one; [] when it does not read."""
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            g = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(g, dict):
            out.append(g)
    return out


def gap_line(g: dict) -> str:
    """One gap in words: when no LangSmith receiver listened on the root, and what that means for what was sent then."""
    return (f"no LangSmith receiver listened on this root from after the last heartbeat at {g['from']} (the one before "
            f"wrote it every {BEAT:g} s, so it stopped within {BEAT:g} s after) to {g['to']} ({g.get('seconds', '?')} s): "
            "what an app sent it then was refused and is lost unless its client sent it again later; such a trace "
            "leaves no record (a thread with a checkpointer says `questions never arrived`)")


def record_refusal(storage: Path, route: str, size: int, why: str) -> str:
    """Append a request the receiver refused whole, unread (a body over ``--max-body``: 413), to ``refused.jsonl``
    under ``storage``'s ingest folder (``{"at", "bytes", "route", "why"}``; ``bytes`` as much of the body as is known:
    its declared ``Content-Length`` or what was read before the limit), fsynced, so ``asz ls``, ``asz verify`` and the
    conversations whose span holds it say it, as they say a gap (trial 32a F1). Returns the sentence saying it. Never
    raises: a root that cannot be written only goes unrecorded (the sentence is still said on stderr)."""
    entry = {"at": _now(), "bytes": size, "route": route, "why": why}
    ingest = Path(storage) / INGEST
    try:
        ingest.mkdir(parents=True, exist_ok=True)
        with open(ingest / "refused.jsonl", "ab") as f:
            f.write(orjson.dumps(entry) + b"\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError:
        pass
    return refusal_line(entry)


def refusals(storage: Path) -> list[dict]:
    """The requests ``refused.jsonl`` under ``storage`` lists (each ``{"at", "bytes", "route", "why"}``); [] when none."""
    return [r for r in _lines(Path(storage) / INGEST / "refused.jsonl") if isinstance(r.get("at"), str)]


def refusal_line(r: dict) -> str:
    """One refused request in words: when, how large, why, and what it means for the runs it held."""
    return (f"the LangSmith receiver refused a request on {r.get('route', '?')} at {r['at']} "
            f"({r.get('bytes', 0):,} bytes or more: {r.get('why', '?')}): every run it held is lost unless its client "
            "sent it again in smaller requests; a conversation running then may lack those runs")
