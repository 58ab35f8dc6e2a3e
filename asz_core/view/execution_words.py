"""How an execution entry's outcome, its held against the transcript and a later observation of its call are said, in
words every reader shares (docs/claude-code-hooks.md; trial 25a F1, trial 30c F2, F3, F7): the exports' line at a tool
step (:mod:`asz_core.reading.export_blocks`), ``asz conversation``, ``asz show`` and ``asz verify``
(:mod:`asz_core.view.executions_check`); the page says them alike (app.js ``outcomeSaid``, ``heldSaid``,
``againSaid``). Strings in, strings out; nothing raises.
"""

from __future__ import annotations

from ..termsafe import one_line
from .rate_words import FAILURE_WORDS

__all__ = ["again_said", "call_named", "held_said", "one_side_said", "outcome_said", "transcript_said"]


def outcome_said(e: dict) -> str:
    """An execution entry's outcome with how it failed (trial 25a, F1): ``returned``; ``failed (transport: the
    connection to the server closed; error 19 bytes as JSON, not kept)``; ``failed`` for a record with neither
    ``failure`` nor ``error`` (written before asz 25); ``outcome not said``. The error text itself is never in a record
    (seed 000: sizes and digests only), so its size is all that is said of it: the record's ``error.bytes``, the text
    as a JSON string with its quotes (``"Connection closed"``, 17 characters, is 19 bytes), so it is said as JSON."""
    out = str(e.get("outcome") or "outcome not said")
    kind = e.get("failure")
    err = e.get("error") if isinstance(e.get("error"), dict) else {}
    bits = [FAILURE_WORDS.get(kind, str(kind))] if isinstance(kind, str) and kind and kind != out else []
    if isinstance(err.get("bytes"), int) and not isinstance(err.get("bytes"), bool):
        bits.append(f"error {err['bytes']:,} bytes as JSON, not kept")
    return f"{out} ({'; '.join(bits)})" if bits else out


def call_named(e: dict) -> str:
    """``toolu_0001 mcp__probe__run``: an execution entry's call id and tool name, each drawn through
    :func:`~asz_core.termsafe.one_line` (a newline or U+2028 in either would break a Markdown list or a text line:
    trial 30c F7); what the entry lacks is left out."""
    return " ".join(one_line(str(x)) for x in (e.get("tool"), e.get("tool_name")) if x)


def _is_error(outcome: str) -> str:
    return "an error" if outcome == "failed" else "not an error"


def held_said(e: dict, what: str) -> str:
    """What the ``what`` check (``name``, ``outcome``, ``result``) of an execution entry's ``transcript_check`` says
    when it differs (trial 30c F3; '' otherwise): ``the tool name differs from the transcript's (the hook saw
    mcp__shell__exec, the transcript's call is mcp__shell__run)``, ``the outcome differs from the transcript's (the
    hook saw failed, the transcript's tool result is not an error)``, ``the result differs from the transcript's tool
    result (12 bytes, the transcript's 20)``."""
    tc = e.get("transcript_check") if isinstance(e.get("transcript_check"), dict) else {}
    c = tc.get(what) if isinstance(tc.get(what), dict) else {}
    if c.get("result") != "differ":
        return ""
    theirs = c.get("transcript")
    if what == "name":
        return (f"the tool name differs from the transcript's (the hook saw {one_line(str(e.get('tool_name') or '?'))}, "
                f"the transcript's call is {one_line(str(theirs))})")
    if what == "outcome":
        return (f"the outcome differs from the transcript's (the hook saw {e.get('outcome')}, the transcript's tool "
                f"result is {_is_error(str(theirs))})")
    a, t = e.get("result") or {}, theirs if isinstance(theirs, dict) else {}
    sizes = f" ({a['bytes']:,} bytes, the transcript's {t['bytes']:,})" \
        if isinstance(a.get("bytes"), int) and isinstance(t.get("bytes"), int) else ""
    return f"the result differs from the transcript's tool result{sizes}"


def transcript_said(e: dict) -> str:
    """What an execution entry's ``transcript_check`` says, as :func:`execution_line` ends after the arguments: each
    check that differs, ``; the outcome differs from the transcript's (…)`` (:func:`held_said`); '' when none does
    (agreeing and not compared ones are counted by ``asz verify``, not said on the line)."""
    return "".join(f"; {x}" for x in (held_said(e, k) for k in ("name", "outcome", "result")) if x)


def again_said(e: dict) -> str:
    """What the later records of an execution entry's call that differ from it say (``observed_again``, trial 30c F2;
    '' when none): ``observed again at 2026-12-05T12:16:34.868321497Z: returned (its outcome, failure, result differ
    from the first's); the first by time is the one counted``, one clause for each."""
    out = []
    for a in e.get("observed_again") or ():
        if not isinstance(a, dict):
            continue
        differs = [str(x) for x in a.get("differs") or ()]
        later = {k: (a[k] if k in differs else e[k]) for k in ("outcome", "failure", "error")
                 if (k in a if k in differs else k in e)}
        when = f" at {one_line(str(a['time']))}" if a.get("time") else ""
        out.append(f"observed again{when}: {outcome_said(later)} (its {', '.join(differs)} differ from the first's)")
    return "; ".join(out) + "; the first by time is the one counted" if out else ""


def one_side_said(doc: dict) -> tuple[str, list[str]]:
    """``(suffix, lines)``: what ``asz conversation`` says of the calls only one side saw (trial 33b F1;
    docs/claude-code-hooks.md, Calls only one side saw), ``("", [])`` when there are none: the suffix of its ``tool
    executions`` line, ``; no tool result in the transcript 1; MCP calls of the transcript with no execution record
    6``, and a line for each, ``no tool result in the transcript: toolu_0001 mcp__fs__read: the hook saw the call end,
    returned; the transcript holds its call and no tool result of it``, ``no execution record: toolu_0002
    mcp__shell__run (seq 1 row 33): no execution record: …`` (the document's ``summary.calls_no_execution``)."""
    from .arguments_check import NO_EXECUTION, NO_RESULT, no_result

    unrecorded = (doc.get("summary") or {}).get("calls_no_execution") or []
    ended = [e for e in doc.get("tool_executions") or () if no_result(e)]
    if not ended and not unrecorded:
        return "", []
    lines = [f"{NO_RESULT}: {call_named(e)}: the hook saw the call end, {outcome_said(e)}; the transcript holds its "
             "call and no tool result of it" for e in ended]
    lines += [f"{NO_EXECUTION}: {call_named({'tool': c.get('id'), 'tool_name': c.get('name')})} (seq "
              f"{(c.get('ref') or {}).get('seq')} row {(c.get('ref') or {}).get('row')}): {one_line(str(c.get('why')))}"
              for c in unrecorded]
    return f"; {NO_RESULT} {len(ended)}; MCP calls of the transcript with {NO_EXECUTION} {len(unrecorded)}", lines
