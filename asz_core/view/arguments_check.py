"""An execution record's arguments held against the transcript's input of the call it joins (trial 23a, F8).

``asz hook`` keeps the arguments of an MCP call as ``{state: "size_only", bytes, sha256}`` over the value the server
was sent, re-encoded as canonical JSON (origin-digest §3.8; docs/claude-code-hooks.md); the transcript's call part
keeps the model's own input (``tool_use.input``) as the source wrote it, compacted (seed 000, What data holds). A hook
before the call that rewrote the input makes the two differ (seed 000, Execution records). :func:`arguments_check`
measures the call part's input by the same rule and says which way it went, per execution entry of the document's
``tool_executions``; :func:`differences` counts the ones that differ (``summary.arguments_differ``, docs/view.md).

The one matching rule, which the document (:class:`~asz_core.view.view_base.ViewBase`) and ``asz verify``
(:mod:`asz_core.view.executions_check`) both call: an entry joins the first call part (``k: "call"``) whose ``id`` is
the entry's ``tool``, in landed order (seq, then row, then block: :func:`calls_named`); :func:`held_against` says why
the transcript's side is not there to read (no such call, its file removed, not verifying, its record withheld) or
measures it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Collection, Iterable, Iterator

from ..sessiondata.execution_digest import measure_value, strict_loads  # the one definition of the digest (§3.8)
from ..sessiondata.times import parse_instant

__all__ = ["AGREE", "DIFFER", "CANNOT_COMPARE", "HELD_DIFFER", "OBSERVED_FIELDS", "TRANSCRIPT_CHECKS", "arguments_check", "calls_named",
           "differences", "execution_keys", "held_against", "hold_all", "NO_RESULT", "NO_EXECUTION", "no_result", "unrecorded_calls", "observation_entries", "once_each", "result_forms", "transcript_check",
           "transcript_differences", "transcript_input"]

AGREE, DIFFER, CANNOT_COMPARE = "agree", "differ", "cannot_compare"


def _digest(v) -> tuple[int, str] | None:
    """``(bytes, sha256)`` of an execution record's ``arguments``, or None when it holds no digest of them."""
    if not isinstance(v, dict):
        return None
    n, sha = v.get("bytes"), v.get("sha256")
    if isinstance(n, int) and not isinstance(n, bool) and isinstance(sha, str) and len(sha) == 64:
        return n, sha
    return None


def transcript_input(line: bytes, block: int) -> dict | str:
    """``{state: "size_only", bytes, sha256}`` of the input the call part ``block`` of the landed record ``line`` (its
    JSON line, as the file holds it) keeps, measured as ``asz hook`` measures ``tool_input`` (§3.8: compact, keys
    sorted, numbers as their literal text, Go's string escapes); else why it cannot be measured (a str). The line is
    decoded again with numbers kept as written, since the view's records hold them as floats (``1.50`` is ``1.5``)."""
    p = _part(line, block, "call")
    if isinstance(p, str):
        return "the tool step names no call part in the transcript" if p.startswith("the transcript names no") else p
    state = p.get("state") or "available"
    if state != "available":  # a part made smaller to land (seed 000, Too large to land): not the input the model sent
        return f"the transcript's input did not land whole (state {state})"
    if "data" not in p:
        return "the transcript's call part holds no input"
    try:
        return measure_value(p["data"])
    except (TypeError, ValueError, RecursionError):
        return "the transcript's input does not encode as JSON"


def arguments_check(entry: dict, why_not: str | None, measured: Callable[[], dict | str] | None) -> dict:
    """The ``arguments_check`` of one ``tool_executions`` entry: ``{"result": "agree"}``; ``{"result": "differ",
    "transcript": {bytes, sha256}}`` (the record's own ``arguments`` beside it); or ``{"result": "cannot_compare",
    "why": "..."}``. ``why_not``: why the transcript's side is not there to read (the entry joins no step, the call's
    record is withheld, does not verify or was removed), else None; ``measured``: :func:`transcript_input` of the
    call, called only when both sides are there. Never raises."""
    ours = _digest(entry.get("arguments"))
    if why_not is None and ours is None:
        why_not = "the execution record holds no digest of the arguments"
    if why_not is None and measured is not None:
        got = measured()
        if isinstance(got, str):
            why_not = got
        else:
            if (got["bytes"], got["sha256"]) == ours:
                return {"result": AGREE}
            return {"result": DIFFER, "transcript": {"bytes": got["bytes"], "sha256": got["sha256"]}}
    return {"result": CANNOT_COMPARE, "why": why_not or "the transcript's call is not there to read"}


def observation_entries(parts: Iterable[tuple[int, int, int, dict]]) -> tuple[list[dict], list[dict]]:
    """``(changes, executions)``: an entry per ``changes/1`` and per ``execution/1`` data part of ``parts`` (``(seq,
    row, block, part)`` as :meth:`~asz_core.view.session_records.LandedSession.listed_parts` gives them), its data's
    keys after ``step: ""`` and ``ref: {seq, row, block}``; each list in time order (no time last; at one time the
    runtime's record before the plugin's, then landed order), each execution record's id once (:func:`once_each`).
    The document's ``tool_changes`` and ``tool_executions`` before they are joined to their steps."""
    changes: list[tuple] = []
    executions: list[tuple] = []
    for seq, row, block, p in parts:
        if p["k"] != "data":
            continue
        v = p.get("data")
        if not isinstance(v, dict):
            continue
        schema = v.get("schema")
        if schema not in ("changes/1", "execution/1"):
            continue
        t = parse_instant(v.get("time"))
        runtime_first = 1 if v.get("captured_by") == "asz-plugin" else 0  # the runtime's record (claude-code, kiro) first
        key = (0 if t is not None else 1, t or 0, runtime_first, seq, row, block)
        entry = {"step": "", "ref": {"seq": seq, "row": row, "block": block}, **v}
        (changes if schema == "changes/1" else executions).append((key, entry))
    changes.sort(key=lambda x: x[0])
    executions.sort(key=lambda x: x[0])
    return [e for _, e in changes], [e for _, e in once_each(executions)]


#: What a later observation of one call (the same execution record ``id``) is held against the first on (trial 30c
#: F2): a retried hook repeats every one of them and is one observation; one that gives another value for any is said.
OBSERVED_FIELDS = ("tool_name", "outcome", "failure", "arguments", "result", "error")
_DIGESTS = ("arguments", "result", "error")


def _same(a: dict, b: dict, key: str) -> bool:
    """Whether execution entries ``a`` and ``b`` say the same of ``key`` (a digest by its ``bytes`` and ``sha256``)."""
    if key in _DIGESTS:
        return (key in a, _digest(a.get(key))) == (key in b, _digest(b.get(key)))
    return a.get(key) == b.get(key)


def once_each(executions: list[tuple]) -> list[tuple]:
    """``executions`` (``(sort key, entry)``, sorted) with each execution record's id once: the first kept (docs/
    claude-code-hooks.md: the id is ``<tool_use_id>/client_hook``, and the same event delivered twice is one
    observation; trial 20, F6: a payload fed twice to ``asz hook`` was listed twice under one id). An entry with no
    id is kept. The kept entry of an id observed more than once gains ``observed_times`` (how many records give the
    id), and, for each later one that differs from it in one of :data:`OBSERVED_FIELDS` (trial 30c F2: a call the hook
    saw fail and then return), an ``observed_again`` entry ``{ref, time, differs: [field…], <each field that differs:
    the later record's value>}``; the figures still count the first (by time)."""
    first: dict[str, dict] = {}
    out = []
    for key, e in executions:
        eid = e.get("id")
        if isinstance(eid, str) and eid:
            kept = first.get(eid)
            if kept is not None:
                kept["observed_times"] = kept.get("observed_times", 1) + 1
                differs = [f for f in OBSERVED_FIELDS if not _same(kept, e, f)]
                if differs:
                    again = {"ref": e.get("ref"), "time": e.get("time"), "differs": differs}
                    again.update((f, e[f]) for f in differs if f in e)
                    kept.setdefault("observed_again", []).append(again)
                continue
            first[eid] = e
        out.append((key, e))
    return out


def calls_named(records: Iterable[tuple[int, int, object]], ids: Collection[str],
                results: dict[str, tuple[int, int, int]] | None = None) -> dict[str, tuple[int, int, int]]:
    """``{id: (seq, row, block)}``: for each call id of ``ids``, the first call part (``k: "call"``) whose ``id`` it is,
    among ``records`` (``(seq, row, record)``, a record as decoded from its landed line, in landed order: seq, then
    row). An id no call part carries is no key. Stops once every id is found. ``results``, when given, is filled the
    same way with the first result part (``k: "result"``) whose ``of`` is each id (trial 30c F3), and the walk then
    stops once every call and every result is found."""
    want = {i for i in ids if isinstance(i, str) and i}
    out: dict[str, tuple[int, int, int]] = {}
    if not want:
        return out
    for seq, row, block, p in _dict_parts(records):
        k = p.get("k")
        if k == "call":
            i = p.get("id")
            if i in want and i not in out:
                out[i] = (seq, row, block)
        elif k == "result" and results is not None:
            i = p.get("of")
            if i in want and i not in results:
                results[i] = (seq, row, block)
        else:
            continue
        if len(out) == len(want) and (results is None or len(results) == len(want)):
            break
    return out


def _dict_parts(records: Iterable[tuple[int, int, object]]) -> Iterator[tuple[int, int, int, dict]]:
    """``(seq, row, block, part)`` for each part of ``records`` (``(seq, row, record)`` as :func:`calls_named` takes
    them) that is an object, in landed order; a record with no ``parts`` list, or a part that is not an object, gives
    nothing."""
    for seq, row, rec in records:
        parts = rec.get("parts") if isinstance(rec, dict) else None
        if isinstance(parts, list):
            for block, p in enumerate(parts):
                if isinstance(p, dict):
                    yield seq, row, block, p


def _why_not(entry: dict, at: tuple[int, int, int] | None, what: str, removed: Callable[[int], bool],
             unverified: Callable[[int], bool], withheld: Callable[[int, int], bool]) -> str | None:
    """Why the transcript's ``what`` (``call`` or ``result``) at ``at`` is not there to hold ``entry`` against (no
    such part, its file removed, not verifying, its record withheld), else None."""
    if at is None:
        return f"no tool {what} of the transcript has this id" if entry.get("tool") else "the execution record names no tool call"
    if removed(at[0]):
        return f"retention removed the transcript's record of the {what} (its skeleton keeps no " \
               f"{'input' if what == 'call' else 'value'})"
    if unverified(at[0]):
        return f"the transcript's record of the {what} does not verify"
    if withheld(at[0], at[1]):
        return f"the transcript's record of the {what} is withheld"
    return None


def held_against(entry: dict, call: tuple[int, int, int] | None, *, removed: Callable[[int], bool],
                 unverified: Callable[[int], bool], withheld: Callable[[int, int], bool],
                 line: Callable[[int, int], bytes | None]) -> dict:
    """The ``arguments_check`` of one ``tool_executions`` entry (:func:`arguments_check`), ``call`` being what
    :func:`calls_named` found for its ``tool`` (None: none). ``removed(seq)``: retention replaced the call's file by
    its skeleton; ``unverified(seq)``: the file does not verify; ``withheld(seq, row)``: the call's record is withheld
    (``--hide``); ``line(seq, row)``: the record's JSON line as landed (None when it is not there), read only when
    both sides are there. Never raises."""
    why = _why_not(entry, call, "call", removed, unverified, withheld)
    if why is not None or call is None:
        return arguments_check(entry, why, None)
    seq, row, block = call

    def measured() -> dict | str:
        got = line(seq, row)
        return "the transcript's record line is not there to read" if got is None else transcript_input(got, block)

    return arguments_check(entry, None, measured)


def _part(line: bytes | None, block: int, k: str) -> dict | str:
    """Part ``block`` of the landed record ``line`` decoded with numbers kept as written, when it is a ``k`` part;
    else why not (a str)."""
    if line is None:
        return "the transcript's record line is not there to read"
    try:
        rec = strict_loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return "the transcript's record line does not read as JSON"
    parts = rec.get("parts") if isinstance(rec, dict) else None
    p = parts[block] if isinstance(parts, list) and 0 <= block < len(parts) else None
    return p if isinstance(p, dict) and p.get("k") == k else f"the transcript names no {k} part there"


def result_forms(p: dict) -> list[dict] | str:
    """The digests (``{state: "size_only", bytes, sha256}``, :func:`measure_value`) the value ``asz hook`` hashes as
    ``result`` (the event's ``tool_response``) may have in the transcript's result part ``p`` (trial 30c F3): its
    ``data`` (the record's ``toolUseResult``, which Claude Code writes as the MCP tool's content list, or the raw
    content), its ``text`` as the string the ``tool_result`` content was, and that text as the content list of one
    text item (a part with no text had an empty content: ``""`` and ``[]``); else why it cannot be measured (a str): a
    part made smaller to land."""
    state = p.get("state") or "available"
    if state != "available":
        return f"the transcript's tool result did not land whole (state {state})"
    text = p.get("text") if isinstance(p.get("text"), str) else ""  # no text landed: the content was empty ("" or [])
    values = ([p["data"]] if "data" in p else []) + [text, [{"type": "text", "text": text}] if text else []]
    forms = []
    for v in values:
        try:
            forms.append(measure_value(v))
        except (TypeError, ValueError, RecursionError):
            continue
    return forms


def _check(result: str, **more) -> dict:
    return {"result": result, **more}


def transcript_check(entry: dict, call: tuple[int, int, int] | None, result: tuple[int, int, int] | None, *,
                     removed: Callable[[int], bool], unverified: Callable[[int], bool],
                     withheld: Callable[[int, int], bool], record: Callable[[int, int], dict | None],
                     line: Callable[[int, int], bytes | None]) -> dict:
    """The ``transcript_check`` of one ``tool_executions`` entry (trial 30c F3; docs/claude-code-hooks.md, Held against
    the transcript): ``{"name": …, "outcome": …, "result": …}``, each ``{"result": "agree"}``, ``{"result": "differ",
    "transcript": <the transcript's side>}`` or ``{"result": "cannot_compare", "why": "…"}``:

    * ``name``: the record's ``tool_name`` against the call part's ``name`` (``transcript``: that name);
    * ``outcome``: the record's ``outcome`` (``returned``; ``failed`` and ``interrupted`` both an error) against the
      result part's ``failed`` (the ``tool_result``'s ``is_error``; absent is the API's default, false):
      ``transcript`` ``returned`` or ``failed``;
    * ``result``: a returned call's ``result`` digest against :func:`result_forms` of the result part, agreeing
      when it is one of them (``transcript``: the first, ``{bytes, sha256}``).

    ``call``, ``result``: what :func:`calls_named` found (None: none); ``removed``, ``unverified``, ``withheld``,
    ``line`` as :func:`held_against` takes them; ``record(seq, row)``: the landed record decoded (None when it is
    not there), for a name and a ``failed`` flag, which a skeleton keeps too. Never raises."""
    out: dict[str, dict] = {}

    def part(at: tuple[int, int, int], k: str) -> dict | str:
        rec = record(at[0], at[1])
        parts = rec.get("parts") if isinstance(rec, dict) else None
        p = parts[at[2]] if isinstance(parts, list) and 0 <= at[2] < len(parts) else None
        return p if isinstance(p, dict) and p.get("k") == k else f"the transcript names no {k} part there"

    keep_removed = lambda seq: False  # a skeleton keeps a call's name and a result's failed flag (seed 000, Skeletons)
    why = _why_not(entry, call, "call", keep_removed, unverified, withheld)
    got = part(call, "call") if why is None and call is not None else why
    name = entry.get("tool_name")
    if isinstance(got, str):
        out["name"] = _check(CANNOT_COMPARE, why=got)
    elif not isinstance(got.get("name"), str) or not isinstance(name, str) or not name:
        out["name"] = _check(CANNOT_COMPARE, why="one side names no tool")
    else:
        out["name"] = _check(AGREE) if got["name"] == name else _check(DIFFER, transcript=got["name"])
    why = _why_not(entry, result, "result", keep_removed, unverified, withheld)
    got = part(result, "result") if why is None and result is not None else why
    ours = {"returned": "returned", "failed": "failed", "interrupted": "failed"}.get(entry.get("outcome"))
    if isinstance(got, str):
        out["outcome"] = _check(CANNOT_COMPARE, why=got)
    elif ours is None:
        out["outcome"] = _check(CANNOT_COMPARE, why="the execution record says no outcome")
    else:
        theirs = "failed" if got.get("failed") is True else "returned"
        out["outcome"] = _check(AGREE) if theirs == ours else _check(DIFFER, transcript=theirs)
    digest = _digest(entry.get("result"))
    if isinstance(got, str):
        out["result"] = _check(CANNOT_COMPARE, why=got)
    elif digest is None:
        out["result"] = _check(CANNOT_COMPARE, why="the execution record holds no digest of a result (the call did "
                               "not return)" if entry.get("outcome") != "returned" else
                               "the execution record holds no digest of the result")
    elif result is not None and removed(result[0]):
        out["result"] = _check(CANNOT_COMPARE, why=_why_not(entry, result, "result", removed, unverified, withheld))
    else:
        p = _part(line(result[0], result[1]), result[2], "result")
        forms = p if isinstance(p, str) else result_forms(p)
        if isinstance(forms, str):
            out["result"] = _check(CANNOT_COMPARE, why=forms)
        elif any((f["bytes"], f["sha256"]) == digest for f in forms):
            out["result"] = _check(AGREE)
        else:
            out["result"] = _check(DIFFER, transcript={"bytes": forms[0]["bytes"], "sha256": forms[0]["sha256"]})
    return out


def hold_all(executions: list[dict], records: Iterable[tuple[int, int, object]], *, removed: Callable[[int], bool],
             unverified: Callable[[int], bool], withheld: Callable[[int, int], bool],
             line: Callable[[int, int], bytes | None], record: Callable[[int, int], dict | None],
             more: Callable[[set], Iterable[tuple[int, int, object]]] | None = None,
             mcp: Iterable[tuple[int, int, object]] | None = None) -> tuple[dict[str, tuple[int, int, int]], list[dict]]:
    """Give each ``tool_executions`` entry of ``executions`` its ``arguments_check`` (:func:`held_against`) and its
    ``transcript_check`` (:func:`transcript_check`), the calls and results found among ``records`` by
    :func:`calls_named`: the one loop the document and ``asz verify`` both run. The other arguments as those take
    them. Returns ``(no result, unrecorded)``: ``{tool id: (seq, row, block) of its call part}`` of the entries
    :func:`no_result` names, and :func:`unrecorded_calls` (trial 33b F1); ``more`` as that takes it. ``mcp``: when
    given (``asz verify``), the records holding an MCP call's name, read whole before the entries are held (a file that
    does not verify is known so), and given to :func:`unrecorded_calls` for ``records``, which are then read only as
    far as :func:`calls_named` needs (issue 22, session 34); else ``records`` serve both."""
    results: dict = {}
    if mcp is None:
        records = mcp = list(records)
    else:
        mcp = list(mcp)
    calls = calls_named(records, {e.get("tool") for e in executions}, results)
    sides = dict(removed=removed, unverified=unverified, withheld=withheld, line=line)
    for e in executions:
        call = calls.get(e.get("tool"))
        e["arguments_check"] = held_against(e, call, **sides)
        e["transcript_check"] = transcript_check(e, call, results.get(e.get("tool")), record=record, **sides)
    return {e["tool"]: calls[e["tool"]] for e in executions if no_result(e) and e.get("tool") in calls}, \
        unrecorded_calls(executions, mcp, calls, more)


#: What :func:`no_result` is said as (``asz verify``'s warning, ``asz conversation``; trial 33b F1).
NO_RESULT = "no tool result in the transcript"
#: What a call of :func:`unrecorded_calls` is said as (trial 33b F1).
NO_EXECUTION = "no execution record"


def no_result(e: dict) -> bool:
    """Whether ``tool_executions`` entry ``e`` (its ``transcript_check`` given by :func:`hold_all`) is of a call the
    transcript holds whose tool result the transcript does not hold (trial 33b F1: the hook saw the call end, the
    transcript never says how it ended)."""
    c = e.get("transcript_check") if isinstance(e.get("transcript_check"), dict) else {}
    name, outcome = c.get("name") or {}, c.get("outcome") or {}
    return (outcome.get("why") == "no tool result of the transcript has this id"
            and name.get("why") != "no tool call of the transcript has this id")


def _server(name) -> str | None:
    """The MCP server an ``mcp__SERVER__tool`` name names (the part a hook's matcher sees), None for another name."""
    if not isinstance(name, str) or not name.startswith("mcp__"):
        return None
    return name[5:].split("__", 1)[0] or None


def unrecorded_calls(executions: list[dict], records: list[tuple[int, int, object]],
                     calls: dict[str, tuple[int, int, int]],
                     more: Callable[[set], Iterable[tuple[int, int, object]]] | None = None) -> list[dict]:
    """Each MCP call of the transcript (a call part, ``k: "call"``, whose ``name`` starts ``mcp__``) that no entry of
    ``executions`` covers (trial 33b F1), in landed order, each id once: ``[{"id", "name", "ref": {"seq", "row",
    "block"}, "why"}]``; [] when ``executions`` is empty (a session the hook never wrote for says nothing: the hook
    may never have been installed). ``records`` as :func:`hold_all` takes them (all of them, in landed order);
    ``calls``: what :func:`calls_named` found for the entries' ``tool``. ``why`` states the fact, never damage, with
    the first reason that applies: the transcript holds no result of the call either (it was still running when the
    session ended: the hook runs after a call ends); the call comes before the first call the hook recorded in this
    session (the hook may not have been installed yet); no call of its server has a record in this session (the
    hook's matcher may leave that server out); else the hook recorded other calls of the server, not this one.
    ``more(ids)``: when ``records`` are not all of the session's (``asz verify`` reads only the lines naming what it
    looks for), the records that hold the ids of calls whose result ``records`` did not hold."""
    if not executions:
        return []
    covered = {e.get("tool") for e in executions}
    servers = {_server(e.get("tool_name")) for e in executions}
    first = min(calls.values(), default=None)
    found: dict[str, tuple[str, tuple[int, int, int]]] = {}
    ended: set = set()
    for seq, row, block, p in _dict_parts(records):
        if p.get("k") == "result":
            ended.add(p.get("of"))
        elif p.get("k") == "call":
            i, name = p.get("id"), p.get("name")
            if (isinstance(i, str) and i and i not in covered and i not in found and isinstance(name, str)
                    and name.startswith("mcp__")):
                found[i] = (name, (seq, row, block))
    missing = {i for i in found if i not in ended}
    if more is not None and missing:
        for _, _, _, p in _dict_parts(more(missing)):  # read only until each missing call's result is found
            if p.get("k") == "result" and p.get("of") in missing:
                ended.add(p["of"])
                missing.discard(p["of"])
                if not missing:
                    break
    out = []
    for i, (name, at) in found.items():
        if i not in ended:
            why = (f"{NO_EXECUTION}, and no tool result in the transcript either: the call may still have been running "
                   "when the session ended (the hook runs after a call ends)")
        elif first is not None and at < first:
            why = (f"{NO_EXECUTION}: the call comes before the first call the hook recorded in this session (the hook "
                   "may not have been installed yet)")
        elif _server(name) not in servers:
            why = (f"{NO_EXECUTION}: no call of server {_server(name)} has one in this session (the hook's matcher may "
                   "leave this server out)")
        else:
            why = (f"{NO_EXECUTION}: the hook recorded other calls of server {_server(name)} in this session, not this "
                   "one (it did not run, refused the event or could not write its record: the data directory's "
                   "log/plugin.log may say)")
        out.append({"id": i, "name": name, "ref": {"seq": at[0], "row": at[1], "block": at[2]}, "why": why})
    return out



#: The checks of :func:`transcript_check`, in the order they are said.
TRANSCRIPT_CHECKS = ("name", "outcome", "result")
#: What each check of :func:`transcript_check` that differs is called (``asz verify``'s warning, ``asz conversation``).
HELD_DIFFER = {"name": "tool name differs", "outcome": "outcome differs", "result": "result differs"}


def transcript_differences(executions: list[dict]) -> dict[str, int]:
    """``{check: how many entries differ}`` of :func:`transcript_check` over ``tool_executions`` entries."""
    out = dict.fromkeys(TRANSCRIPT_CHECKS, 0)
    for e in executions:
        c = e.get("transcript_check") if isinstance(e.get("transcript_check"), dict) else {}
        for k in TRANSCRIPT_CHECKS:
            if (c.get(k) or {}).get("result") == DIFFER:
                out[k] += 1
    return out


def execution_keys(executions: list[dict], unrecorded: list[dict]) -> dict:
    """The document's ``summary`` keys of its ``tool_executions`` (docs/view.md): ``arguments_differ``
    (:func:`differences`), ``executions_no_result`` (how many entries :func:`no_result` names) and
    ``calls_no_execution`` (``unrecorded``, :func:`unrecorded_calls`; trial 33b F1)."""
    return {"arguments_differ": differences(executions), "executions_no_result": sum(map(no_result, executions)),
            "calls_no_execution": unrecorded}


def differences(executions: list[dict]) -> int:
    """How many ``tool_executions`` entries' arguments differ from the transcript's input (``summary.arguments_differ``)."""
    return sum(1 for e in executions if (e.get("arguments_check") or {}).get("result") == DIFFER)


def record_line(files: dict[int, dict], bound: dict[int, tuple], root: Path, seq: int, row: int) -> bytes | None:
    """The JSON line of landed record ``row`` (1-based) of file ``seq``: from the bytes a round binds (``bound``,
    :attr:`~asz_core.view.session_records.LandedSession.bound_lines`) where it holds them, else read from the file
    (its header is line 1); None when the file or the line is not there."""
    got = bound.get(seq)
    if got is not None:
        lines = got[2]
        return lines[row - 1] if 0 < row <= len(lines) else None
    f = files.get(seq)
    if f is None:
        return None
    try:
        lines = (root / f["file"]).read_bytes().split(b"\n")
    except OSError:
        return None
    return lines[row] if 0 < row < len(lines) else None
