"""A clean session of ``asz verify`` checked in one C call (issue 22, session 19; docs/verify.md "How fast").

:func:`clean_session` answers for one session directory what :func:`asz_core.verify.walk._verify_session` returns
for it over :func:`~asz_core.verify.listing.verify_listing` and :func:`~asz_core.verify.landed.check_for_walk` of
each of its files, when those find no problem and no warning: by one call of the optional compiled
:mod:`asz_core.verify.linescan` (``session``), which lists the session, checks each landed file as ``landed`` does
(header, record positions, closing count and digest), its name and directory against its header
(:func:`~asz_core.verify.names.names_agree`), its mode, the seqs, each stream's contiguity and its cursor. Anything
else (a problem, a warning, a skeleton, a stray, records landed again, a cursor that does not read cleanly, a file of
more than one read) gives None, and the caller checks the session the Python way, which stays the definition: every
problem keeps its wording. Without the compiled modules it always gives None.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..sessiondata.codec import closing_pair, decode_header
from ..sessiondata.compiled import load_compiled
from ..storage.layout import PREFIX_KIND, LandedName
from ..storage.root import SESSION_STATE
from .landed import SCAN_CHUNK
from .names import NOT_STREAMS
from .report import SNAPSHOT_KINDS, UNCHECKED_KINDS

# the compiled walk (setup.py); without it, or without bytescan's cursor_values, the Python checks every session
linescan = load_compiled("asz_core.verify.linescan")
#: bytescan's reading of a cursor (asz_core.storage.cursor's, in C), or None where it was not built
cursor_values = getattr(load_compiled("asz_core.sessiondata.bytescan"), "cursor_values", None)

__all__ = ["CALL_NAME", "clean_session", "cursor_values"]

#: What a landed line holding an MCP call's name holds (the name's JSON string begins so): in a session holding an
#: ``execution`` file, the C call tells which landed files' bytes hold none, and the arguments check reads none of those
#: for the MCP calls no execution record covers (:mod:`asz_core.view.executions_check`; issue 22, session 34).
CALL_NAME = b'"mcp__'

# what linescan.session is called with for every session (its docstring)
_CONSTS = (SCAN_CHUNK, hashlib.sha256, closing_pair, decode_header, PREFIX_KIND,
           cursor_values, SNAPSHOT_KINDS, UNCHECKED_KINDS, NOT_STREAMS, SESSION_STATE, CALL_NAME, "execution", LandedName)


def clean_session(sdir: Path, digests: dict[str, str] | None, told=None,
                  listed: dict[str, list] | None = None) -> tuple[int, int, int, int] | None:
    """``(streams, records, streams without a cursor, landed files)`` of session directory ``sdir`` when it is clean
    (its duplicates 0, no problem), as ``_verify_session`` counts them; ``digests``, when given, then receives each
    landed file's whole-file SHA-256 hex by path (str), ``told`` (a :class:`~asz_core.verify.walk_told.Told`)
    what the same listing tells the notes (stamps going back, temporaries) and, in a session holding an ``execution``
    file, which landed files hold no :data:`CALL_NAME`, and ``listed`` the files of that listing by ``os.fspath(sdir)``
    (``verify_listing(sdir).files``: what the chain check of its conversation reads, :attr:`Seen.listed
    <asz_core.flow.verify_chain.Seen>`, issue 22, session 40). None where the Python must check the session (see the
    module), and then nothing was put in ``digests``, ``told`` nor ``listed``. Never raises for what it finds on
    disk."""
    scan = linescan
    if scan is None or cursor_values is None:
        return None
    name = sdir.name
    got = scan.session(os.fspath(sdir), "" if "\\" in name or name in ("", ".", "..") else name, digests, _CONSTS)
    if got is None:
        return None
    if told is not None:
        told.answered(name, *got[4:7], unheld=got[7])
    if listed is not None:
        listed[os.fspath(sdir)] = got[8]
    return got[:4]
