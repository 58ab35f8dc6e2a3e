"""One spelling of a path-like name for comparing and grouping: Unicode NFC.

A project path, a sender's instance id or credential name can reach a root in two spellings of the same text:
macOS writes ``Zoë`` decomposed (NFD, ``Zoe\\u0308``), a keyboard and most other systems composed (NFC, ``Zo\\u00eb``)
(trial 31c F2). Every reader that matches such a name against what a reader typed (``--project``, ``--instance``,
``/api/conversations?project=``, the page's filters) or groups by it (``asz usage project``, the page's Project
dropdown) compares :func:`nfc` or :func:`folded` forms, so the two spellings are one project. What landed keeps its
bytes: only the comparison and the key of a group are normalised.
"""

from __future__ import annotations

import unicodedata

__all__ = ["nfc", "folded"]


def nfc(name: object) -> str:
    """``name`` in Unicode normalisation form C (a non-string counts as ''): the key two spellings of one name share
    (``"Zoe\\u0308"`` and ``"Zo\\u00eb"`` both give ``"Zo\\u00eb"``)."""
    if not isinstance(name, str):
        return ""
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def folded(name: object) -> str:
    """:func:`nfc` of ``name`` in lower case (``str.lower``, then NFC again: lowering may decompose; the page's
    ``normalize('NFC').toLowerCase()`` is the same rule): what a case-insensitive match compares (``ZOË`` in NFD
    matches ``zoë`` in NFC)."""
    text = nfc(name).lower()
    return text if text.isascii() else unicodedata.normalize("NFC", text)
