"""Credentials an agent session let into its records: ``asz secrets`` (a scan before a root is shared or pushed).

Agents read ``.env`` files, print tokens in shell output and paste keys into prompts; once landed, that text is
evidence kept for months and sent on by ``asz push`` and ``asz export``. This module finds the credentials whose
form is fixed and documented by their issuer (a fixed prefix and alphabet; no entropy guess, so a hit is very
likely a real credential and a miss is possible for any other form):

==========================  ==========================================================================
``aws-access-key-id``       ``AKIA`` / ``ASIA`` and 16 upper-case letters or digits
``github-token``            ``ghp_``, ``gho_``, ``ghu_``, ``ghs_``, ``ghr_`` and 36 or more letters or digits;
                            ``github_pat_`` and 22 or more
``gitlab-token``            ``glpat-`` and 20 or more letters, digits, ``_`` or ``-``
``anthropic-api-key``       ``sk-ant-`` then ``api`` or ``admin``, two digits, ``-`` and 20 or more
``openai-api-key``          ``sk-`` … ``T3BlbkFJ`` … (the marker OpenAI writes in the middle of its keys)
``slack-token``             ``xoxb-``, ``xoxp-``, ``xoxa-``, ``xoxr-``, ``xoxs-`` and 10 or more
``google-api-key``          ``AIza`` and 35 letters, digits, ``_`` or ``-``
``stripe-live-key``         ``sk_live_`` / ``rk_live_`` and 20 or more letters or digits
``huggingface-token``       ``hf_`` and 34 or more letters or digits
``npm-token``               ``npm_`` and 36 letters or digits
``private-key``             a PEM ``-----BEGIN … PRIVATE KEY-----`` line
``jwt``                     three base64url parts, the first two starting ``eyJ`` (a signed JSON Web Token)
==========================  ==========================================================================

A value is never printed whole: :func:`masked` keeps its first 4 and last 4 characters (``AKIA…MPLE``), and
:func:`fingerprint` the first 12 hex digits of its SHA-256, so two places of one credential are told apart from
another without showing it.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from pathlib import Path

from .listing import Filters

__all__ = ["KINDS", "find", "masked", "fingerprint", "redacted", "redacted_bytes", "scan"]

#: Each credential form: its name, the expression that finds it (on text, ASCII only; a match must not follow a letter,
#: digit or ``_``) and the strings one of which any match holds (looked for first: most texts hold none).
KINDS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("aws-access-key-id", r"A(?:KIA|SIA)[0-9A-Z]{16}(?![0-9A-Za-z_])", ("AKIA", "ASIA")),
    ("github-token", r"gh[pousr]_[A-Za-z0-9]{36,255}(?![0-9A-Za-z_])|github_pat_[A-Za-z0-9_]{22,255}(?![0-9A-Za-z_])",
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    ("gitlab-token", r"glpat-[A-Za-z0-9_-]{20,}", ("glpat-",)),
    ("anthropic-api-key", r"sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{20,}", ("sk-ant-",)),
    ("openai-api-key", r"sk-[A-Za-z0-9_-]*T3BlbkFJ[A-Za-z0-9_-]+", ("T3BlbkFJ",)),
    ("slack-token", r"xox[bpars]-[A-Za-z0-9-]{10,}", ("xox",)),
    ("google-api-key", r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", ("AIza",)),
    ("stripe-live-key", r"[sr]k_live_[0-9A-Za-z]{20,}(?![0-9A-Za-z_])", ("k_live_",)),
    ("huggingface-token", r"hf_[A-Za-z0-9]{34,}(?![0-9A-Za-z_])", ("hf_",)),
    ("npm-token", r"npm_[A-Za-z0-9]{36}(?![0-9A-Za-z_])", ("npm_",)),
    ("private-key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----", ("PRIVATE KEY",)),
    ("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}", ("eyJ",)),
)
_COMPILED = tuple((name, re.compile(rx), hints) for name, rx, hints in KINDS)


def _starts(text: str, at: int) -> bool:
    """True when a credential may start at ``at``: not after a letter, digit or ``_``, except the ``n``, ``r`` or ``t``
    of a backslash escape (a JSON string's line break before it, as prose and JSON exports write one)."""
    if at == 0:
        return True
    c = text[at - 1]
    return not (c.isalnum() or c == "_") or (c in "nrt" and at >= 2 and text[at - 2] == "\\")


def find(text: str) -> list[tuple[str, int, int]]:
    """``(kind, start, end)`` of each credential in ``text`` (offsets in code points), by start."""
    out = []
    for name, rx, hints in _COMPILED:
        if any(h in text for h in hints):
            out += [(name, m.start(), m.end()) for m in rx.finditer(text)
                    if name == "private-key" or _starts(text, m.start())]
    return sorted(out, key=lambda f: f[1])


def masked(value: str) -> str:
    """``value`` with all but its first 4 and last 4 characters left out (``AKIA…MPLE``); a PEM line whole (it holds
    no key material)."""
    if value.startswith("-----"):
        return value
    return f"{value[:4]}…{value[-4:]}" if len(value) > 12 else f"{value[:2]}…"


#: After a PEM private key's first line: the key's lines up to its last (``-----END … PRIVATE KEY-----``), or, when the
#: text was cut before it, the run of base64 and line breaks (real or JSON-escaped) that follows.
_PEM_REST = re.compile(r"[\s\S]{0,20000}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=\s]|\\[nr])*")


def redacted(text: str) -> tuple[str, list[str]]:
    """``text`` with each credential :func:`find` finds replaced by its :func:`masked` form (a PEM private key's
    lines by ``[private key left out]`` after its first line), and the :func:`fingerprint` of each value replaced."""
    out, at, gone = [], 0, []
    for kind, a, b in find(text):
        if a < at:  # two forms overlapping: the first one replaced
            continue
        if kind == "private-key":
            end = _PEM_REST.match(text, b)
            out += [text[at:b], "[private key left out]"]
            gone.append(fingerprint(text[a:end.end()]))
            at = end.end()
            continue
        out += [text[at:a], masked(text[a:b])]
        gone.append(fingerprint(text[a:b]))
        at = b
    return ("".join(out) + text[at:] if out else text), gone


def redacted_bytes(data: bytes) -> tuple[bytes, list[str]]:
    """:func:`redacted` of UTF-8 ``data`` (bytes that do not decode are kept as they are)."""
    text, gone = redacted(data.decode("utf-8", "surrogateescape"))
    return text.encode("utf-8", "surrogateescape"), gone


def fingerprint(value: str) -> str:
    """The first 12 hex digits of ``value``'s SHA-256 (UTF-8): the same credential has the same one everywhere."""
    return hashlib.sha256(value.encode()).hexdigest()[:12]


def scan(root: str | os.PathLike, index: Path, filters: Filters | None = None) -> list[dict]:
    """Every credential in the texts the search index ``index`` of ``root`` holds (prompts, replies, thinking, tool
    inputs and results, of every conversation, withheld records included: a credential is there whether or not the
    page shows it), narrowed by ``filters`` (project, model, dialect of the conversation; since/until of the text's
    time). Each: ``{"conversation", "title" (:func:`redacted`: a first prompt may hold one), "kind" (the text's kind), "at" (unix ms, 0 when unknown), "step",
    "file", "row", "secret" (a :data:`KINDS` name), "masked", "fingerprint"}``, in the index's order; one per place
    (a text holding one credential twice: once). Raises sqlite3.Error."""
    from .search_hits import hits_where

    where, args = hits_where(filters or Filters())
    sql = ("SELECT hit.conversation, conv.title, hit.kind, hit.at, hit.step, hit.file, hit.row, fts.text FROM hit "
           "JOIN fts ON fts.rowid = hit.rowid JOIN conv ON conv.id = hit.conversation "
           f"WHERE {' AND '.join(where) or '1'} ORDER BY hit.rowid")
    con = sqlite3.connect(f"file:{index}?mode=ro", uri=True, timeout=30)
    out: list[dict] = []
    try:
        for cid, title, kind, at, step, file, row, text in con.execute(sql, args):
            seen: set[str] = set()
            for name, a, b in find(text or ""):
                value = text[a:b]
                if value in seen:
                    continue
                seen.add(value)
                out.append({"conversation": cid, "title": redacted(title or "")[0], "kind": kind, "at": at or 0, "step": step or "",
                            "file": file, "row": row, "secret": name, "masked": masked(value),
                            "fingerprint": fingerprint(value)})
    finally:
        con.close()
    return out
