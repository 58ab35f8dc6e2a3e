"""``asz verify --deep``: landed records carrying a flag their adapter declares no rule for (house26, trial 25a F7).

Seed 000 (Flags): an adapter sets a flag only by a rule over source fields it declares (:meth:`Adapter.flag_map`).
Since session 25 ``asz collect`` refuses a record that breaks it (:func:`~asz_core.plugins.adapter.undeclared_flag`:
the line lands whole as an ``unknown`` part); a root an older adapter landed may hold such records, whole and sealed,
which the landed checks pass. ``--deep`` holds every record's ``flags`` to the rules of the adapter installed for its
file's dialect and names each flag none sets, as a warning (``flag without rule``): the file is no less whole, but
the readers take that flag as set (a record flagged ``injected`` is no person's prompt) on the adapter's word alone.
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path
from types import SimpleNamespace
from typing import Iterable

import orjson

from ..storage.layout import session_dirs, session_listing
from .report import Problem, Section

__all__ = ["FLAG_WITHOUT_RULE", "flags_section", "files_section", "file_flag_warnings"]

#: The warning's name (docs/verify.md, Warnings).
FLAG_WITHOUT_RULE = "flag without rule"
#: What the warning adds after the record and the rules.
WHY = ("; landed by {adapter}, before asz collect refused such a record (an asz built before 2026-12-05, source "
       "702d15ab): the flag comes from no rule "
       "the adapter declares, yet every reader takes it as set")


def _declared(dialect: str, cache: dict) -> frozenset[str] | None:
    """The flags the rules of the adapter installed for ``dialect`` set; None when no installed adapter speaks it."""
    from ..plugins.manager import adapter_for_dialect

    if dialect not in cache:
        adapter = adapter_for_dialect(dialect)
        try:
            cache[dialect] = None if adapter is None else frozenset(r.flag for r in adapter.flag_map(dialect))
        except KeyError:
            cache[dialect] = None
    return cache[dialect]


def file_flag_warnings(path: str | os.PathLike, shown: str, cache: dict) -> tuple[int, list[Problem] | None]:
    """``(flags checked, warnings)`` of one landed ``.sd`` file or skeleton (``.sk``, gzip: seed 000, Skeletons keep
    every record's flags, and the readers take them as set): a :data:`FLAG_WITHOUT_RULE` warning for each record
    flag no rule of its dialect's installed adapter sets, at the record's line (the header is line 1; a skeleton's
    lines as it unzips), field ``flags[i]``; warnings None when no installed adapter speaks the file's dialect
    (nothing to hold it to), or the file does not read (the landed checks name it). ``shown``: the file as the report
    names it."""
    from ..plugins.adapter import undeclared_flag
    from ..sessiondata.reader import landed_header

    try:
        header = landed_header(path)
        with open(path, "rb") as f:
            data = f.read()
        if str(path).endswith(".sk"):
            data = gzip.decompress(data)
    except (OSError, ValueError, EOFError, zlib.error):
        return 0, None
    declared = _declared(header.dialect, cache)
    if declared is None:
        return 0, None
    out: list[Problem] = []
    checked = 0
    if b'"flags":' not in data:
        return 0, out
    for row, line in enumerate(data.split(b"\n")[1:-2], start=2):  # the header, the closing line and the end left out
        if b'"flags":' not in line:
            continue
        try:
            d = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue  # the landed checks name a line that does not read
        flags = d.get("flags") if type(d) is dict else None
        if not isinstance(flags, list) or not flags:
            continue
        checked += len(flags)
        for i, flag in enumerate(flags):  # every flag without a rule, each at its own index
            if flag in declared:
                continue
            bad = undeclared_flag(SimpleNamespace(flags=[flag], ord=d.get("ord"), id=d.get("id") or ""), declared,
                                  header.dialect)
            if bad is not None:
                out.append(Problem(shown, row, f"flags[{i}]", FLAG_WITHOUT_RULE,
                                   bad[1] + WHY.format(adapter=header.adapter or "?")))
    return checked, out


def flags_section(root: str | os.PathLike, only: str | None = None) -> Section | None:
    """The ``flags`` section of ``asz verify --deep`` over ``root`` (``only``: one session): :func:`files_section`
    over every landed ``.sd`` file and skeleton (``.sk``) of its sessions."""
    root = Path(root)
    sdirs = [root / only] if only is not None else session_dirs(root)
    return files_section(str(path) for sdir in sdirs if sdir.is_dir()
                         for ln, path in session_listing(sdir, skeletons=True).files if ln.ext in ("sd", "sk"))


def files_section(paths: Iterable[str]) -> Section | None:
    """``checked N record flag(s) against the flag rules their adapters declare: without a rule U`` over the landed
    ``.sd`` files and skeletons ``paths`` (named as given), with the files of dialects no installed adapter speaks (or that do not
    read) said as not checked, and one :data:`FLAG_WITHOUT_RULE` warning per flag; None when no record carries a
    flag. Counts ``flags_checked``, ``flags_without_rule``. Never fails the run."""
    cache: dict = {}
    checked, warnings, unheld = 0, [], 0
    for path in paths:
        n, got = file_flag_warnings(path, path, cache)
        if got is None:
            unheld += 1
            continue
        checked += n
        warnings += got
    if not checked and not warnings:
        return None
    summary = (f"checked {checked} record flag(s) against the flag rules their adapters declare: without a rule "
               f"{len(warnings)}")
    if unheld:
        summary += f" ({unheld} landed file(s) of a dialect no installed adapter speaks, or that do not read, not checked)"
    return Section("flags", summary, {"flags_checked": checked, "flags_without_rule": len(warnings)}, warnings=warnings)
