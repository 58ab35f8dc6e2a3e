"""What a glossary may not call derived: the vocabulary names an adapter's landed records read from the source.

A glossary term with no native word says the runtime has no word for it and asz derives it (docs/adapters.md, The
glossary). A record field set on a landed record, or a flag a declared rule set, was read from a field the runtime
wrote: its term names that field (trial 47c F5). Used by the conformance kit
(:meth:`~asz_core.testing.conformance.AdapterConformance.test_glossary_names_what_the_records_carry`).
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["FIELD_TERMS", "FLAG_TERMS", "carried", "contradicted"]

#: Vocabulary names of record fields an adapter only copies from the source (docs/adapters.md, A Record's fields:
#: "never guess one"). ``call``, ``child`` and ``batch`` are not among them: an adapter may make them (the template's
#: ``token_count:<the line's sha>`` call, a child named by its file).
FIELD_TERMS = ("id", "parent", "continues", "model")
#: Vocabulary names of the steps a flag draws (asz_core.flow.asm_steps), each with its flag.
FLAG_TERMS = {"error.api": "error", "epoch.boundary": "context_reset", "epoch.summary": "reset_summary",
              "agent.launch_ack": "launch_ack", "turn.duration": "turn_duration", "control.command": "command",
              "message.synthetic": "synthetic"}


def carried(records: Iterable[tuple]) -> dict[str, tuple[str, int, str]]:
    """``{vocabulary name: (landed file's source, ord, why)}``: the first landed record (``(path, header, row, record)``
    as :func:`~asz_core.testing.landing.landed_records` yields them) carrying each of :data:`FIELD_TERMS` and each
    flag of :data:`FLAG_TERMS`."""
    out: dict[str, tuple[str, int, str]] = {}
    flags = {f: name for name, f in FLAG_TERMS.items()}
    for _path, header, _row, rec in records:
        for name in FIELD_TERMS:
            if name not in out and getattr(rec, name, ""):
                out[name] = (header.src, rec.ord, f"its record field {name} is {getattr(rec, name)!r}")
        for f in rec.flags or ():
            if f in flags and flags[f] not in out:
                out[flags[f]] = (header.src, rec.ord, f"its flag {f} draws the step {flags[f]}")
    return out


def contradicted(adapter, records: Iterable[tuple]) -> list[str]:
    """One line per vocabulary name a dialect's glossary calls derived (an empty ``native``) while a landed record of
    that dialect carries it (:func:`carried`): ``kestrel/1: 'id' is derived in the glossary ("…"), but line 4 of
    2026-11-20/x.jsonl carries it (its record field id is 'x:m1'): name the source field it is read from``."""
    by_dialect: dict[str, list[tuple]] = {}
    for r in records:
        by_dialect.setdefault(r[1].dialect, []).append(r)
    out = []
    for dialect in adapter.dialects:
        terms = {t.unified: t for t in adapter.glossary(dialect)}
        for name, (src, ord_, why) in carried(by_dialect.get(dialect, ())).items():
            t = terms.get(name)
            if t is not None and not t.native:
                out.append(f"{dialect}: {name!r} is derived in the glossary ({t.note!r}), but line {ord_} of {src} "
                           f"carries it ({why}): name the source field it is read from (native and where)")
    return out
