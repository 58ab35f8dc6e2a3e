"""Provider bodies in ``asz verify`` (issue 10; seed 000, Provider bodies): every landed body rebuilt from the pieces
its session holds and checked against its manifest's digest.

Split from :mod:`asz_core.verify.walk`, which re-exports :func:`provider_section`.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..storage.layout import session_dirs
from .report import Problem, Section

__all__ = ["provider_section"]


def provider_section(root: str | os.PathLike, session: str | None = None) -> Section | None:
    """Every landed provider body rebuilt and held to its manifest (seed 000, Provider bodies; origin-digest §3.7).

    Per session, the provider_body files are read in seq order and each body
    is rebuilt and compared with its ``sha256`` and ``bytes``; the record's
    ``bytes`` and ``sha`` must agree with its manifest. Problems: ``provider
    reference`` (a piece or body the session does not hold before it),
    ``provider body`` (does not rebuild to its digest, or a malformed
    record). A body with a piece taken out to land is counted apart
    (``bodies_too_large``), never as damage. None when the root holds no
    provider_body file. Counts ``bodies``, ``bodies_rebuilt``, ``bodies_too_large``.
    """
    from ..sessiondata.providerbody import BodyError, MissingReference, Session, TooLarge
    from ..storage.layout import provider_files

    root = Path(root)
    sdirs = [root / session] if session else session_dirs(root)
    bodies = rebuilt = too_large = 0
    problems: list[Problem] = []
    any_file = False
    for sdir in sdirs:
        files = provider_files(sdir)
        if not files:
            continue
        any_file = True
        s = Session(keep_bytes=16 << 20)
        where: dict[str, str] = {}
        for seq, path in files:
            before = len(s.order)
            try:
                s.load_file(path, seq)
            except (OSError, ValueError) as exc:
                problems.append(Problem(str(path), 0, "", "provider body", f"not read: {exc}"))
                continue
            for rid in s.order[before:]:
                where[rid] = str(path)
        for p in s.problems:
            problems.append(Problem(p.split(":", 1)[0], 0, "", "provider body", p))
        for rid in s.order:
            bodies += 1
            rec = s.records[rid]
            m = rec.manifest
            line = rec.row + 1
            if rec.top.get("bytes") != m.bytes or rec.top.get("sha") != m.sha256[:12]:
                problems.append(Problem(where[rid], line, "sha", "provider body",
                                        f"{rid}: the record's bytes/sha do not agree with its manifest"))
            try:
                s.body(rid)
                rebuilt += 1
            except TooLarge:
                too_large += 1
            except MissingReference as exc:
                problems.append(Problem(where[rid], line, "segments", "provider reference", exc.message))
            except BodyError as exc:
                problems.append(Problem(where[rid], line, "segments", "provider body", exc.message))
    if not any_file:
        return None
    summary = f"checked {bodies} provider bod{'y' if bodies == 1 else 'ies'}: {rebuilt} rebuilt to their digest"
    if too_large:
        summary += f", {too_large} with a piece taken out to land (not damage)"
    return Section("provider_bodies", summary,
                   {"bodies": bodies, "bodies_rebuilt": rebuilt, "bodies_too_large": too_large}, problems=problems)
