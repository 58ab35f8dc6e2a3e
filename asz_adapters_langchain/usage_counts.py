"""The usage a LangChain model call states, as Session Data usage (origin-digest §5.4; docs/adapters/langchain.md).

Split from :mod:`asz_adapters_langchain.dialect` (an arrival line into a record), which asks :func:`usage_of` of a
message's ``usage_metadata`` and, when no message carries one, :func:`output_usage` of the run's
``outputs.llm_output`` (the provider's own counts). A count Session Data cannot carry (not an integer in 64 bits with
its sign) is never made into a number: it is listed under the record's ``dropped`` with its value.
"""

from __future__ import annotations

import json
from typing import Any

from asz_core import Dropped, Usage
from asz_core.sessiondata.vocabulary import USAGE_COUNT_DROPPED

__all__ = ["USAGE_WHY", "usage_of", "output_usage"]

#: Why a usage count that is not a Session Data integer is listed under ``dropped`` (seed 000, Record and Dropped).
USAGE_WHY = "not an integer that fits in 64 bits with its sign"


def _count(d: dict, key: str, where: str, dropped: list[Dropped]) -> int | None:
    """``d[key]`` when it is an integer in 64 bits with its sign (0 when absent or null: seed 000); else None, and an
    entry in ``dropped`` naming the field, its size as JSON and its value (never a number made from it)."""
    v = d.get(key)
    if v is None:
        return 0
    if type(v) is int and -(2**63) <= v < 2**63:
        return v
    text = json.dumps(v, ensure_ascii=False)
    shown = text if len(text) <= 80 else text[:80] + "…"
    dropped.append(Dropped(what=f"{USAGE_COUNT_DROPPED}{where}.{key}", bytes=len(text.encode("utf-8", "surrogatepass")), why=f"{USAGE_WHY}: {shown}"))
    return None


def usage_of(msg: dict, dropped: list[Dropped]) -> Usage | None:
    """``usage_metadata`` as Session Data usage; a count it cannot carry is listed in ``dropped`` (docs/adapters/langchain.md).
    ``in`` is ``input_tokens`` less the cache reads and writes it holds: left out (and listed) when one of those was."""
    um = msg.get("usage_metadata")
    if not isinstance(um, dict):
        return None
    det = um.get("input_token_details") if isinstance(um.get("input_token_details"), dict) else {}
    where = "usage_metadata.input_token_details"
    cr, cw = _count(det, "cache_read", where, dropped), _count(det, "cache_creation", where, dropped)
    inp, out = _count(um, "input_tokens", "usage_metadata", dropped), _count(um, "output_tokens", "usage_metadata", dropped)
    if inp and (cr is None or cw is None):  # the uncached part of input_tokens cannot be told
        dropped.append(Dropped(what=f"{USAGE_COUNT_DROPPED}usage_metadata.input_tokens", bytes=len(str(inp)),
                               why="holds cache reads or writes whose count was dropped: its uncached part cannot be told"))
        inp = None
    u = Usage(in_=max(0, (inp or 0) - (cr or 0) - (cw or 0)), out=out or 0, cache_read=cr or 0, cache_write=cw or 0)
    return None if u.is_empty() else u


#: ``llm_output`` usage forms (trial 18, F-g): key of the counts -> (in, out, cache read, cache write, whether the
#: cache counts are inside ``in``). Anthropic's ``usage`` counts its cache apart; OpenAI's ``token_usage``/``usage``
#: holds the cached tokens inside ``prompt_tokens`` (``prompt_tokens_details.cached_tokens``).
_OUTPUT_FORMS = (
    ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", False),
    ("prompt_tokens", "completion_tokens", "prompt_tokens_details.cached_tokens", "", True),
)


def output_usage(outputs: Any, dropped: list[Dropped]) -> Usage | None:
    """The usage an llm run states in ``outputs.llm_output`` (``usage``, else ``token_usage``), read when no message
    carries ``usage_metadata``: the provider's own counts (:data:`_OUTPUT_FORMS`); a count it cannot carry is listed
    in ``dropped`` as ``usage count llm_output.KEY.FIELD``, as :func:`usage_of` lists one. None when none is stated."""
    lo = outputs.get("llm_output") if isinstance(outputs, dict) else None
    if not isinstance(lo, dict):
        return None
    for key in ("usage", "token_usage"):
        u = lo.get(key)
        if not isinstance(u, dict):
            continue
        for i, o, r, w, inside in _OUTPUT_FORMS:
            if i not in u and o not in u:
                continue
            where = f"llm_output.{key}"
            sub, _, leaf = r.rpartition(".")
            det = u.get(sub) if sub else u
            cr = _count(det, leaf, f"{where}.{sub}" if sub else where, dropped) if isinstance(det, dict) else 0
            cw = _count(u, w, where, dropped) if w else 0
            inp, out = _count(u, i, where, dropped), _count(u, o, where, dropped)
            if inside and inp:
                if cr is None:
                    dropped.append(Dropped(what=f"{USAGE_COUNT_DROPPED}{where}.{i}", bytes=len(str(inp)),
                                           why="holds cache reads whose count was dropped: its uncached part cannot be told"))
                    inp = None
                else:
                    inp = max(0, inp - cr)
            got = Usage(in_=inp or 0, out=out or 0, cache_read=cr or 0, cache_write=cw or 0)
            return None if got.is_empty() else got
    return None
