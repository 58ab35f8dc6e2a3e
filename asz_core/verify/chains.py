"""The round chains' section of ``asz verify`` (origin-digest §2.6, §4.2): :func:`chain_section`, which
:func:`asz_core.verify.walk.verify` puts after the landed section."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from .report import Problem, Section

__all__ = ["chain_section", "chain_readers"]


def chain_readers() -> tuple:
    """``(frames, listing)`` as ``asz verify`` checks a chain with them (:func:`~asz_core.flow.verify_chain.verify_chain`):
    the compiled ``asz_core.verify.jsonscan.round_frames`` (None where it was not built) and
    :func:`~asz_core.verify.listing.verify_listing`."""
    from .listing import verify_listing
    from .session_files import jsonscan

    return (jsonscan.round_frames if jsonscan is not None else None), verify_listing


def chain_section(root: str | os.PathLike, session: str | None = None, *, digests: dict[str, str] | None = None,
                  step: Callable[[str, int], None] | None = None, chains=None, seen=None) -> Section | None:
    """The round chains' section (origin-digest §2.6, §4.2), or None when this build has no Session Flow.

    Runs :func:`asz_core.flow.verify_chain.verify_chains` (``digests``: the
    whole-file SHA-256 of landed files already read, by path, which it then
    does not read again; ``step(chain, 1)`` after each chain; ``chains``: the
    root's :class:`~asz_core.flow.chain.SessionChains` when already read; ``seen``: a
    :class:`~asz_core.flow.verify_chain.Seen` it fills for the caller; each round's node and relation frames vouched
    for by the compiled ``asz_core.verify.jsonscan.round_frames`` where it was built, not built as entities; each session
    listed by :func:`~asz_core.verify.listing.verify_listing`, in C where it was built) and carries its
    findings as problems named ``chain``: file = the round (or chain) file,
    field = ``round N``, detail = ``seq N: …`` (a landed file the round did not
    consume: :func:`~asz_core.verify.damage.changed_since_parsed`). Counts ``chains`` and ``rounds``.
    Raises FileNotFoundError when ``root`` is not a directory.
    """
    try:
        from ..flow.verify_chain import verify_chains
    except ImportError:  # pragma: no cover - a build without Session Flow
        return None
    from .damage import changed_since_parsed

    frames, listing = chain_readers()
    found = verify_chains(root, session, digests=digests, step=step, chains=chains, seen=seen, frames=frames,
                          listing=listing)
    section = Section("chains", found.summary(), {"chains": found.chains, "rounds": found.rounds})
    for p in found.problems:
        detail = (f"seq {p.seq}: " if p.seq else "") + p.message
        section.problems.append(changed_since_parsed(Path(root), p, detail) if p.landed else
                                Problem(str(p.path), 0, f"round {p.round}" if p.round else "", "chain", detail))
    from ..flow.chain import chain_links
    from ..storage.layout import CONVERSATIONS
    from ..sessiondata.nolink import link_said

    for path in chain_links(root):  # never listed as chains, nothing under them read (docs/storage-root.md, "No links")
        if session is None or os.path.basename(path) in (session, CONVERSATIONS):
            section.problems.append(Problem(path, 0, "", "symbolic link", link_said(path, "the chain folder")))
    return section
