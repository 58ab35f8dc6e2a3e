"""``asz verify --export FILE --root ROOT`` of a copy made before ``asz erase`` took one of its conversations
(docs/verify.md, A copy of an erased session).

The root keeps nothing of an erased session but the ids and the who/when/why of ``_erased.list``
(:mod:`asz_core.storage.erased_list`), so nothing of the copy can be checked against it: each erased conversation the
manifest names is one problem saying so (exit 1: the copy does not check against this root, and a holder learns the
copy holds what was erased on request), never that a text changed; the copy is not made again (the root cannot).
"""

from __future__ import annotations

import os

from ..storage.erased_list import ERASED_LIST, erasure_said, read_erased

__all__ = ["erased_problems"]


def erased_problems(root: str | os.PathLike, body: dict) -> list[str]:
    """One problem per conversation of the manifest ``body`` whose session (or the conversation itself) ``root``
    erased; ``[]`` when none (then the copy is checked as ever)."""
    erased = read_erased(root)
    if not erased:
        return []
    out = []
    for entry in body.get("conversations") or ():
        cid = str(entry.get("conversation") or "")
        sessions = {f.get("file", "").split("/", 1)[0] for f in entry.get("files") or () if isinstance(f, dict)}
        for e in erased.values():
            if cid == e.session or cid in e.conversations or e.session in sessions:
                out.append(f"{cid}: erased: its session {e.session} was {erasure_said(e)} "
                           f"({os.path.join(str(root), ERASED_LIST)}:{e.line}): the root holds nothing of it to check "
                           "the copy against (not a change of the copy: the copy holds what was erased on request; "
                           "its text is not compared)")
                break
    return out
