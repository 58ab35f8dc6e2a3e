"""What a later asz added to the json form (``--format json``, the asz.view document) without a new render number,
so that a json copy an earlier asz made still checks against the root (``asz verify --export``; trial 39c F2).

The render number (:mod:`~asz_core.reading.export_render`) counts what the md, html and text drawings changed; the
json form is the document itself, and a key a later asz adds to it is no change of any text the copy holds. Each
such key is listed here with what the asz before it wrote instead; a copy that lacks it is compared with the root's
document as that asz wrote it (the key taken out, what it moved put back), byte for byte, and the check says so:

- ``summary.calls_by_tool[].refused`` (session 38, 4c8c52fc; trial 38a F4): the calls the person refused, which
  the asz before counted in ``failed``. Without the key, each entry's ``failed`` is ``failed + refused``. A copy of
  session 35 (render 5) differed from the root's document first there: ``line 1 column 1961`` of the trial's copy is
  the ``,"executions"`` after its first entry's ``"failed":0``, where this asz writes ``,"refused":0``.

- ``refused`` on a tool step (``talks[]`` and ``loose[]``, at any depth under ``children[]``; session 40): ``true`` on
  a step the person refused, whose ``failed`` stays as its result says it. Without the key in any step of the copy,
  the root's steps are compared without it (nothing else moved).

- ``result_state``, ``result_bytes``, ``result_sha256`` (and a kept text's ``result_taken`` keys) on a ``not_drawn[]``
  entry of a result whose call never landed (session 47, fix47e; trial 47c F1): what a tool step's result says of a
  result made smaller to land or removed by retention. Without them in any entry of the copy, the root's entries are
  compared without them (nothing else moved).

- ``result_taken``, ``result_taken_bytes`` and ``result_taken_said`` on a tool step (at any depth) or ``not_drawn[]``
  entry whose ``result_state`` is too_large (session 48, fix48b; trial 47d F7): a result whose text went to land after
  the runtime's structured copy, the copy's size and each size beside its own digest in words. Without them on any such
  step or entry of the copy, the root's are compared without them (nothing else moved).

Any other key the root's document holds and the copy lacks (or the copy holds and the root's document lacks) is named
by its path as a key (:func:`key_differences`), never as a changed text: a key an asz unknown here wrote, or one
taken out of or put into the copy.
"""

from __future__ import annotations

import json
from typing import Iterable, Optional, Sequence

import orjson

__all__ = ["LATER_KEYS", "as_earlier", "key_differences"]

#: The keys a later asz added to the json form, by path (``[]`` for each entry of a list), each with what it changed.
LATER_KEYS = {"summary.calls_by_tool[].refused": "session 38, trial 38a F4; an earlier asz counted a refused call in failed",
              "talks[].children[].refused": "session 40; an earlier asz marked a refused tool step failed alone",
              "not_drawn[].result_state": "session 47, trial 47c F1; an earlier asz said nothing of a result whose call "
                                          "never landed that was made smaller to land or removed",
              "talks[].children[].result_taken": "session 48, trial 47d F7; an earlier asz gave a result too large to land "
                                                 "no word of the runtime's structured copy taken out before its text"}
#: The keys :data:`LATER_KEYS`' ``result_taken`` names on a result too large to land (:func:`_without_pair_keys`).
_PAIR_KEYS = ("result_taken", "result_taken_bytes", "result_taken_said")
#: The keys of a ``not_drawn`` entry :data:`LATER_KEYS` names (``result_state`` and the keys written with it).
_CUT_KEYS = ("result_state", "result_bytes", "result_sha256", "result_taken", "result_taken_bytes", "result_text_sha256",
             "result_taken_said")
#: The step key of :data:`LATER_KEYS` (a tool node's, at any depth).
_STEP_KEY = "refused"


def _doc(data: bytes) -> Optional[dict]:
    """``data`` as one JSON object, or None (not JSON, or not an object); an integer past 64 bits stays exact."""
    try:
        got = orjson.loads(data)
    except orjson.JSONDecodeError:
        try:
            got = json.loads(data)
        except ValueError:
            return None
    return got if isinstance(got, dict) else None


def _calls_by_tool(doc: dict) -> Optional[list]:
    got = (doc.get("summary") or {}).get("calls_by_tool") if isinstance(doc.get("summary"), dict) else None
    return got if isinstance(got, list) and all(isinstance(e, dict) for e in got) else None


def _steps(doc: dict):
    """Every node dict under the document's ``talks`` and ``loose`` lists, children included."""
    stack = [n for k in ("talks", "loose") if isinstance(doc.get(k), list) for n in doc[k]]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            yield n
            if isinstance(n.get("children"), list):
                stack.extend(n["children"])


def _taken_out(mine: Iterable[dict], root: Iterable[dict], key: str, keys: Sequence[str]) -> int:
    """Take ``keys`` out of each of ``root``'s entries (the json form made again) holding ``key`` when no entry of
    ``mine`` (the copy's of the same list) holds it: how many entries they were taken out of (0 when none, or when the
    copy holds the key: then nothing changed)."""
    if any(key in e for e in mine):
        return 0
    marked = [e for e in root if key in e]
    for e in marked:
        for k in keys:
            e.pop(k, None)
    return len(marked)


def _without_step_key(mine: dict, root: dict) -> list[str]:
    """Take :data:`_STEP_KEY` out of ``root``'s steps when no step of ``mine`` (the copy) holds it: the line saying so,
    [] when nothing was taken out."""
    n = _taken_out(_steps(mine), _steps(root), _STEP_KEY, (_STEP_KEY,))
    return [f"the copy's tool steps have no refused key, which a later asz added ({LATER_KEYS['talks[].children[].refused']}): "
            f"its {n} refused step(s) compared as that asz wrote them, without it"] if n else []


def _without_tool_refusals(mine: dict, root: dict) -> list[str]:
    """Put ``summary.calls_by_tool[].refused`` back into ``failed`` in ``root`` when the copy's entries lack it: the
    line saying so, [] when nothing changed."""
    was, now = _calls_by_tool(mine), _calls_by_tool(root)
    if was is None or now is None or not now or any("refused" in e for e in was) \
            or not all(isinstance(e.get("refused"), int) and isinstance(e.get("failed"), int) for e in now):
        return []
    for e in now:
        e["failed"] += e.pop("refused")
    return [f"the copy's summary.calls_by_tool has no refused key, which a later asz added ({LATER_KEYS['summary.calls_by_tool[].refused']}): "
            f"its {len(now)} entr{'y' if len(now) == 1 else 'ies'} compared as that asz wrote them, each failed holding the refused calls"]


def _not_drawn(doc: dict) -> list[dict]:
    """The document's ``not_drawn`` entries (each a dict)."""
    got = doc.get("not_drawn")
    return [e for e in got if isinstance(e, dict)] if isinstance(got, list) else []


def _without_cut_keys(mine: dict, root: dict) -> list[str]:
    """Take :data:`_CUT_KEYS` out of ``root``'s ``not_drawn`` entries when no entry of ``mine`` (the copy) holds
    ``result_state``: the line saying so, [] when nothing was taken out."""
    n = _taken_out(_not_drawn(mine), _not_drawn(root), "result_state", _CUT_KEYS)
    return [f"the copy's not_drawn entries have no result_state key, which a later asz added ({LATER_KEYS['not_drawn[].result_state']}): "
            f"its {n} such entr{'y' if n == 1 else 'ies'} compared as that asz wrote them, without it"] if n else []


def _without_pair_keys(mine: dict, root: dict) -> list[str]:
    """Take :data:`_PAIR_KEYS` out of ``root``'s tool steps and ``not_drawn`` entries of a result too large to land
    when no such step or entry of ``mine`` (the copy) holds ``result_taken``: the line saying so, [] when nothing was
    taken out."""
    def gone(doc: dict) -> list[dict]:
        return [e for e in [*_steps(doc), *_not_drawn(doc)] if e.get("result_state") == "too_large"]

    n = _taken_out(gone(mine), gone(root), "result_taken", _PAIR_KEYS)
    return [f"the copy's results too large to land have no result_taken key, which a later asz added "
            f"({LATER_KEYS['talks[].children[].result_taken']}): its {n} such result(s) compared as that asz wrote "
            "them, without it"] if n else []


def as_earlier(copy: bytes, again: bytes) -> tuple[bytes, list[str]]:
    """``again`` (a json copy made again by this asz, as it writes it now) as the asz that wrote ``copy`` wrote it:
    each key of :data:`LATER_KEYS` the copy lacks taken out, with what it moved put back; ``(bytes, lines said)``,
    ``again`` and ``[]`` unchanged when the copy holds every such key, or either is not one JSON object."""
    if again == copy:
        return again, []
    mine, root = _doc(copy), _doc(again)
    if mine is None or root is None:
        return again, []
    said = (_without_step_key(mine, root) + _without_tool_refusals(mine, root) + _without_pair_keys(mine, root)
            + _without_cut_keys(mine, root))
    if not said:
        return again, []
    from ..view.render import to_json
    from .termtext import json_visible

    return json_visible(to_json(root)) + b"\n", said


def key_differences(copy: bytes, again: bytes, most: int = 10) -> list[str]:
    """The keys one of two json documents (``copy``, ``again``: the copy made again) holds and the other lacks, each
    by its path (``talks[2].children[0].failed``) and said as a key, not a changed text; at most ``most`` named
    (then how many more). [] when they hold the same keys, or either is not one JSON object."""
    a, b = _doc(copy), _doc(again)
    if a is None or b is None:
        return []
    out: list[str] = []

    def walk(x, y, path: str) -> None:
        if isinstance(x, dict) and isinstance(y, dict):
            for k in dict.fromkeys([*x, *y]):
                p = f"{path}.{k}" if path else k
                if k not in x:
                    out.append(f"{p}: a key the root's document holds and the copy does not (an asz later than the "
                               "copy's wrote it, or it was taken out of the copy)")
                elif k not in y:
                    out.append(f"{p}: a key the copy holds and the root's document does not (an asz this one does not "
                               "know wrote it, or it was put into the copy)")
                else:
                    walk(x[k], y[k], p)
        elif isinstance(x, list) and isinstance(y, list):
            for n, (u, v) in enumerate(zip(x, y)):
                walk(u, v, f"{path}[{n}]")

    walk(a, b, "")
    return out[:most] + ([f"… and {len(out) - most} more key(s)"] if len(out) > most else [])


def _counted_later(render: int) -> bool | None:
    """Where a copy of render ``render`` says a conversation's figures are counted: None before render 33 (where they
    were drawn); else whether a conversation whose calls go on in a later session reads 0 too (render 41 on, trial
    48a F4), beside a copy counted in the conversation it continues (render 33 on, trial 46a F5). The one rule of
    :func:`counted_as_drawn` and :func:`rows_as_drawn`."""
    from .export_render import COUNTED_IN_RENDER, COUNTED_LATER_RENDER

    return render >= COUNTED_LATER_RENDER if render >= COUNTED_IN_RENDER else None


def counted_as_drawn(root, s: dict, render: int) -> dict:
    """``s`` (a conversation's summary) with its figures where a copy of render ``render`` says they are counted
    (:func:`_counted_later`; a conversation counted elsewhere in ``root`` reads 0); ``s`` as it is before render 33.
    The one rule of a copy's head (:mod:`asz_core.reading.export`) and of its check (``asz verify --export``)."""
    from ..view.counted_in import summary_counted_in

    later = _counted_later(render)
    return s if later is None else summary_counted_in(root, s, later)


def rows_as_drawn(root, rows: list[dict], render: int) -> list[dict]:
    """A folder export index's ``rows`` with each one's figures where a copy of render ``render`` says they are
    counted (:func:`_counted_later`: 0 and $0.00 for a conversation counted elsewhere in ``root``); ``rows`` as they
    are before render 33."""
    from ..view.counted_in import counted_where_continued, recorded_in

    later = _counted_later(render)
    return rows if later is None else counted_where_continued(rows, recorded_in(root, rows), later)
