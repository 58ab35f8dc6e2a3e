"""The cyclic garbage collector paused while one bulk step builds many long-lived objects (parse, the asz.view build).

Parsing a session (index, assemblies, rounds) and building its asz.view document
allocate hundreds of thousands of small objects that stay alive to the end of
the step. Each allocation burst makes CPython's collector walk them all again
(a full collection is triggered by allocation counts, not by garbage), which
measured as about 40 % of a 16,422-line session's parse CPU. Nearly everything
such a step frees is freed by reference counting at once; the few cycles it
leaves are collected by the next collection after the step, so peak memory is
unchanged (measured: 157 MiB with the collector running, 158 MiB paused, on
that session).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused(*, keep: bool = False) -> Iterator[None]:
    """Disable the cyclic collector for the ``with`` block and enable it again after (nested blocks leave it off).

    ``keep``: what the block leaves alive is meant to live on (an index the next step reads, rounds a
    caller keeps). Every object tracked then is moved to the oldest generation as the block ends
    (``gc.freeze()`` then ``gc.unfreeze()``) instead of being walked by the first young collection after
    it (16,422 index entries: 36 ms). What refcounting frees is freed as before; a cycle the block left
    as garbage waits for the next full collection instead of the next young one, so a block that keeps
    should leave few (parse breaks the cycles of its assemblies, :mod:`asz_core.flow.assemble`).
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if keep:
            gc.freeze()
            gc.unfreeze()
        gc.enable()
