"""One spelling of a path-like name for comparing and grouping: Unicode NFC.

A project path, a sender's instance id or credential name can reach a root in two spellings of the same text:
macOS writes ``Zoë`` decomposed (NFD, ``Zoe\\u0308``), a keyboard and most other systems composed (NFC, ``Zo\\u00eb``)
(trial 31c F2). Every reader that matches such a name against what a reader typed (``--project``, ``--instance``,
``/api/conversations?project=``, the page's filters) or groups by it (``asz usage project``, the page's Project
dropdown) compares :func:`nfc` or :func:`folded` forms, so the two spellings are one project. What landed keeps its
bytes: only the comparison and the key of a group are normalised.

A Windows folder has more names than spellings (trial 36c F2): NTFS ignores letter case, so ``C:\\Users\\Zoë\\my app``
and ``c:\\users\\zoë\\My App`` are one folder, Windows takes ``/`` as ``\\``, and WSL mounts drive ``C:`` at
``/mnt/c``, so ``/mnt/c/Users/Zoë/my app`` is that folder too. :func:`windows_path` writes such a path as Windows
names it and :func:`project_key` is what two project paths are grouped by: for a Windows path (a drive ``X:``, a UNC
``\\\\server\\share``, WSL's ``/mnt/<letter>``) its Windows name in lower case without a trailing separator; for any
other path its NFC spelling, letter case kept (Linux tells ``/home/a/App`` from ``/home/a/app``).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["nfc", "folded", "windows_path", "project_key", "project_forms"]


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


#: A drive path (``C:\\…``, ``c:/…``, ``D:``), a UNC path (``\\\\server\\share``, ``//server/share``), WSL's mount of a
#: drive (``/mnt/c/…``: a letter alone, so ``/mnt/wsl`` or ``/mnt/data`` is no drive).
_DRIVE = re.compile(r"[A-Za-z]:(?:[\\/]|$)")
_UNC = re.compile(r"(?:\\\\|//)[^\\/]")
_MOUNT = re.compile(r"/mnt/([a-z])(?=/|$)")


def windows_path(name: object) -> str | None:
    """``name`` (NFC) as Windows names the folder, every separator ``\\``: ``/mnt/c/Users/x`` gives ``C:\\Users\\x``,
    ``c:/Users/x`` ``c:\\Users\\x`` (letter case as written), ``//srv/share`` ``\\\\srv\\share``; None when it
    is not a drive, UNC or WSL-mounted path."""
    n = nfc(name)
    m = _MOUNT.match(n)
    if m:
        return m.group(1).upper() + ":" + (n[m.end():].replace("/", "\\") or "\\")
    if _DRIVE.match(n) or _UNC.match(n):
        return n.replace("/", "\\")
    return None


def project_key(name: object) -> str:
    """What project paths are grouped and matched whole by (module docstring): a Windows path's
    :func:`windows_path` in lower case (:func:`folded`) without a trailing ``\\`` (``C:\\`` keeps its own), so
    ``C:\\Users\\Zoë\\my app``, ``c:\\users\\zoë\\My App\\`` and ``/mnt/c/Users/Zoë/my app`` give one key;
    any other path's :func:`nfc`, its case kept."""
    w = windows_path(name)
    if w is None:
        return nfc(name)
    key = folded(w)
    return key[:-1] if key.endswith("\\") and len(key) > 3 else key


def project_forms(names: list[str]) -> tuple[str, list[str]]:
    """``(label, forms)`` of one project's paths as they came (``names``: one per call or conversation, NFC): the form
    named most often (ties: a form that is its own Windows name, ``C:\\…`` before WSL's ``/mnt/c/…``, then the first
    in sorted order) and every distinct form, sorted. The label a reader shows for
    a group :func:`project_key` made; ``--json`` gives the forms."""
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    forms = sorted(counts)
    return (max(forms, key=lambda n: (counts[n], windows_path(n) == n)) if forms else ""), forms
