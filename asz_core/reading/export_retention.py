"""What of an export copy made before retention cannot be held to the pruned root (docs/verify.md, "A copy made
before retention"; trial 27b F3, trial 29a F1): :mod:`asz_core.reading.export_manifest` makes the copy again from
the root, where a reader writes a marker (:data:`MARKER`) in place of each text ``asz prune`` took; here the copy is
laid over it, every marker standing for whatever text the copy holds there (:func:`retention_spans`: md, html,
json), the prose lines paired key by key (:func:`removed_lines`: ``--audit``) and the text form's blocks so
(:func:`text_removed`: ``--format text``), so that a line retention took the text of is "not checkable", never
"changed", and every other byte is still held to the root."""

from __future__ import annotations

import re
from typing import Optional

import orjson

from ..view.step_words import NOTICE_LABELS
from .prose_audit import REASON_GONE

__all__ = ["MARKER", "REMOVED_MARK", "HEADER_KEPT", "TALK_HEADING", "TRIES", "blank_marker", "in_copy", "lines_said", "removed_blocks", "removed_lines",
           "retention_spans", "said_gone", "skeleton_of", "span_lines", "text_removed"]


#: What a reader writes where retention took a landed text (asz_core.reading.export_steps.part_marker, the title).
REMOVED_MARK = "removed by retention"
#: The keys of an audit header retention leaves as they were: the figures are read from what a skeleton keeps (the
#: title, project and branch went with the text, the kinds and left-out counts with what they are read from).
HEADER_KEPT = ("conversation", "kind", "models", "from", "to", "state", "calls", "tokens", "cost", "credits",
               "in_window", "window")


def skeleton_of(f: str) -> str:
    """The path of the skeleton that stands for the landed file ``f`` (``….sd`` -> ``….sk``, docs/push.md)."""
    return f[:-3] + ".sk" if f.endswith(".sd") else f


def lines_said(lines: set[int]) -> str:
    """``line 2, 3, 5 …``: the first few of ``lines`` (numbers from 1)."""
    first = sorted(lines)[:8]
    return "line " + ", ".join(map(str, first)) + (" …" if len(lines) > len(first) else "")


def removed_lines(copy: bytes, again: bytes, pruned: set[str]) -> set[int]:
    """The lines of ``copy`` (numbers from 1) of a conversation in ``pruned`` that differ from ``again`` only where
    retention took the landed text (trial 27b F3: a genuine copy made before ``asz prune`` was said to hold "a text
    changed"): a line whose landed form says :data:`REMOVED_MARK` and whose every key but ``text`` and ``kind`` (a
    person's kind is read from the text: ``removed``) is the copy's, a landed file named by its skeleton; a header
    whose :data:`HEADER_KEPT` keys are the copy's; a ``subagent_prompt`` line the root no longer gives (its ``Task``
    input went) at a record (conversation, stream, file, row) one of the root's lines still stands at (an added line
    at a record the root does not hold is a difference, never "not checkable")."""
    if not pruned:
        return set()
    theirs: dict[tuple, dict] = {}
    places = set()  # where the root's lines stand: a line the root no longer gives stood at a record it still gives
    for b in filter(None, map(_json, again.split(b"\n"))):
        theirs.setdefault(_line_key(b, theirs), b)
        places.add(_place(b))
    out, seen = set(), {}
    for j, line in enumerate(copy.split(b"\n")):
        a = _json(line)
        if a is None or a.get("conversation") not in pruned:
            continue
        b = theirs.get(_line_key(a, seen))
        seen[_line_key(a, seen)] = a
        if b is None:
            out |= {j + 1} if a.get("kind") == "subagent_prompt" and _place(a) in places else set()
        elif a.get("kind") == "conversation":
            out |= {j + 1} if all(a.get(k) == b.get(k) for k in HEADER_KEPT) else set()
        elif a != b:  # a text retention took, or a line the skeleton keeps whole (a fixed wording: 47a F2) named by it
            gone = _read_from_text(a, b)  # once a line, not once a key (it scans the root's text for the marker)
            out |= {j + 1} if all(_stem(a.get(k)) == _stem(b.get(k)) for k in set(a) | set(b) if k not in gone) else set()
    return out


def _place(x: dict) -> tuple:
    """The record a prose line stands at: its conversation, stream, landed file (without ``.sd``/``.sk``) and row."""
    return x.get("conversation"), x.get("stream"), _stem(x.get("file")), x.get("row")


def _line_key(x: dict, before: dict) -> tuple:
    """Where a line of a prose export stands, whatever its text (:func:`removed_lines` pairs the copy's lines with
    the root's by it): its conversation, stream, landed file (without ``.sd``/``.sk``), row, time, whether it is a
    tool call or the header, and how many lines of ``before`` (the keys seen so far) stand there already."""
    at = (x.get("conversation"), x.get("stream"), _stem(x.get("file")), x.get("row"), x.get("ts"),
          x.get("kind") in ("conversation", "tool_call") and x.get("kind"))
    n = 0
    while (*at, n) in before:
        n += 1
    return (*at, n)


def _read_from_text(a: dict, b: dict) -> tuple[str, ...]:
    """The keys of a line whose value is read from a text retention took (the root's line ``b`` says
    :data:`REMOVED_MARK` there), () when it took none: ``text``, ``kind``, an error step's ``error`` where its ``text``
    went; a failed call's ``error`` (render 11), a refused call's ``reason``, where they went; and with either a tool
    call's ``status`` ``refused`` (read from its result's text: the failed flag alone, ``error``, stays)."""
    out = ("text", "kind", "error") if REMOVED_MARK in str(b.get("text")) else ()
    out += tuple(k for k in ("error", "reason") if k not in out and REMOVED_MARK in str(b.get(k)))  # reason: 47a F1
    return out + (("status",) if out and {a.get("status"), b.get("status")} <= {"error", "refused"} else ())


def _json(line: bytes) -> Optional[dict]:
    try:
        got = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return got if isinstance(got, dict) else None


def _stem(v):
    """A landed file's path without ``.sd``/``.sk`` (a skeleton stands for its file), any other value as it is."""
    return v[:-3] if isinstance(v, str) and v.endswith((".sd", ".sk")) else v


#: Where a reader wrote what stands for a text retention took (:data:`REMOVED_MARK`): a part's
#: ``[removed by retention: N bytes]`` (:func:`~asz_core.reading.export_steps.part_marker`), a title's or project's
#: ``(removed by retention)`` (:data:`~asz_core.reading.removed.PROJECT_REMOVED`).
MARKER = re.compile(rb"\[removed by retention(?:: [0-9,]+ bytes)?\]|\(removed by retention\)")
#: At most this many places are tried when the copy's text is laid over the root's markers (then it is not laid).
TRIES = 200_000


def retention_spans(copy: bytes, again: bytes) -> Optional[list[tuple[int, int, int, int]]]:
    """Lay ``copy`` over ``again`` (the copy made again from a pruned root), each :data:`MARKER` of ``again`` standing
    for any text (what retention took; trial 29a F1: md, html, json and text copies made before ``asz prune`` were
    said to hold "a text changed"): ``(a0, a1, c0, c1)`` per marker, the bytes ``again[a0:a1]`` it is and the bytes
    ``copy[c0:c1]`` it stands for, when every byte of ``copy`` outside them is ``again``'s, in order; None when it
    cannot be laid so (a text changed elsewhere) or ``again`` has no marker. The first way found is taken (a piece
    the marker stands for holding the text after it is tried at each place, at most :data:`TRIES`)."""
    marks = [(m.start(), m.end()) for m in MARKER.finditer(again)]
    if not marks:
        return None
    pieces = [again[:marks[0][0]]] + [again[marks[k][1]:marks[k + 1][0] if k + 1 < len(marks) else len(again)]
                                      for k in range(len(marks))]
    if not copy.startswith(pieces[0]) or not copy.endswith(pieces[-1]) \
            or len(copy) < len(pieces[0]) + len(pieces[-1]):
        return None
    failed: set[tuple[int, int]] = set()  # (k, at): marker k's piece cannot end at ``at`` (tried)
    found: list[int] = []  # where piece k + 1 starts in the copy, for each marker k laid so far
    k, start, tries = 0, len(pieces[0]), 0
    while True:
        at = len(pieces[0]) if k == 0 else found[-1] + len(pieces[k])
        if k + 1 == len(marks):  # the last piece ends the copy
            if len(copy) - len(pieces[-1]) >= at:
                found.append(len(copy) - len(pieces[-1]))
                break
            find = -1
        else:
            find = copy.find(pieces[k + 1], start)
            while find >= 0 and (k, find) in failed:
                find = copy.find(pieces[k + 1], find + 1)
            tries += 1
        if find >= 0 and tries < TRIES:
            found.append(find)
            k, start = k + 1, find + len(pieces[k + 1])
            continue
        if k == 0 or tries >= TRIES:
            return None
        k -= 1  # back: marker k's piece ends further on
        failed.add((k, found[-1]))
        start = found.pop() + 1
    starts = [len(pieces[0])] + [f + len(pieces[j + 1]) for j, f in enumerate(found[:-1])]
    return [(a0, a1, c0, c1) for (a0, a1), (c0, c1) in zip(marks, zip(starts, found))]


def span_lines(copy: bytes, again: bytes, spans: list[tuple[int, int, int, int]]) -> set[int]:
    """The lines of ``copy`` (numbers from 1) holding a piece a marker stands for that is not the marker itself."""
    out = set()
    for a0, a1, c0, c1 in spans:
        if copy[c0:c1] != again[a0:a1]:
            first = copy.count(b"\n", 0, c0) + 1
            out |= set(range(first, first + copy.count(b"\n", c0, c1) + 1))
    return out


def in_copy(offset: int, spans: list[tuple[int, int, int, int]]) -> int:
    """Byte ``offset`` of the copy made again, where it stands in the copy laid over it (:func:`retention_spans`)."""
    shift = 0
    for a0, a1, c0, c1 in spans:
        if a1 > offset:
            break
        shift = c1 - a1
    return offset + shift


#: A talk's heading in md and html (asz_core.reading.export.talk_heading): its label is read from the talk's prompt,
#: which retention takes (the heading then names the talk or stream by its id).
TALK_HEADING = re.compile(rb"(.*?\bTalk \d+: (?:<bdi>)?(?:Subagent: )?)(.*)")


def said_gone(line: bytes) -> bool:
    """Whether a line of the copy made again from a pruned root holds nothing the copy's run could be held to: it
    says :data:`REMOVED_MARK` (a marker, the removal note, a project removed), or it is blank or markup alone (a
    fence, ```` ```json ````, html tags) around a text retention took."""
    line = re.sub(rb"<[^>]*>", b"", line)
    return REMOVED_MARK.encode() in line or re.fullmatch(rb"[\s`]*(?:json|text)?[\s`]*", line) is not None


def _kept_beside(root: list[bytes], mine: list[bytes]) -> bool:
    """Whether a run of the root's lines holds a text retention took and, beside what :func:`said_gone` says of
    it, only lines the copy's run holds too: a text the skeleton keeps whole (the runtime's fixed wording, an
    answer to a refused call: trial 47a F1) drawn in both, between the inputs whose text went."""
    held = set(mine)
    return any(REMOVED_MARK.encode() in x for x in root) and all(said_gone(x) or TALK_HEADING.fullmatch(x) or x in held
                                                                 for x in root)


def _anchors(theirs: list[bytes], mine: list[bytes]) -> list[tuple[int, int]]:
    """The lines both lists hold once each (not blank), as ``(i, j)`` in both orders (the longest run rising in
    both): what a patience diff aligns on, so a text retention took (many lines of the copy, one marker line of the
    root) is never paired with a like line (a blank line, a ``###``) far from it."""
    import bisect
    from collections import Counter

    a, b = Counter(theirs), Counter(mine)
    at = {x: i for i, x in enumerate(theirs) if a[x] == 1 and b[x] == 1 and x.strip()}
    pairs = [(at[x], j) for j, x in enumerate(mine) if x in at]
    tails, prev, where = [], [-1] * len(pairs), []  # longest rising run of i (j rises already)
    for k, (i, _) in enumerate(pairs):
        n = bisect.bisect_left(tails, i)
        if n == len(tails):
            tails.append(i)
            where.append(k)
        else:
            tails[n], where[n] = i, k
        prev[k] = where[n - 1] if n else -1
    out, k = [], where[-1] if where else -1
    while k >= 0:
        out.append(pairs[k])
        k = prev[k]
    return out[::-1]


def _within(root: list[bytes], mine: list[bytes]) -> bool:
    """Whether each of the root's lines stands in the copy's, in order (a talk heading with its own label): the copy
    holds more only where the root can no longer render what retention took (an "Asked" prompt)."""
    it = iter(mine)
    for x in root:
        h = TALK_HEADING.fullmatch(x)
        if not any(y == x or (h and (g := TALK_HEADING.fullmatch(y)) and g.group(1) == h.group(1)) for y in it):
            return False
    return True


def html_lines(data: bytes) -> tuple[bytes, list[int]]:
    """An html copy cut between its tags (``><`` -> ``>\\n<``), so that :func:`removed_blocks` lays it element by
    element, and the line (from 1) of ``data`` each line of the cut one stands on."""
    cut = re.sub(rb">(?=<)", b">\n", data)
    lines, n = [], 1
    for orig in data.split(b"\n"):
        lines += [n] * (re.sub(rb">(?=<)", b">\n", orig).count(b"\n") + 1)
        n += 1
    return cut, lines


#: A step's heading in md (``**Runtime notice (LABEL)** · TS · `ID` ``) and html (``<b>Command (LABEL)</b> · …``):
#: the label in brackets is read from the step's text, which retention takes (the pruned root's heading has none);
#: a talk's prompt, "Asked (the prompt this talk was given)", is a "Context" step once its text went.
_LABELLED = re.compile(rb"(\*\*|<b>)([A-Z][A-Za-z ]*?) \(.*\)(\*\*|</b>)( \xc2\xb7 .*)")
#: A step's first line in md (``**Assistant** · TS · `ID` ``; one with no time, render 55 on, ``**Assistant** · `ID` ``)
#: and html (``<div class="step KIND" id="ID">``).
_STEP_MD = re.compile(rb"\*\*[^\n]*\*\* \xc2\xb7 (?:[^\n]* \xc2\xb7 )?`([^`]+)`")
_STEP_HTML = re.compile(rb'<div class="step [a-z_ ]+" id="([^"]+)">')
#: A text retention took that the copy's reader drew nothing for (blank text, ``"\n\n"``) is at most this long:
#: the pruned root draws its step (heading and marker), the copy none (:func:`_blank_steps`).
BLANK_MAX = 4
_SMALL = re.compile(rb"(?:<p>)?\[removed by retention: ([0-9]) bytes?\](?:</p>)?")


#: A notice's label read from its text (render 21: ``Interrupted by the person``) and the one a pruned root draws.
_NOTICE_LABELS = tuple((b + x.encode() + e, b + b"Runtime notice" + e) for x in NOTICE_LABELS.values()
                       for b, e in ((b"**", b"**"), (b"<b>", b"</b>")))


def _label(line: bytes) -> bytes:
    """A step heading without the label read from its text (:data:`_LABELLED`), ``Asked`` said ``Context``, a notice
    labelled by what its text says (:data:`_NOTICE_LABELS`) ``Runtime notice``."""
    for said, base in _NOTICE_LABELS:
        if line.startswith(said + b" \xc2\xb7 ") or said[:1] == b"<" and said in line:
            line = line.replace(said, base, 1)
    m = _LABELLED.fullmatch(line)
    if m is None:
        return line
    name = b"Context" if m.group(2) == b"Asked" else m.group(2)
    return m.group(1) + name + m.group(3) + m.group(4)


def _blank_steps(theirs: list[bytes], copy: bytes) -> list[bytes]:
    """The root's lines without each step whose only text is a marker of at most :data:`BLANK_MAX` bytes and whose
    id the copy never names: a blank text (an assistant's ``"\n\n"``) the copy's reader drew nothing for, the
    pruned root's a heading and a marker (md: the blank line before, the heading, a blank line, the marker; html:
    the step's six lines)."""
    out, n = [], 0
    while n < len(theirs):
        md, html = _STEP_MD.fullmatch(theirs[n]), _STEP_HTML.fullmatch(theirs[n])
        if md and n and not theirs[n - 1] and theirs[n + 1:n + 2] == [b""] and n + 2 < len(theirs) \
                and blank_marker(theirs[n + 2]) and md.group(1) not in copy:
            out.pop()
            n += 3
            continue
        if html and n + 5 < len(theirs) and theirs[n + 3] == b"</div>" and blank_marker(theirs[n + 4]) \
                and theirs[n + 5] == b"</div>" and html.group(1) not in copy:
            n += 6
            continue
        out.append(theirs[n])
        n += 1
    return out


def blank_marker(line: bytes) -> bool:
    """Whether ``line`` is the marker of a blank text retention took (at most :data:`BLANK_MAX` bytes)."""
    m = _SMALL.fullmatch(line)
    return m is not None and int(m.group(1)) <= BLANK_MAX


def removed_blocks(copy: bytes, again: bytes, lay=None) -> tuple[set[int], bytes]:
    """When the whole copy cannot be laid over the root's (:func:`retention_spans`: an md or html header or a talk's
    heading read from a text retention took, or a text changed), the runs of lines between the lines both hold once
    (:func:`_anchors`, a step heading's label read from its text left out: :func:`_label`), each laid alone: the
    copy's lines (from 1) of the runs that differ only where retention took the text: the root's run holds nothing
    else (:func:`said_gone`: the copy's showing what the root can no longer render, an "Asked" prompt, a tool's
    input), or each of its lines stands in the copy's in order (:func:`_within`), or the copy's is laid over it by
    :func:`retention_spans`, or it is as long as the copy's and each of its lines is the copy's, a talk heading whose
    label, read from the prompt, is not the root's, or a line the copy's is laid over by :func:`retention_spans` (a
    LangGraph trace whose talks start in the same second: no time line is held once to anchor on); a step
    heading whose label alone differs; a step of blank text the copy does not draw (:func:`_blank_steps`); and
    ``again`` with those runs the copy's, so that what still differs is named where it stands; ``lay`` (given) alone lays a run."""
    mine, theirs = copy.split(b"\n"), _blank_steps(again.split(b"\n"), copy)
    nm, nt = [_label(x) for x in mine], [_label(x) for x in theirs]
    lines, laid = set(), []
    edges = [(-1, -1)] + _anchors(nt, nm) + [(len(theirs), len(mine))]
    for (i0, j0), (i1, j1) in zip(edges, edges[1:]):
        root, mine_run = nt[i0 + 1:i1], nm[j0 + 1:j1]
        heads = [(TALK_HEADING.fullmatch(x), TALK_HEADING.fullmatch(y)) for x, y in zip(root, mine_run)]
        if root == mine_run:
            laid += mine[j0 + 1:j1]
            lines |= {j + 1 for j in range(j0 + 1, j1) if mine[j] != theirs[i0 + 1 + j - j0 - 1]}
        elif lay(root, mine_run) if lay is not None else (all(said_gone(x) or TALK_HEADING.fullmatch(x) for x in root) or _within(
                root, mine_run) or _kept_beside(root, mine_run) or retention_spans(b"\n".join(mine_run), b"\n".join(root)) is not None
                or (len(root) == len(mine_run) and all(x == y or (h and g and h.group(1) == g.group(1)) or retention_spans(y, x)
                                                       is not None for (x, y), (h, g) in zip(zip(root, mine_run), heads)))):
            lines |= set(range(j0 + 2, j1 + 1))
            laid += mine[j0 + 1:j1]
        else:
            laid += theirs[i0 + 1:i1]
        if i1 < len(theirs):
            laid.append(mine[j1])
            lines |= {j1 + 1} if mine[j1] != theirs[i1] else set()
    return lines, b"\n".join(laid)


#: A block of the text form (asz_core.reading.prose_text.to_text): the header's first line, or a line's ``[TS] KIND…``.
_HEAD = re.compile(rb"=== conversation (\S+) ===")
_TURN = re.compile(rb"\[([^\]\n]*)\] ([a-z_]+(?: or [a-z_]+)?)((?:, [^,\n]+)*)")  # render 36: `prompt or command, …`
#: What follows a person's label on the line of one whose text retention took (render 14:
#: :func:`~asz_core.reading.prose_text._label`).
_REMOVED_WORDS = REMOVED_MARK.encode()
#: A text line's quote in the text form (render 4: :data:`~asz_core.reading.prose_text.QUOTE`), taken off before a
#: block's text is compared, so that a text retention took is laid over its marker as before.
_UNQUOTE = re.compile(rb"^\| ?")
#: The text form's header keys retention changes (read from the text it took, or from what a skeleton lacks).
_HEAD_GONE = (b"title", b"project", b"branch", b"lines", b"left_out", b"removed_files")
#: The counts of the header's ``credentials`` value read from the texts retention took (how many places and distinct
#: credentials the lines hold, and the parts they leave out): ``masked`` and the forms stay the root's.
_CREDENTIAL_COUNTS = re.compile(rb"(written|left_out) \([^)]*\)")


def _blocks(data: bytes) -> list[dict]:
    """The text form's blocks: ``{"first", "last"}`` (lines, from 0), ``conv``, the header's ``pairs`` (key ->
    value) or a line's ``at`` (ts, stream, whether a tool call), ``kind``, ``rest`` (its other words: window, status)
    and ``text`` (a line's without its quotes); a block starts after a blank line (or at the top) with a header's or a line's first line."""
    lines, out, conv = data.split(b"\n"), [], None
    for n, line in enumerate(lines):
        if n and lines[n - 1]:
            continue
        head, turn = _HEAD.fullmatch(line), _TURN.fullmatch(line)
        if not head and not turn:
            continue
        if out:
            out[-1]["last"] = n - 2
        if head:
            conv = head.group(1).decode()
            out.append({"first": n, "conv": conv, "pairs": {}})
            continue
        words = [w for w in turn.group(3).split(b", ") if w]
        stream = next((w for w in words if w.startswith(b"stream ")), b"")
        gone = _REMOVED_WORDS in words  # render 14's `prompt, removed by retention`: the kind render 13 said `removed`
        out.append({"first": n, "conv": conv, "at": (turn.group(1), stream, turn.group(2) == b"tool_call"),
                    "kind": b"removed" if gone else turn.group(2),
                    "rest": [w for w in words if w not in (stream, _REMOVED_WORDS)]})
    for k, b in enumerate(out):
        b.setdefault("last", len(lines) - 1)
        body = lines[b["first"] + 1:b["last"] + 1]
        if "pairs" in b:
            b["pairs"] = dict(x.split(b": ", 1) if b": " in x else (x, b"") for x in body)
        if "pairs" not in b:  # an error's size (render 11) is read from its text: where retention took it, a marker
            body = [_ERROR_GONE if x.startswith(b"error: ") and i + 1 < len(body) and MARKER.search(body[i + 1]) else x
                    for i, x in enumerate(body)]
        b["text"] = b"\n".join(body if "pairs" in b else (_UNQUOTE.sub(b"", x) for x in body))
    return out


#: What stands for an ``error: N bytes, …`` line of the text form (render 11) whose error text retention took: its
#: size was read from that text (:func:`_blocks`).
_ERROR_GONE = b"error: (removed by retention)"
#: A failed call's error section whose text retention took, as :func:`_blocks` reads it: the last of its block.
_REFUSED_GONE = re.compile(rb"\n" + re.escape(_ERROR_GONE) + rb"\n\[removed by retention(?:: [0-9,]+ bytes)?\]\Z")


def text_removed(copy: bytes, again: bytes, pruned: set[str], missing: Optional[set[int]] = None) -> set[int]:
    """The lines of a ``--format text`` copy (numbers from 1) of a conversation in ``pruned`` whose block differs
    from the root's only where retention took the text (the rules :func:`removed_lines` keeps for ``--audit``'s
    lines, block by block): a header whose keys but those read from the text (:data:`_HEAD_GONE`) are the root's; a
    line paired with the root's at its time, stream and place (a tool call or not; the n-th there), whose root text
    holds a :data:`MARKER` and is the copy's but where a marker stands, its kind ``removed`` or its status
    ``refused``/``error`` as retention reads it; a ``subagent_prompt`` line the root no longer gives at a time and
    stream the root still gives a line at. A header another key of which differs from the root's (a changed byte)
    keeps its lines of those keys not checkable, and adds to ``missing`` (when given) the place (the copy's line,
    from 0) before which the root's line of such a key the copy lacks would stand (``removed_files``): only the
    changed key is a problem (review35)."""
    if not pruned:
        return set()
    theirs, places, count = {}, set(), {}
    for b in _blocks(again):
        key = (b["conv"], b.get("at"), count.setdefault((b["conv"], b.get("at")), [0])[0])
        count[(b["conv"], b.get("at"))][0] += 1
        theirs[key] = b
        places.add((b["conv"], b.get("at", (None,) * 3)[:2]))
    out, seen, mine = set(), {}, copy.split(b"\n")
    for a in _blocks(copy):
        n = seen.setdefault((a["conv"], a.get("at")), [0])
        b, n[0] = theirs.get((a["conv"], a.get("at"), n[0])), n[0] + 1
        if a["conv"] not in pruned:
            continue
        if _text_kept(a, b, places):
            out |= set(range(a["first"] + 1, a["last"] + 3))  # with the blank line after it
        elif b is not None and "pairs" in a and "pairs" in b:  # another key differs: it alone is said (review35)
            keys = [x.split(b": ", 1)[0] for x in mine[a["first"] + 1:a["last"] + 1]]
            out |= {a["first"] + 2 + k for k, key in enumerate(keys) if _head_gone(key, a["pairs"], b["pairs"])}
            theirs_keys = list(b["pairs"])
            for k, key in enumerate(theirs_keys):
                if missing is not None and key in _HEAD_GONE and key not in a["pairs"]:
                    nxt = next((x for x in theirs_keys[k + 1:] if x in keys), None)
                    missing.add(a["first"] + 1 + keys.index(nxt) if nxt is not None else a["last"] + 1)
    return out


def _head_gone(key: bytes, a: dict, b: dict) -> bool:
    """Whether a header line's ``key`` is one whose value retention may have changed (:data:`_HEAD_GONE`, or
    ``credentials`` whose value is the root's but for the counts read from the texts retention took), so that the
    line is not checkable even where another key of the header differs from the root's."""
    return key in _HEAD_GONE or (key == b"credentials" and a.get(key) != b.get(key)
                                 and _head_value(key, a.get(key)) == _head_value(key, b.get(key)))


def _text_kept(a: dict, b: Optional[dict], places: set) -> bool:
    """Whether the copy's block ``a`` is the root's ``b`` but for what retention took (:func:`text_removed`)."""
    if b is None:
        return a.get("kind") == b"subagent_prompt" and (a["conv"], a["at"][:2]) in places
    if "pairs" in a:
        keys = set(a["pairs"]) | set(b["pairs"])
        return all(_head_value(k, a["pairs"].get(k)) == _head_value(k, b["pairs"].get(k)) for k in keys if k not in _HEAD_GONE)
    if not MARKER.search(b["text"]) or a["text"] == b["text"]:
        return False
    rest = [set(a["rest"]) - {b"error", b"refused"}, set(b["rest"]) - {b"error", b"refused"}]
    theirs = b["text"]
    if b"refused" in a["rest"] and b"error" in b["rest"]:  # a refusal read from its result's text, which went: the
        theirs = _REFUSED_GONE.sub(b"", theirs)  # root's error section (render 11) stands for that text alone
    theirs = theirs if b"refused" not in b["rest"] or REASON_GONE.search(a["text"]) else REASON_GONE.sub(b"", theirs)
    return (a["kind"] == b["kind"] or b["kind"] == b"removed") and rest[0] == rest[1] \
        and retention_spans(_media_kept(a["text"], theirs), theirs) is not None


def _head_value(key: bytes, value: Optional[bytes]) -> Optional[bytes]:
    """A text form header's ``value`` of ``key`` as retention leaves it checkable: ``credentials`` without the counts
    read from the texts it took (:data:`_CREDENTIAL_COUNTS`: a credential in a prompt that went is in the copy's
    ``written``, not in the pruned root's), any other value as it is."""
    return _CREDENTIAL_COUNTS.sub(rb"\1 (...)", value) if key == b"credentials" and value is not None else value


#: A media part retention took, as the text form says it in the pruned root (its size kept) and in the copy.
_MEDIA_GONE = re.compile(rb"\[media: unknown type, ([0-9,]+) bytes, removed by retention\]")
_MEDIA = rb"\[(?:image|media): [^,\]\n]+, %s bytes\]"


def _media_kept(mine: bytes, root: bytes) -> bytes:
    """``mine`` (a text block of the copy) with each ``[image: TYPE, N bytes]`` line said as the root's
    ``[media: unknown type, N bytes, removed by retention]`` where the root has one of the same size N (its type
    and bytes went with retention)."""
    for m in _MEDIA_GONE.finditer(root):
        mine = re.sub(_MEDIA % re.escape(m.group(1)), lambda _: m.group(0), mine, count=1)
    return mine


_NONE = object()
#: What a state key says of a part retention took (seed 000: a skeleton's part ``removed``; a change's diff read
#: from the removed text, ``unavailable``).
_GONE_STATES = ("removed", "unavailable")


def json_removed(copy: bytes, again: bytes) -> Optional[tuple[int, list[str]]]:
    """A ``--format json`` copy (one asz.view document) against the document made again from a pruned root, key by
    key: ``(not checkable, problems)``, how many values the root can no longer say (it lacks them, is empty there,
    says :data:`REMOVED_MARK`, or a state ``removed``/``unavailable``; a media part's ``kept`` false, its bytes
    gone with its state ``removed``; a landed file named by its skeleton; the
    summary's ``removed``; a key it lacks, whatever the copy holds there: a figure read from data retention took
    goes too, e.g. a step's ``duration_ms``) and each other difference by its path (``talks[2].children[0].tool: copy 'Read', root
    'Edit'``); None when either is not one JSON object."""
    a, b = _json(copy.strip()), _json(again.strip())
    if a is None or b is None:
        return None
    gone, problems = [0], []

    def walk(x, y, path: str, key: str) -> None:
        if x == y:
            return
        if isinstance(x, dict) and isinstance(y, dict):
            went = _refusals_went(x, y)
            if went:  # read from results' texts retention took: the root counts them failed
                gone[0] += went
                x, y = {k: v for k, v in x.items() if k not in _REFUSAL_KEYS}, \
                    {k: v for k, v in y.items() if k not in _REFUSAL_KEYS}
            for k in dict.fromkeys([*x, *y]):
                if k == "text" and y.get("state") == "removed" and (kept := _data_kept(x.get(k), y.get(k))) is not None:
                    if kept:
                        gone[0] += 1
                    else:
                        problems.append(f"{path}.text: the copy's data does not hold what the root's skeleton keeps "
                                        f"of it: the copy {_short(x.get(k))}, the root {_short(y.get(k))}")
                    continue
                walk(x.get(k, _NONE), y.get(k, _NONE), f"{path}.{k}" if path else k, k)
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for n, (u, v) in enumerate(zip(x, y)):
                walk(u, v, f"{path}[{n}]", key)
        elif y is _NONE or y in (None, "", [], {}) or (isinstance(y, str) and (
                REMOVED_MARK in y or (key.endswith(("state", "diff")) and y in _GONE_STATES)
                or (key == "file" and _stem(x) == _stem(y)))) or (x is _NONE and key == "removed") \
                or (key == "kept" and x is True and y is False):  # a media part's bytes, which retention took
            gone[0] += 1
        else:
            problems.append(f"{path}: the copy holds {_short(x)}, the root {_short(y)}")

    walk(a, b, "", "")
    return gone[0], problems


#: A tool's count of calls the person refused and of those that failed (``summary.calls_by_tool``, trial 38a F4).
_REFUSAL_KEYS = ("failed", "refused")


def _refusals_went(mine: dict, root: dict) -> int:
    """How many of ``mine``'s (a copy's ``calls_by_tool`` entry) refused calls a pruned root counts as failed: a refusal
    is read from its result's text, which retention took, so the root says ``failed`` where the copy said ``refused``
    (the two summed equal, the root's refusals fewer); 0 when the two entries do not differ so."""
    try:
        f, r, rf, rr = (int(d[k]) for d in (mine, root) for k in _REFUSAL_KEYS)
    except (KeyError, TypeError, ValueError):
        return 0
    return r - rr if f + r == rf + rr and r > rr else 0


def _data_kept(mine, root) -> Optional[bool]:
    """A step whose part retention took (``state`` ``removed``) but whose root text is the data its skeleton keeps
    (a JSON object: the figures an adapter keeps for its usage, :meth:`asz_core.Adapter.metered_data`, Kiro's
    ``usage_summary`` credits; recheck 29 of trial 29a F1): whether the copy's text, read as JSON, holds each value
    the root's does (:func:`_holds`), so the rest is not checkable and a kept value changed is a problem; None when
    the root's text is no JSON object (a marker: the usual rules)."""
    if not isinstance(root, str) or not isinstance(mine, str) or not root.startswith("{"):
        return None
    try:
        kept = orjson.loads(root)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(kept, dict):
        return None
    try:
        return _holds(orjson.loads(mine), kept)
    except orjson.JSONDecodeError:
        return False


def _holds(full, kept) -> bool:
    """Whether ``full`` (the copy's data) holds ``kept`` (what a skeleton keeps of it): an object each of whose keys
    it has with a value that holds the kept one, a list whose kept items it has in order (a skeleton keeps the items
    that give a figure), any other value equal."""
    if isinstance(kept, dict):
        return isinstance(full, dict) and all(k in full and _holds(full[k], v) for k, v in kept.items())
    if isinstance(kept, list):
        if not isinstance(full, list):
            return False
        it = iter(full)
        return all(any(_holds(f, k) for f in it) for k in kept)
    return full == kept and isinstance(full, bool) == isinstance(kept, bool)


def _short(v) -> str:
    """A value of a JSON document, said short for a problem line (``(none)`` for a key it lacks)."""
    if v is _NONE:
        return "(none)"
    text = orjson.dumps(v).decode()
    return text if len(text) <= 60 else text[:59] + "…"
