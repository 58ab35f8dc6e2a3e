"""Benchmark: the instructions of one session's verify check as ``asz push`` and ``asz prune`` ask it.

Usage: ``valgrind --tool=cachegrind --cache-sim=no python bench/verify_session_instr.py ROOT MODE K``

Checks the first K sessions of ROOT with :func:`asz_core.verify.unverified` (the root is only read). MODE ``each``:
every check finds the session's chains itself (``asz verify --root ROOT SESSION``; before SessionChains, what push
and prune ran); ``once``: the root's chains read once (:class:`asz_core.flow.chain.SessionChains`, included), as push
and prune now ask; ``whole``: ``asz verify --root ROOT``'s checks of the whole root once, in this process (what a
push pass ran before after 8 sessions; K 0 imports only). Run it with K and with 0 and divide the difference by K: the instructions a session costs (the
process start and imports cancel). Runs on an older build (its venv's python) in mode ``each``.
"""

from __future__ import annotations

import sys

from asz_core.storage.layout import session_dirs
from asz_core.verify import unverified


def main() -> None:
    root, mode, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    names = [d.name for d in session_dirs(root)][:k]
    if mode == "whole":
        from asz_core.verify import verify

        assert not k or verify(root, jobs=1).ok
        print(f"whole {k}")
        return
    kw = {}
    if mode == "once" and k:
        from asz_core.flow.chain import SessionChains

        kw = {"chains": SessionChains(root)}
    bad = [s for s in names if unverified(root, s, **kw)]
    assert not bad, bad
    print(f"{mode} {k}: checked {len(names)} session(s)")


if __name__ == "__main__":
    main()
