"""One session's listing for ``asz verify`` (issue 22): the compiled way where it was built, else the Python.

:func:`verify_listing` gives exactly what
:func:`asz_core.storage.layout.session_listing` gives with ``skeletons`` and
``strings`` (every path a ``str``): by one call of the optional compiled
:mod:`asz_core.verify.linescan` (``listing``: the directories read with
``opendir``, the names parsed and sorted in C) where it answers, and by
``session_listing`` itself where it does not (a name that is not printable
ASCII, a seq of more than 18 digits, an error other than a missing directory:
the Python then says or raises what it does) or where it was not built.
"""

from __future__ import annotations

import os

from ..sessiondata.compiled import load_compiled
from ..storage.layout import PREFIX_KIND, LandedName, SessionListing, session_listing

# the compiled listing (setup.py); without it, session_listing lists the same
linescan = load_compiled("asz_core.verify.linescan")

__all__ = ["verify_listing"]


def verify_listing(session_dir: str | os.PathLike) -> SessionListing:
    """``session_listing(session_dir, skeletons=True, strings=True)``, listed in C where it can be (see the module).
    Raises what ``session_listing`` raises (a directory that cannot be read, other than a missing one)."""
    scan = linescan
    got = scan.listing(os.fspath(session_dir), True, PREFIX_KIND, LandedName) if scan is not None else None
    return SessionListing(*got) if got is not None else session_listing(session_dir, skeletons=True, strings=True)
