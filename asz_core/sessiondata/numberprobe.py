"""The wide-number probe: may a JSON text hold a number no int64/uint64 or double holds (issue 22)?

A byte translation and substring searches over a whole text, so a file whose every line decodes the same without the
exact decoder is found in one pass (:func:`asz_core.sessiondata.jsonbytes.exact_as_plain`).
"""

from __future__ import annotations

import re

from .compiled import load_compiled

# the compiled scan (setup.py's optional extension); without it, the Python below gives the same results
bytescan = load_compiled("asz_core.sessiondata.bytescan")

__all__ = ["may_hold_wide_number", "scan_file", "bytescan"]

# A number token inside an array or object (after ``[``, ``:`` or ``,`` and optional whitespace; a bare top-level
# number goes to the slow decoder whatever it holds: :func:`asz_core.sessiondata.jsonbytes.loads`) that could hold an integer of 19 digits
# or more, or an exponent of 3 digits (all a double cannot hold start so).
# Hex digests (``…e123…``) and digit runs inside strings no longer send a line to the slow decoder: on landed records,
# whose ``sha`` is hex, the older probe (any ``\d{19}`` or ``e\d{3}`` anywhere) sent 6 lines in 10 there (issue 22).
# A string that happens to hold such a token still only costs the slow path, never a wrong value.
# :func:`may_hold_wide_number` looks for it in a translation of the bytes: digits become ``0``, the openers ``S``,
# ``e``/``E`` ``e``, ``.`` stays, JSON whitespace and signs are dropped, anything else becomes ``x``.
_PROBE_TABLE = bytes(
    ord("0") if 48 <= c <= 57 else ord("S") if c in b"[:," else ord("e") if c in b"eE" else c if c == ord(".") else ord("x")
    for c in range(256)
)
_PROBE_DROP = b" \t\r\n+-"
_WIDE_INT = b"S" + b"0" * 19
_WIDE_EXP = re.compile(rb"S0[0.]*e000")


def may_hold_wide_number(probe: bytes) -> bool:
    """:func:`may_hold_wide_number_py`, in one compiled pass when :mod:`asz_core.sessiondata.bytescan` was built."""
    if bytescan is not None:
        return bytescan.scan(probe)[0]
    return may_hold_wide_number_py(probe)


def may_hold_wide_number_py(probe: bytes) -> bool:
    """True when ``probe`` (JSON text) may hold a number token of 19 digits or more, or with an exponent of 3 digits.

    The byte translation and two substring searches (a regular expression only where ``0e000`` or ``.e000`` appears) take
    a third of the time a regular expression over every opener took: on the corpus's largest conversation that
    search cost twice the decoding it guarded.
    """
    t = probe.translate(_PROBE_TABLE, _PROBE_DROP)
    return _WIDE_INT in t or ((b"0e000" in t or b".e000" in t) and _wide_exponent(t))


#: How far back from an ``e000`` :func:`_wide_exponent` looks for the token's start before it searches the whole text.
_EXP_REACH = 64
_S, _ZERO = ord("S"), ord("0")


def _wide_exponent(t: bytes) -> bool:
    """``_WIDE_EXP.search(t) is not None`` for a probe translation ``t`` (bytes of ``0 S e . x`` only), looking only
    around each ``e000``: the token before it is a match when the nearest byte that is not ``0`` or ``.`` is an ``S``
    followed by a ``0``. Hex digests put ``e000`` in the text of most landed files, and the regular expression over
    the whole text cost a fifth of the probe; a token whose start is further back than :data:`_EXP_REACH` is left to it."""
    find, rfind = t.find, t.rfind
    i = find(b"e000")
    while i >= 0:
        lo = i - _EXP_REACH if i > _EXP_REACH else 0
        q = max(rfind(b"S", lo, i), rfind(b"x", lo, i))
        if q < 0:  # no opener or other byte within reach: the regular expression decides
            return _WIDE_EXP.search(t) is not None
        if t[q] == _S and q + 1 < i and t[q + 1] == _ZERO and find(b"e", q, i) < 0:
            return True
        i = find(b"e000", i + 1)
    return False


#: Every byte but the openers and the newline (:func:`scan_file`'s depth count).
_NOT_OPENERS = bytes(c for c in range(256) if c not in b"{[\n")


def scan_file(data: bytes) -> tuple[bool, int, bool]:
    """``(may_hold_wide_number(data), the most '{' and '[' bytes on one line, b"null" in data)`` of a whole file's
    bytes (any buffer): what a bound landed file's decode asks of its bytes (:mod:`asz_core.view.session_records`).

    In one pass of the compiled :mod:`asz_core.sessiondata.bytescan` when it was built (issue 22: three passes and
    two copies of a 10 MB file were 10 % of an asz.view build), else by the translations and searches here, with
    the same results (tests/core/test_bytescan.py holds the two to each other)."""
    if bytescan is not None:
        return bytescan.scan(data)
    return scan_file_py(data)


def scan_file_py(data: bytes) -> tuple[bool, int, bool]:
    """:func:`scan_file` in Python (an install without the compiled scan, and the tests' reference)."""
    data = bytes(data)
    return may_hold_wide_number_py(data), max(map(len, data.translate(None, _NOT_OPENERS).split(b"\n"))), b"null" in data
