"""What every reader says of a model call's cost and of a runtime's interrupt notice, one rule for the page
(``/api/c/{id}/headings``' ``costs`` and ``labels``), the md and html exports (:mod:`asz_core.reading.export_calls`,
:mod:`asz_core.reading.export_steps`) and ``asz conversation`` (close43 "Not done": reading; trial 43c F7).

- A model call (an asz.view ``llm.call`` node with ``usage``) costs what ``asz usage`` prices it at
  (:func:`~asz_core.view.prices.cost_of`, each provider call it holds at its model's rates, the long-context ones at
  theirs): :func:`call_price`. A call whose model the price table does not price is said unpriced, naming the model
  (:func:`cost_words`: ``unpriced (no price for MODEL)``), never ``$0.00``.
- Claude Code's interrupt notices (``[Request interrupted by user]``, ``… for tool use]``), landed flagged ``notice``
  and drawn as ``control.notice`` steps in the talk they interrupted, are labelled as what the adapter's
  ``fixed_notice`` reads them to be (:data:`NOTICE_LABELS`: ``Interrupted by the person``), never by a new flag
  (seed 000's flag set is closed); any other notice keeps its label (:func:`notice_label`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Callable, Iterable

from .placing import walk
from .prices import PriceTable, cost_of, exact_text, exact_usd, money
from .titles import NO_ANSWER, ask_adapter
from .usage import LONG_KIND

__all__ = ["NOTICE_LABELS", "call_price", "cost_words", "fixed_notice", "notice_label", "notice_labels", "page_costs"]

#: The label of a runtime's notice by the kind the adapter's ``fixed_notice`` gives its words (docs/adapters.md).
NOTICE_LABELS = {"interrupt": "Interrupted by the person"}


def fixed_notice(text: str, dialect: str) -> str | None:
    """``"interrupt"`` or ``"refused"`` as the adapter of ``dialect`` reads its runtime's fixed wording in ``text``
    (:meth:`~asz_core.plugins.adapter.Adapter.fixed_notice`), else None (no adapter, no answer, or a bug's)."""
    got = ask_adapter(dialect, "fixed_notice", text) if text else NO_ANSWER
    return got if got in ("interrupt", "refused") else None


def notice_label(text: str, dialect: str) -> str | None:
    """The label of a ``control.notice`` step whose whole text is ``text`` when the adapter of ``dialect`` reads it as
    a fixed notice :data:`NOTICE_LABELS` names (``Interrupted by the person``), else None (the step keeps its label)."""
    return NOTICE_LABELS.get(fixed_notice(text.strip(), dialect) or "")


def notice_labels(doc: dict, dialect: str, record: Callable[[dict], dict | None]) -> dict[str, str]:
    """``{step id: label}`` (:func:`notice_label`) for each ``control.notice`` step of the asz.view document ``doc``
    (its talks and ``loose``) whose words, its text or else its record's text parts read through ``record`` (a
    ``ref`` -> the landed record, or None), are a notice :data:`NOTICE_LABELS` names; a withheld step (state
    ``omitted``) is not read."""
    out: dict[str, str] = {}
    for n in walk([*(doc.get("talks") or ()), *(doc.get("loose") or ())]):
        if n.get("kind") != "control.notice" or n.get("state") == "omitted":
            continue
        text = n.get("text")
        if not isinstance(text, str) and isinstance(ref := n.get("ref"), dict):
            rec = record(ref) or {}
            text = "\n".join(p.get("text") or "" for p in rec.get("parts") or () if isinstance(p, dict) and p.get("k") == "text")
        if isinstance(text, str) and (label := notice_label(text, dialect)):
            out[n["id"]] = label
    return out


def call_price(n: dict, table: PriceTable | None = None) -> tuple[Decimal | None, list[str]]:
    """``(exact USD, [])`` of ``llm.call`` node ``n``, each of its provider calls (``requests``, else the node) priced
    at its model's rates by ``table`` (None: the shipped table), at the long-context rates where it was one, as
    ``asz usage`` prices a call (:func:`~asz_core.view.prices.cost_of`); ``(None, [models])`` when a model of it has
    no price (sorted, ``(model not named)`` for a call naming none); ``(Decimal(0), [])`` for a call with no usage."""
    total, unpriced = Decimal(0), set()
    for r in n.get("requests") or (n,):
        u = r.get("usage")
        if not isinstance(u, dict):
            continue
        usage = dict(u, **({LONG_KIND: dict(u, calls=1)} if r.get("long_context") or n.get("long_context") and r is n else {}))
        model = str(r.get("model") or n.get("model") or "")
        got = cost_of({model: usage}, table)
        if got.get("unpriced") or got.get("priced") is False:
            unpriced.add(model or "(model not named)")
            continue
        total += exact_usd(got) or Decimal(0)
    return (None, sorted(unpriced)) if unpriced else (total, [])


def cost_words(exact: Decimal | None, unpriced: Iterable[str] = ()) -> str:
    """A cost as a call's line says it: ``$0.01`` / ``<$0.01`` (:func:`~asz_core.view.prices.money`), ``unpriced (no
    price for MODEL, …)`` when nothing of it had a price, ``$1.20 + unpriced (no price for MODEL)`` when part had."""
    unpriced = sorted(set(unpriced))
    said = f"unpriced (no price for {', '.join(unpriced)})" if unpriced else ""
    if exact is None or (unpriced and not exact):
        return said
    amount = money({"usd_exact": exact_text(exact)})
    return f"{amount} + {said}" if said else amount


def page_costs(doc: dict, table: PriceTable | None = None) -> dict[str, dict]:
    """What the page says each model call and each talk cost (``/api/c/{id}/headings``' ``costs``): ``{node id:
    {"text": cost_words, "usd_exact": decimal text, "unpriced": [models]}}`` for each ``llm.call`` with ``usage``
    (:func:`call_price`) and each talk holding one, the talk's being the sum of the calls under it as drawn
    (``usd_exact`` of the priced ones, ``unpriced`` the models of the others). Each call is counted once, under the
    first talk that holds it."""
    out: dict[str, dict] = {}
    for t in doc.get("talks") or ():
        total, unpriced, any_call = Decimal(0), set(), False
        for n in walk([t]):
            if n.get("kind") != "llm.call" or not isinstance(n.get("usage"), dict) or n.get("id") in out:
                continue
            exact, models = call_price(n, table)
            out[n["id"]] = {"text": cost_words(exact, models), "usd_exact": exact_text(exact) if exact is not None else None,
                            "unpriced": models}
            total += exact or Decimal(0)
            unpriced.update(models)
            any_call = True
        if any_call:
            out[t["id"]] = {"text": cost_words(total, unpriced), "usd_exact": exact_text(total), "unpriced": sorted(unpriced)}
    for n in walk(doc.get("loose") or ()):
        if n.get("kind") == "llm.call" and isinstance(n.get("usage"), dict) and n.get("id") not in out:
            exact, models = call_price(n, table)
            out[n["id"]] = {"text": cost_words(exact, models), "usd_exact": exact_text(exact) if exact is not None else None,
                            "unpriced": models}
    return out
