"""The asz.view documents one ``asz verify --export --root`` check reads, each built once (docs/performance.md, session
48: each copy's document was built twice, once for its evidence and once inside the copy made again).

The copy made again (:func:`~asz_core.cli.export_made.made_again`) builds its conversation's document and masks it in
place while it draws it. While :meth:`SharedDocs.keeping` holds, :func:`keep` (called by
:func:`~asz_core.reading.export.build`) keeps what the check reads of each document built, copied before any masking:
its ``conversation``, ``head``, ``files`` and ``summary`` (the evidence, the rounds a grown conversation added, an index
row's figures), by the conversation, the withheld names, the round :func:`~asz_core.view.as_of.as_of` holds and the
title :func:`~asz_core.view.as_of.named_as_of` holds. :class:`SharedDocs` gives that, or builds the document when no
copy made kept it. :func:`entry_checked` makes the copy first and reads its evidence after, so a conversation whose
head is the manifest's is built once.
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, Optional

__all__ = ["KEPT_KEYS", "SharedDocs", "entry_checked", "keep"]

#: The keys of a document a check reads (:func:`~asz_core.reading.export_manifest.evidence`,
#: :func:`~asz_core.reading.export_manifest.moved_on`, an index row's figures:
#: :func:`~asz_core.cli.verify_index.shown_figures`).
KEPT_KEYS = ("conversation", "head", "files", "summary")
#: While :meth:`SharedDocs.keeping`: its ``kept`` dict, which :func:`keep` adds to.
_KEPT: ContextVar[Optional[dict]] = ContextVar("asz_export_kept", default=None)
#: How many documents (and kept parts of documents) a :class:`SharedDocs` holds at once: a copy's check reads one
#: conversation, at its head and at its manifest's round.
HELD = 4


def _key(cid: str, hide) -> tuple:
    from ..view.as_of import named_pinned, round_as_of

    return (cid, tuple(hide), round_as_of(cid), named_pinned())


def keep(conversation: str, hide, doc: dict) -> None:
    """While :meth:`SharedDocs.keeping` holds, keep :data:`KEPT_KEYS` of ``doc`` (conversation ``conversation``'s
    document, withholding ``hide``, just built: no text of it masked yet), copied."""
    kept = _KEPT.get()
    if kept is None:
        return
    if len(kept) >= HELD:
        kept.clear()
    kept[_key(conversation, hide)] = {k: copy.deepcopy(doc[k]) for k in KEPT_KEYS if k in doc}


class SharedDocs:
    """``docs(root, cid, hide)``: conversation ``cid``'s document (withholding ``hide``) as the round and title held
    now give it, or the parts of it a copy made again kept (:func:`keep`), each built once; a folder's check shares one
    across its copies and their index rows."""

    def __init__(self) -> None:
        self.built: dict = {}
        self.kept: dict = {}

    def __call__(self, root, cid: str, hide) -> dict:
        from ..view.document import build_view

        key = _key(cid, hide)
        got = self.kept.get(key) or self.built.get(key)
        if got is None:
            if len(self.built) >= HELD:
                self.built.clear()
            got = self.built[key] = build_view(root, cid, hide=list(hide))
        return got

    @contextmanager
    def keeping(self) -> Iterator[None]:
        """Within the block every document built is kept (:func:`keep`) for this builder."""
        token = _KEPT.set(self.kept)
        try:
            yield
        finally:
            _KEPT.reset(token)


def entry_checked(cid: str, entry: dict, body: dict, docs: Callable[[str], dict],
                  again_of: Callable[[str], tuple[bytes, list]], said: list, problems: list,
                  pruned: set) -> tuple[bytes, list]:
    """Conversation ``cid`` of a manifest (``entry`` of ``body``'s ``conversations``) against the root: its copy made
    again (``again_of``, drawn as the manifest's render drew it; as of the manifest's round when the root moved on
    since, trial 31b F1), then its head round, landed files and state against ``entry`` (``docs(cid)``: its document,
    kept by the copy just made), each line added to ``said`` or ``problems``, a conversation a skeleton stands for to
    ``pruned``. Returns what ``again_of`` gave. Raises as ``again_of`` and ``docs``."""
    from ..view.chain import as_of
    from .export_manifest import evidence, moved_on
    from .export_render import drawing
    from .export_retention import skeleton_of

    def made() -> tuple[bytes, list]:
        with drawing(int(body.get("render") or 1), body.get("cents_before")):
            return again_of(cid)

    got = made()  # at the head: its document kept for the evidence read next (built once)
    doc = docs(cid)
    now = evidence(doc)
    if now["head"] != entry.get("head"):
        upto, moved = moved_on(cid, doc, entry.get("head") or {}, docs)
        if upto is None:
            problems.append(moved)
        else:  # the manifest's head round is still in the root (write-once): the copy is made as of it
            said.append(moved)
            with as_of(cid, upto):
                got = made()
                now = evidence(docs(cid))
    was = {f["file"]: f["digest"] for f in entry.get("files") or ()}
    held = {f["file"]: f["digest"] for f in now["files"]}
    for f, digest in was.items():
        sk = skeleton_of(f)
        if f not in held and held.get(sk) == digest:  # trial 27b F3: a skeleton stands for it, by its digest
            said.append(f"{cid}: landed file {f}: removed by retention; its skeleton {sk.rsplit('/', 1)[-1]} "
                        "keeps the manifest's digest")
            pruned.add(cid)
        elif f not in held:
            problems.append(f"{cid}: landed file {f}: in the manifest, not in the root")
        elif held[f] != digest:
            problems.append(f"{cid}: landed file {f}: its digest is {held[f]}, not the manifest's {digest}")
    if now["state"] != "verified":
        problems.append(f"{cid}: its evidence does not verify (state {now['state']}): asz verify names the damage")
    if not problems:
        said.append(f"{cid}: head round {now['head'].get('round')} and its {len(was)} landed file(s) are the "
                    "manifest's, and verify")
    return got
