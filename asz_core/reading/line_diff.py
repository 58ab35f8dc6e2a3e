"""Where two lists of lines differ: the opcodes :class:`difflib.SequenceMatcher` (``autojunk=False``, no junk) gives,
the same ones, found without its cost on lines that repeat (fix50c).

``asz verify --export`` lays a copy over the copy made again from the root line by line
(:func:`~asz_core.reading.export_manifest._line_changes`). ``SequenceMatcher`` finds the longest block of equal lines
(the first in the first list, then the second, of the longest), then does the same before it and after it. Its
search visits every pair of equal lines of the part searched, each time: a copy of 305 blank lines, each a "changed"
place after ``asz prune`` took the text beside it, cost 0.7 s of CPU for 961 against 1,878 lines (session 49: 37 of
a test's 80 s under cProfile).

Here the same search is made over runs: every diagonal run of two or more equal lines is found once (from the pairs
of consecutive lines, which repeat far less than single lines: a blank line before a timestamped heading is unique),
and a part searched takes the runs that cross it, cut to it. The longest cut run, the first of equals by its start
in the first list then in the second, is the block ``SequenceMatcher`` finds there; a part no run of two crosses
holds at most blocks of one line, and the first line of the first list found in the second's part is the one it
finds. With no junk its search's growing of a block past junk does nothing, so the blocks, and the opcodes made from
them, are the same (tests/reading/test_line_diff.py holds both to each other).
"""

from __future__ import annotations

import bisect
from typing import Sequence

Run = tuple[int, int, int]  # (i, j, k): a[i:i + k] == b[j:j + k]


def _runs(a: Sequence, b: Sequence) -> list[Run]:
    """Every diagonal run of two or more equal items of ``a`` and ``b``, whole (it grows neither way)."""
    pairs: dict = {}
    for j in range(len(b) - 1):
        pairs.setdefault((b[j], b[j + 1]), []).append(j)
    runs, prev = [], {}
    for i in range(len(a) - 1):
        cur = {}
        for j in pairs.get((a[i], a[i + 1]), ()):
            cur[j] = prev.get(j - 1, 0) + 1
        for j, k in prev.items():  # a run of pairs that stops at i - 1: k pairs, k + 1 items
            if j + 1 not in cur:
                runs.append((i - k, j - k + 1, k + 1))
        prev = cur
    runs += [(len(a) - 1 - k, j - k + 1, k + 1) for j, k in prev.items()]
    return runs


def _cut(runs: list[Run], alo: int, ahi: int, blo: int, bhi: int) -> list[Run]:
    """The ``runs`` that cross ``a[alo:ahi]`` by ``b[blo:bhi]`` with two or more items, each cut to it."""
    out = []
    for i, j, k in runs:
        if i >= ahi or j >= bhi or i + k <= alo + 1 or j + k <= blo + 1:
            continue
        lo = alo - i if alo - i > blo - j else blo - j  # not max()/min(): a call each costs as much again
        hi = ahi - i if ahi - i < bhi - j else bhi - j
        lo, hi = (lo if lo > 0 else 0), (hi if hi < k else k)
        if hi - lo > 1:
            out.append((i + lo, j + lo, hi - lo))
    return out


def _longest(a: Sequence, where: dict, runs: list[Run], alo: int, ahi: int, blo: int, bhi: int) -> Run:
    """:meth:`difflib.SequenceMatcher.find_longest_match` of the part (``runs``: those cut to it): the longest block,
    the first by its start in ``a`` then in ``b``; ``(alo, blo, 0)`` when none."""
    if runs:
        return min(runs, key=lambda r: (-r[2], r[0], r[1]))
    for i in range(alo, ahi):
        js = where.get(a[i])
        if js:
            n = bisect.bisect_left(js, blo)
            if n < len(js) and js[n] < bhi:
                return i, js[n], 1
    return alo, blo, 0


def matching_blocks(a: Sequence, b: Sequence) -> list[Run]:
    """:meth:`difflib.SequenceMatcher.get_matching_blocks` of ``a`` and ``b`` (no junk), without its closing
    ``(len(a), len(b), 0)`` and with blocks that touch left apart (they make no opcode)."""
    where: dict = {}
    for j, x in enumerate(b):
        where.setdefault(x, []).append(j)
    queue = [(0, len(a), 0, len(b), _runs(a, b))]
    blocks = []
    while queue:
        alo, ahi, blo, bhi, runs = queue.pop()
        i, j, k = _longest(a, where, runs, alo, ahi, blo, bhi)
        if k:
            blocks.append((i, j, k))
            if alo < i and blo < j:
                queue.append((alo, i, blo, j, _cut(runs, alo, i, blo, j)))
            if i + k < ahi and j + k < bhi:
                queue.append((i + k, ahi, j + k, bhi, _cut(runs, i + k, ahi, j + k, bhi)))
    return sorted(blocks)


def differing(a: Sequence, b: Sequence) -> list[tuple[str, int, int, int, int]]:
    """The opcodes of :meth:`difflib.SequenceMatcher.get_opcodes` but ``equal``: ``(tag, i1, i2, j1, j2)``, ``tag``
    ``replace``, ``delete`` or ``insert``; [] when the lists are equal."""
    if a == b:
        return []
    i = j = 0
    out = []
    for ai, bj, size in matching_blocks(a, b) + [(len(a), len(b), 0)]:
        if i < ai or j < bj:
            out.append(("replace" if i < ai and j < bj else "delete" if i < ai else "insert", i, ai, j, bj))
        i, j = ai + size, bj + size
    return out
