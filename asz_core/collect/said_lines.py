"""What ``asz collect`` says of a source's lines at the end of its pass (:func:`said_undescribed`): those its adapter
could not describe at all (trial 12), those it read that hold something it does not describe (trial 23a F5), those
that give a key twice in one object (trial 27c F9) and those whose time does not read (trial 30a F8), each told in one
``warning:`` per source, by :class:`~asz_core.collect.session_pass.SessionPass`, which gathers them as it converts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..sessiondata import Record
from ..sessiondata.model import is_member_part
from ..sessiondata.untimed import untimed, untimed_said
from ..sessiondata.vocabulary import TWICE_DROPPED

if TYPE_CHECKING:
    from .session_pass import SessionPass

__all__ = ["gather_said", "undescribed_warning", "undescribed_of", "undescribed_within", "twice_of", "twice_warning", "untimed_of", "untimed_warning",
           "time_field", "said_undescribed"]


def undescribed_warning(lines: list[tuple[int, str]], adapter: str, shown: int = 5, within: bool = False) -> str:
    """What a ``warning:`` says of a source's ``lines`` (``(line number, reason)``) that adapter ``adapter`` could not
    describe at all: how many, then each distinct reason (in the order they first come) after the first ``shown``
    numbers of its lines (``lines 7, 9: the record is not valid JSON; line 8: the record is JSON but not an object``;
    trial 17, F6: one reason was said for all), the first ``shown`` reasons only and how many more on how many lines
    (trial 36c F3: each of 1,593 lines had its own, a 300 KB line), and that every byte landed. With ``within``, the lines it read but
    that hold something it does not describe (:func:`undescribed_within`: a member or block the runtime added, trial
    23a F5), each with the reason of its first unknown part."""
    by_reason: dict[str, list[int]] = {}
    for n, why in lines:
        by_reason.setdefault(why or "no reason given", []).append(n)
    said = []
    for why, nums in list(by_reason.items())[:shown]:
        listed = ", ".join(map(str, nums[:shown])) + (f" and {len(nums) - shown} more" if len(nums) > shown else "")
        said.append(f"line{'s' if len(nums) > 1 else ''} {listed}: {why}")
    if len(by_reason) > shown:  # each line its own reason (a byte at its own offset): capped (trial 36c F3)
        rest = list(by_reason.values())[shown:]
        said.append(f"and {len(rest)} more reason(s) on {sum(map(len, rest))} more line(s): asz conversation lists them all")
    if within:
        return (f"{len(lines)} line(s) hold content adapter {adapter} does not describe ({'; '.join(said)}): each such "
                "member or block travels verbatim, its source bytes as written, as an unknown part of the line's record "
                "beside what it read (asz conversation lists them under undescribed)")
    return (f"{len(lines)} line(s) adapter {adapter} could not describe ({'; '.join(said)}): their source bytes landed "
            "verbatim, as written, as unknown parts (asz conversation lists them under undescribed)")


def gather_said(sp: "SessionPass", rec: Record) -> None:
    """Gather what the end of ``sp``'s source says of ``rec``, a record as it lands (never one the pass refused and
    landed whole instead: trial 49c F8, whose warning said a refused line's member travelled beside what it read):
    undescribed whole or within, a key given twice, a time that does not read (lands as written, trial 30a F8)."""
    whole = undescribed_of(rec)
    (sp.undescribed if whole else sp.within).extend(whole or undescribed_within(rec))
    sp.twice.extend(twice_of(rec) if rec.dropped else ())
    sp.untimed.extend(untimed_of(rec))


def undescribed_of(rec: Record) -> list[tuple[int, str]]:
    """``[(line, reason of its first part)]`` when every part of ``rec`` is ``unknown`` (the adapter could not describe
    the line at all), else ``[]``. A member part (:func:`~asz_core.sessiondata.model.is_member_part`: a source member
    the dialect does not describe) is not content: a record whose other parts are all unknown is named by the first of
    them, as it was before such parts existed, and one holding member parts only was read (with members it does not
    describe: :func:`undescribed_within` names it). The usual record (a list of parts, the first not unknown) is told
    by its first part alone: this runs for every line landed."""
    parts = rec.parts
    if type(parts) is list and (not parts or parts[0].k != "unknown"):
        return []
    content = [p for p in parts if not is_member_part(p)]
    return [(rec.ord, content[0].text or "")] if content and all(p.k == "unknown" for p in content) else []


def undescribed_within(rec: Record) -> list[tuple[int, str]]:
    """``[(line, reason of its first unknown part)]`` when ``rec`` holds an ``unknown`` part beside parts the adapter
    described (one :func:`undescribed_of` does not name), else ``[]``."""
    for p in rec.parts:
        if p.k == "unknown":
            return [(rec.ord, p.text or "")]
    return []


def twice_of(rec: Record) -> list[tuple[int, str]]:
    """``[(line, path)]`` of each earlier value of a key given twice that ``rec`` lists under ``dropped``
    (:data:`~asz_core.sessiondata.vocabulary.TWICE_DROPPED`: the path from the line's top), in order; ``[]`` when none."""
    n = len(TWICE_DROPPED)
    return [(rec.ord, d.what[n:]) for d in rec.dropped if d.what.startswith(TWICE_DROPPED)]


def twice_warning(found: list[tuple[int, str]], shown: int = 5) -> str:
    """What a ``warning:`` says of a source's lines that give a key twice in one object (``found``: ``(line, path)``
    of each earlier value, :func:`twice_of`; trial 27c F9): how many lines, the first ``shown`` with their fields, and
    that the last value is read and each earlier one listed under ``dropped``."""
    by_line: dict[int, list[str]] = {}
    for n, path in found:
        by_line.setdefault(n, []).append(path)
    said = "; ".join(f"line {n}: {', '.join(paths)}" for n, paths in list(by_line.items())[:shown])
    more = f"; and {len(by_line) - shown} more line(s)" if len(by_line) > shown else ""
    return (f"{len(by_line)} line(s) give a key twice in one object ({said}{more}): the last value is read, as JSON "
            "readers read it, and each earlier one is read into no field: the record lists it under dropped "
            "(asz conversation names them)")


def untimed_of(rec: Record) -> list[tuple[int, str]]:
    """``[(line, time)]`` when ``rec`` carries a time that does not read as an RFC 3339 time
    (:func:`~asz_core.sessiondata.untimed.untimed`; seed 000, Times), else ``[]``."""
    return [(rec.ord, rec.time)] if untimed(rec.time) else []


def untimed_warning(found: list[tuple[int, str]], field: str, shown: int = 5) -> str:
    """What a ``warning:`` says of a source's records whose time does not read as an RFC 3339 time (``found``:
    ``(line, the time as landed)``; trial 30a F8: ``"timestamp": "yesterday"`` or a number landed unsaid), in the words
    every reader says them in (:func:`~asz_core.sessiondata.untimed.untimed_said`), ``field`` the record's ``time``
    and the runtime's name for it."""
    return untimed_said([("", n, v) for n, v in found], field, shown)


def time_field(adapter, dialect: str) -> str:
    """``time`` and, where the adapter's glossary for ``dialect`` names it, the runtime's own name for it
    (``time (timestamp)``, Claude Code's), for :func:`untimed_warning`."""
    try:
        native = next((t.native for t in adapter.glossary(dialect) if t.unified == "time" and t.native), "")
    except Exception:  # an adapter's glossary is its own: a failure names the record's field alone
        native = ""
    return f"time ({native})" if native else "time"


def said_undescribed(sp: "SessionPass", path: Path, dialect: str = "") -> None:
    """One ``warning:`` for the source ``path`` naming its lines ``sp``'s adapter could not describe at all (trial 12),
    one naming those it read that hold something it does not describe (trial 23a F5), one naming those that give
    a key twice in one object (:func:`twice_warning`) and one naming those whose time does not read
    (:func:`untimed_warning`, the field named in ``dialect``'s words); the lists emptied."""
    for lines, within in ((sp.undescribed, False), (sp.within, True)):
        if lines:
            sp.report.warning(path, undescribed_warning(lines, sp.adapter.name, within=within))
    if sp.twice:
        sp.report.warning(path, twice_warning(sp.twice))
    if sp.untimed:
        sp.report.warning(path, untimed_warning(sp.untimed, time_field(sp.adapter, dialect)))
    sp.undescribed, sp.within, sp.twice, sp.untimed = [], [], [], []
