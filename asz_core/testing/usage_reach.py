"""Whether the usage an adapter lands reaches asz's figures: a helper of the conformance kit that needs no pytest.

A record's ``usage`` counts only as part of a model call: assembly groups the records sharing a ``call`` into one
``llm.call`` (seed 000, Record; docs/adapters.md, "Which records make a model call"), and every figure (``asz usage``,
``asz ls``, ``asz conversation``) reads a call's usage from its last fragment carrying one. A record that carries
``usage`` and no ``call`` is in no call, so its tokens are in no figure (trial 39b F2: the kit passed such an adapter).
"""

from __future__ import annotations

from pathlib import Path

from .landing import PARSE_SAID, landed_records, parsed, views_of

__all__ = ["usage_reach", "usage_unreached", "USAGE_UNCOUNTED", "model_unreached", "MODEL_UNNAMED", "figures_unreached"]

#: The kit's message when a record's usage is in no model call (format keys ``adapter``, ``n``, ``of``).
USAGE_UNCOUNTED = ("{adapter}: {n} of the {of} record(s) carrying usage are in no model call, so their tokens are in no "
                   "figure (asz usage, asz ls, asz conversation): a record's usage counts for the call its ``call`` "
                   "field names (the agent's records of that call, or a line of the runtime's own carrying the call's "
                   "id); give each such record the id of the model call it reports:\n")


def _call_refs(root: Path, views: dict[str, dict] | None = None) -> tuple[set[tuple[str, int]], int]:
    """Every ``(landed file relative to root, row)`` an ``llm.call`` of the root's documents cites, and how many of
    those calls carry usage (the summaries' ``calls_with_usage``). Parses the root first, unless ``views`` (each
    conversation -> its asz.view document, of the root parsed already) is given."""
    if views is None:
        problems, said = parsed(root)
        assert not problems, PARSE_SAID.format(problems, said)
        views = views_of(root)
    cited: set[tuple[str, int]] = set()
    with_usage = 0
    for doc in views.values():
        with_usage += doc["summary"].get("calls_with_usage") or 0
        files = {f["seq"]: f["file"] for f in doc["files"]}
        todo = list(doc["talks"]) + list(doc["loose"])
        while todo:
            n = todo.pop()
            if not isinstance(n, dict):
                continue
            if n.get("kind") == "llm.call":
                cited.update((files.get(r["seq"], ""), r["row"]) for r in n.get("refs") or (n["ref"],))
            todo.extend(n.get("children", ()))
    return cited, with_usage


def usage_reach(root: Path, views: dict[str, dict] | None = None) -> tuple[list[str], int, int]:
    """``(uncounted, carrying, calls_with_usage)`` of a collected root: each landed record carrying usage that no
    ``llm.call`` cites, as ``<landed file>:<row> (source line <ord>)``; how many records carry usage; and how many
    assembled calls carry usage. Parses the root, unless ``views`` of it parsed are given (:func:`_call_refs`)."""
    cited, with_usage = _call_refs(root, views)
    uncounted: list[str] = []
    carrying = 0
    for path, _h, row, rec in landed_records(root):
        if rec.usage is None:
            continue
        carrying += 1
        rel = path.relative_to(root).as_posix()
        if (rel, row) not in cited:
            uncounted.append(f"{rel}:{row} (source line {rec.ord}, from {rec.from_ or '-'}, call {rec.call or '(none)'})")
    return uncounted, carrying, with_usage


def usage_unreached(root: Path, adapter: str, views: dict[str, dict] | None = None) -> str:
    """The kit's failure message for an adapter declaring usage: no record of the collected root carries it; or some
    record's usage no model call holds (:data:`USAGE_UNCOUNTED` and the first 20 records), or no call carries usage;
    '' when records carry usage and every one is in a call (the capabilities check's usage part)."""
    uncounted, carrying, with_usage = usage_reach(root, views)
    if not carrying:
        return "usage declared but no record carries it"
    if uncounted or not with_usage:
        return USAGE_UNCOUNTED.format(adapter=adapter, n=len(uncounted), of=carrying) + "\n".join(uncounted[:20]) \
            + "\n…" * (len(uncounted) > 20)
    return ""


#: The kit's message when a session's records name a model and none of its model calls does (format keys
#: ``adapter``, ``session``, ``n``, ``model``, ``where``, ``calls``): trial 46b F5.
MODEL_UNNAMED = ("{adapter}: session {session}: {n} record(s) name a model ({model!r} at {where}) but none of its "
                 "{calls} model call(s) does, so the readers say 'models not recorded by the runtime' and price none "
                 "('no price for (no model)'): a call's model is the ``model`` of its own records (the agent's records "
                 "of that call and the record carrying its usage); a runtime that names the model once a turn puts it "
                 "on the turn's call records (docs/adapters.md, A Record's fields; the plugin template's turn.py)")


def model_unreached(root: Path, adapter: str, views: dict[str, dict]) -> str:
    """The kit's failure message for a collected, parsed root (``views``: each conversation -> its asz.view document)
    in which a session's landed records name a model while it has model calls and none of them names one
    (:data:`MODEL_UNNAMED`, one line per such session); '' when there is none."""
    named: dict[str, list] = {}
    for _path, h, _row, rec in landed_records(root):
        if isinstance(rec.model, str) and rec.model:
            named.setdefault(h.session, []).append((rec.model, f"{h.src}:{rec.ord}"))
    lines = []
    for conv, doc in sorted(views.items()):
        s = doc["summary"]
        got = [x for sess in doc.get("sessions") or [conv] for x in named.get(sess, ())]
        if (s.get("llm_calls") or 0) > 0 and not s.get("models") and got:
            lines.append(MODEL_UNNAMED.format(adapter=adapter, session=conv, n=len(got), model=got[0][0],
                                              where=got[0][1], calls=s["llm_calls"]))
    return "\n".join(lines)


def figures_unreached(root: Path, adapter: str, views: dict[str, dict]) -> str:
    """The kit's failure message for an adapter declaring usage whose samples' usage (:func:`usage_unreached`) or
    named model (:func:`model_unreached`) reaches no model call; '' when both do."""
    return usage_unreached(root, adapter, views) or model_unreached(root, adapter, views)
