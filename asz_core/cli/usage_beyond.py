"""A model call whose recorded usage no real model can reach, said on stderr by ``asz usage`` and ``asz ls`` (trial
38b F2: a transcript line claiming 5,000,000,000 output tokens was billed without a word). The figures keep what the
records say (seed 000: a count lands as written); the note names where to look: the landed file, its line and the
usage field, once per command.

The bound, :data:`BEYOND`: more than 10,000,000 tokens of one kind in one call. The largest context window any
provider publishes is 10,000,000 tokens (Meta's Llama 4 Scout; Gemini 1.5 Pro's is 2,000,000, Claude's largest
1,000,000), and a call's input, cache reads and writes and output all fit in its window, so no real call goes beyond
it: a count above it is a damaged or forged record, or a runtime's bug.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

__all__ = ["BEYOND", "beyond_line", "beyond_rows", "say_beyond", "say_beyond_counted"]

#: More tokens of one kind than this in one call is beyond any real model (module docstring).
BEYOND = 10_000_000
#: The usage fields of a call (the document's names) and of a landed record (:class:`~asz_core.sessiondata.model.Usage`).
_FIELDS = {"in": "in_", "out": "out", "cache_read": "cache_read", "cache_write": "cache_write"}
#: How many calls the note names; the rest are counted.
NAMED = 3


def beyond_rows(rows: Iterable[dict]) -> list[str]:
    """The ids of the ``asz ls`` rows whose usage totals hold more than :data:`BEYOND` tokens of a kind: only their
    calls can be beyond it (:func:`beyond_line` reads those)."""
    return [r["id"] for r in rows if isinstance(r.get("usage"), dict)
            and any(isinstance(v := r["usage"].get(k), int) and v > BEYOND for k in _FIELDS)]


def beyond_line(root: Path, counted: Iterable, shown: Callable[[str], str] = str) -> str:
    """One line naming each call of ``counted`` (:class:`~asz_core.view.usage_report.Counted`, held-back ones left
    out: they are in no figure) whose usage holds more than :data:`BEYOND` tokens of a kind, each call once (its
    root-wide key), the first :data:`NAMED` by landed file, line and field (``S/streams/main/transcript-….sd line 5:
    usage.out 5,000,000,000``); '' when none. ``shown``: how a conversation id is printed."""
    over: dict[str, tuple] = {}
    for c in counted:
        if c.usage is None or c.held or c.credits is not None:
            continue
        fields = [(k, v) for k in _FIELDS if isinstance(v := c.usage.get(k), int) and v > BEYOND]
        if fields:
            over.setdefault(c.key or f"{c.conversation}#{len(over)}", (c, fields))
    if not over:
        return ""
    named = [_where(root, c, fields, shown) for c, fields in list(over.values())[:NAMED]]
    more = f"; and {len(over) - NAMED} more call(s)" if len(over) > NAMED else ""
    return (f"note: {len(over)} model call(s) record usage beyond any real model's reach (more than {BEYOND:,} tokens "
            f"of a kind in one call; counted as recorded, every figure holds them): {'; '.join(named)}{more} "
            "(asz show names the records)")


def _where(root: Path, c, fields: list[tuple[str, int]], shown: Callable[[str], str]) -> str:
    """``S/…/transcript-….sd line 5: usage.out 5,000,000,000 (conversation X, call/msg_…)``: the landed record that
    gives the call's usage (its last of the call's records holding that count), else the call alone."""
    from ..reading.show import find_records
    from ..view.rows import read_head

    node = c.key.split("#", 1)[0]
    counts = ", ".join(f"usage.{k} {v:,}" for k, v in fields)
    at = ""
    try:
        head = read_head(root, c.conversation)
        session = (head.header or {}).get("session") if head is not None else None
        hits = find_records(root, str(session or c.conversation), node, c.conversation).hits if node else []
    except (OSError, ValueError):
        hits = []
    k, v = fields[0]
    for h in reversed(hits):
        u = h.record.usage
        if u is not None and getattr(u, _FIELDS[k]) == v:
            at = f"{h.path.relative_to(root)} line {h.row + 1}: "
            break
    return f"{at}{counts} (conversation {shown(c.conversation)}{', ' + node if node else ''})"


def say_beyond(cmd: str, root: Path, rows: list[dict], hide: list[str], shown: Callable[[str], str] = str) -> None:
    """``asz ls``'s :func:`beyond_line` on stderr (``cmd: note: …``), for the calls of ``rows``: those of the rows
    :func:`beyond_rows` names are read (their kept summaries: :func:`~asz_core.view.usage_report.read_root`)."""
    ids = beyond_rows(rows)
    if not ids:
        return
    import datetime as dt

    from ..view.usage_report import read_root

    say_beyond_counted(cmd, root, read_root(root, dt.timezone.utc, hide, ids=ids)[0], shown)


def say_beyond_counted(cmd: str, root: Path, counted: Iterable, shown: Callable[[str], str] = str) -> None:
    """:func:`beyond_line` of ``counted`` on stderr (``cmd: note: …``), when it has one: ``asz usage`` gives the calls
    its filters and window keep (trial 40b F3: ``--since 2030-01`` noted a call of 2026), ``asz ls`` those of its rows."""
    if line := beyond_line(root, counted, shown):
        import typer

        typer.echo(f"{cmd}: {line}", err=True)
