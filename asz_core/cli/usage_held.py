"""``asz usage instance``'s note on the conversations another instance also holds (trial 32c F2: h03 held four of
h02's sessions byte for byte; the team root counted them once, under h02, and h03's row was 23 % short of h03's own
``asz usage`` with nothing saying why). docs/push.md, "Who sent what".
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import typer

__all__ = ["also_held_rows", "also_held_line", "lines_under"]


def lines_under(counted: list, narrow: tuple[str, str], shown: Callable[[str], str], err: bool,
                held: list[dict], roots: list[dict] = ()) -> None:
    """Under ``asz usage``'s table (on stderr with ``--json``, csv, md or ``--out``: ``err``): as ``asz ls`` says it,
    the conversations ``narrow`` (``--project``, ``--model``) kept only because it cannot judge them
    (:func:`~asz_core.reading.listing.unjudged_calls_line`), then :func:`also_held_line` of ``held`` when any, then
    for ``asz usage instance`` each instance id two sending roots or more sent under (``roots``:
    :func:`~asz_core.storage.sender_roots.two_roots_in`; trial 34b F3), whose row sums them."""
    from ..reading.listing import unjudged_calls_line
    from ..storage.sender_roots import two_roots_line
    from ..storage.senders import instance_word

    if kept := unjudged_calls_line(counted, *narrow, shown):
        typer.echo(kept, err=err)
    if held:
        typer.echo(also_held_line(held, shown), err=err)
    for d in roots:
        typer.echo("note: " + two_roots_line(d, instance_word(d["instance"]) if isinstance(d["instance"], str)
                                             else "(no instance id)"), err=err)


def also_held_rows(storage: Path, counted: list, table, first: int | None, last: int | None) -> list[dict]:
    """The conversations of ``counted`` (the calls counted from ``first`` to ``last``, unix ms) that an instance other
    than the ones they are counted under also sent, the receiver refusing its copies as held here whole (the seen
    list's ``held`` lines, :func:`~asz_core.storage.seen_list.also_held`; trial 32c F2: h03's four shared sessions
    counted under h02 only, h03's row 23 % short of its own usage, and nothing said why): ``[{"conversation",
    "also_held_by" (instance ids), "counted_under" (asz usage instance's label), "calls", "cost"}]`` by conversation.
    [] in a root no receiver landed, or with no such copy."""
    from ..storage.layout import dir_name
    from ..storage.seen_list import also_held
    from ..view.usage_report import report

    held = also_held(storage)
    if not held:
        return []
    out = []
    for row in report([c for c in counted if _dir(dir_name, c.conversation) in held], "session", table, first, last):
        under = row.get("instance") or ""
        others = sorted(i for i in held[_dir(dir_name, row["conversation"])] if i not in under.split(", "))
        if others and row["calls"]:
            out.append({"conversation": row["conversation"], "also_held_by": others, "counted_under": under,
                        "calls": row["calls"], "cost": row["cost"]})
    return sorted(out, key=lambda r: r["conversation"])


def _dir(dir_name, conversation: str) -> str:
    try:
        return dir_name(conversation)
    except ValueError:
        return ""


def also_held_line(held: list[dict], shown: Callable[[str], str]) -> str:
    """The note under ``asz usage instance``'s table for :func:`also_held_rows`: each conversation, who else holds it,
    whom it is counted under and its calls and cost (once, in that row: the team's total counts it once). Two or
    more: their calls in all and the first :data:`~asz_core.export.push_refusals.SHOWN` of them, ``--json`` naming
    each (trial 41a F5: 81 of them made a 10 KB note)."""
    from ..export.push_refusals import SHOWN
    from ..reading.listing import cost_text

    each = "; ".join(f"{shown(r['conversation'])} also held by {', '.join(r['also_held_by'])}, counted under "
                     f"{r['counted_under']}: {r['calls']:,} call(s), {cost_text(r['cost'])}" for r in held[:SHOWN])
    if len(held) > SHOWN:
        each = (f"{sum(r['calls'] for r in held):,} call(s) in all; the first: {each}; and {len(held) - SHOWN:,} more "
                "(--json: also_held lists each)")
    return (f"note: {len(held):,} conversation(s) also held by another instance, counted once, under the instance "
            f"whose files landed (the other's copies were refused as held whole, so its own asz usage counts them "
            f"and its row here does not): {each}")
