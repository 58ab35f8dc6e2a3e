"""The problems of a copy's conversations that appeared or went since the copy was made (trial 45b F1).

A conversation's ``summary.problems`` is not all landed text: a torn tail (:mod:`~asz_core.storage.torn`) is said
once its source's unfinished last line has not changed for 10 minutes, judged by the collect pass that finds it so,
which writes it in the append cursor, not in a landed file or a round; a receiving root short of its records, or
files from two credentials, are said from the root's state likewise. So an honest copy made while such a line was a
write in progress, checked once it aged, would read as a copy missing landed text. ``asz verify --export --root``
holds every other byte of the copy to the landed text byte for byte and says each problem that differs as what it
is: a problem the conversation gained, or one that went, since the copy was made (docs/verify.md, "A masked export").

Where a copy says its conversations' problems (:func:`problem_parts`, the one place that decides it, for every form):

- md: a head line ``- **STATE:** P`` or ``- **problem:** P``; html: one ``<div class="failed"><b>…</b><ul><li>P</li>…
  </ul></div>`` line per box (:func:`~asz_core.reading.export.markdown_head`, ``_html_head``). Each is looked for
  only in the head that follows the conversation's id line, up to its first talk, so no text of a step is read as
  a box; a box line is taken or put whole (a copy may have more or fewer boxes than the root now draws);
- json (``--whole`` too): the value of the document's ``summary.problems`` key, a JSON list;
- prose and ``--audit`` (JSON Lines): the value of the ``problems`` key of each ``kind`` ``conversation`` header line;
- text: the value after ``problems: `` in the header after ``=== conversation ID ===`` (up to its blank line),
  ``none`` for no problem; the list is joined by ``, `` there, so it is said as one problem.

In a JSON line a key is ``"NAME":`` after ``{`` or ``,`` (a quote inside a string is always escaped), so a step's
text is never read as the key.
"""

from __future__ import annotations

import html
import json
import re
from typing import Optional

__all__ = ["problem_parts", "problems_then"]

#: The conversation's id line of a head, by format (its id follows).
_ID = {"md": re.compile(r"^- conversation: `([^`]+)`$"),
       "html": re.compile(r'^<p class="meta">conversation <span class="id">([^<]+)</span>'),
       "text": re.compile(r"^=== conversation (\S+) ===$")}
#: A problem box line of a head, by format.
_BOX = {"md": re.compile(r"^- \*\*[a-z_ ]+:\*\* (.*)$"), "html": re.compile(r'^<div class="failed"><b>[^<]*</b><ul>(.*)</ul></div>$'),
        "text": re.compile(r"^(problems: )(.*)$")}
#: Where a head ends: its first talk (or the list of talks, or a step outside any talk); text: its blank line.
_END = {"md": ("## ", "# "), "html": ("<h2", "<nav", "<div class=\"step", "<h1")}
#: The forms whose box lines are taken or put whole (md, html); the others' problems are a span of one line.
_WHOLE = ("md", "html")
#: The JSON forms: where their problems key follows (json: the document's summary; a JSON Lines header: its start).
_JSON = {"json": (',"summary":{',), "prose": ("{",)}

#: A part: (its line's index, the span's start and end in that line (characters), the problems it says).
Part = tuple[int, int, int, list[str]]


def _head_parts(lines: list[str], fmt: str) -> dict[str, tuple[int, list[Part]]]:
    """md, html and text: per conversation id, ``(its id line's index, its head's parts)``."""
    out: dict[str, tuple[int, list[Part]]] = {}
    cid: Optional[str] = None
    for i, line in enumerate(lines):
        if m := _ID[fmt].match(line):
            cid = m.group(1)
            out[cid] = (i, [])
        elif cid is not None and (line.startswith(_END[fmt]) if fmt in _END else not line):
            cid = None
        elif cid is not None and (m := _BOX[fmt].match(line)):
            if fmt == "text":
                items = [] if m.group(2) == "none" else [m.group(2)]
                out[cid][1].append((i, m.end(1), len(line), items))
                continue
            items = [m.group(1)] if fmt == "md" else [html.unescape(x) for x in re.findall(r"<li>(.*?)</li>", m.group(1))]
            out[cid][1].append((i, 0, len(line), items))
    return out


def _key_value(line: str, after: tuple[str, ...]) -> Optional[tuple[int, int, list]]:
    """``(start, end, value)`` of the first ``problems`` key's value after each of ``after`` in turn in a JSON line."""
    at = 0
    for token in after:
        at = line.find(token, at)
        if at < 0:
            return None
    m = re.compile(r'[{,]"problems":').search(line, at)
    if m is None:
        return None
    try:
        value, end = json.JSONDecoder().raw_decode(line, m.end())
    except ValueError:
        return None
    return (m.end(), end, value) if isinstance(value, list) else None


def _json_parts(lines: list[str], fmt: str) -> dict[str, tuple[int, list[Part]]]:
    """json and prose/audit: per conversation id, ``(its line's index, [its problems key's value])``."""
    out: dict[str, tuple[int, list[Part]]] = {}
    for i, line in enumerate(lines):
        if not line.startswith("{") or (fmt == "prose" and '"kind":"conversation"' not in line):
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("conversation"), str):
            continue
        if fmt == "prose" and doc.get("kind") != "conversation":
            continue
        got = _key_value(line, _JSON[fmt])
        if got is not None:
            out[doc["conversation"]] = (i, [(i, got[0], got[1], [str(p) for p in got[2]])])
    return out


def problem_parts(lines: list[str], fmt: Optional[str]) -> dict[str, tuple[int, list[Part]]]:
    """Where a copy of format ``fmt`` (``made.format``: md, html, json, prose, text) says its conversations'
    problems (module docstring): per conversation id, ``(its id line's index, [(line index, start, end, problems)])``;
    ``lines``: the copy's lines (str, split at ``\\n``). Any other format: none."""
    if fmt in ("json", "prose"):
        return _json_parts(lines, fmt)
    return _head_parts(lines, fmt) if fmt in _ID else {}


def problems_then(copy: bytes, again: bytes, fmt: Optional[str]) -> tuple[bytes, list[str]]:
    """``(again with each conversation's problems as the copy says them, the lines saying what differs)``: where a
    conversation's problems in ``again`` (made again from the root now) are not the copy's, ``again`` takes the
    copy's parts (:func:`problem_parts`; md/html: its box lines at the copy's places after its id line), the rest of
    it kept, and each problem is said: ``ID: the conversation gained a problem since the copy was made: P`` or
    ``ID: a problem the copy says went since it was made: P``. Every other byte is left to the byte-for-byte check,
    which names it."""
    mine = copy.decode("utf-8", "surrogateescape").split("\n")
    out = again.decode("utf-8", "surrogateescape").split("\n")
    was, said = problem_parts(mine, fmt), []
    for cid, (at, parts) in sorted(problem_parts(out, fmt).items(), key=lambda kv: -kv[1][0]):  # the last first
        held = was.get(cid)
        if held is None or [x for *_, x in held[1]] == [x for *_, x in parts]:
            continue
        if fmt not in _WHOLE and len(held[1]) != len(parts):
            continue  # no such part to lay over: the byte-for-byte check names the line
        old, new = [p for *_, x in held[1] for p in x], [p for *_, x in parts for p in x]
        said += [f"{cid}: the conversation gained a problem since the copy was made: {p}" for p in new if p not in old]
        said += [f"{cid}: a problem the copy says went since it was made: {p}" for p in old if p not in new]
        if fmt not in _WHOLE:
            for (i, a, b, _), (j, c, d, _) in zip(parts, held[1]):
                out[i] = out[i][:a] + mine[j][c:d] + out[i][b:]
            continue
        for i, *_ in reversed(parts):
            del out[i]
        for i, *_ in held[1]:
            out.insert(at + i - held[0], mine[i])
    return "\n".join(out).encode("utf-8", "surrogateescape"), said
