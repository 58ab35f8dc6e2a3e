"""One conversation's audit file in parts that each fit a model's context (trial 27b F5: a 16k-line session's day
was one file of about 290,000 tokens, bytes ÷ 4, and nothing said so; docs/reading.md, "Sizing an audit for a model").

``asz export --split`` (with ``--out DIR/``, the audit forms: ``--audit`` or ``--format text``) writes a conversation
whose file is over ``--max-tokens`` as ``ID.part1.EXT``, ``ID.part2.EXT``, …: each part begins with the
conversation's header line (the whole file's, with ``part`` after ``kind``: ``"2 of 3: lines 1,205-2,410 of the
2,631 after the header"``) and holds whole lines only, in order, as many as fit (bytes ÷ 4 ≤ the budget, its header
counted); a line alone over the budget is a part of its own (said). The parts are a function of the lines, so a
closed day's parts stay byte for byte as its whole file does, and ``asz verify --export`` makes a part again from the
root (its manifest's ``made`` names the part and the budget).
"""

from __future__ import annotations

from typing import Callable, Sequence

__all__ = ["part_said", "split_lines"]


def part_said(k: int, n: int, first: int, last: int, total: int) -> str:
    """The header's ``part``: ``2 of 3: lines 1,205-2,410 of the 2,631 after the header``."""
    return f"{k} of {n}: lines {first:,}-{last:,} of the {total:,} after the header"


def split_lines(lines: Sequence[dict], write: Callable[[list[dict]], bytes], max_tokens: int) -> list[bytes]:
    """``lines`` (a conversation's audit lines, its header of kind ``conversation`` first) in parts of at most
    ``max_tokens`` tokens (bytes ÷ 4) each as ``write`` (the form's: JSON Lines or text) writes them: each part its
    header with ``part`` (:func:`part_said`) then the next lines that fit, never a line cut; a line alone over the
    budget is one part. [] when there is no header or no line."""
    if not lines or lines[0].get("kind") != "conversation" or len(lines) < 2:
        return []
    head, body = lines[0], list(lines[1:])
    budget = max_tokens * 4
    widest = _with_part(head, part_said(len(body), len(body), len(body), len(body), len(body)))
    room = budget - len(write([widest]))
    groups: list[list[dict]] = []
    size = 0
    for line in body:
        n = len(write([line]))
        if groups and size + n <= room:
            groups[-1].append(line)
            size += n
        else:
            groups.append([line])
            size = n
    out, at = [], 1
    for k, group in enumerate(groups, 1):
        said = part_said(k, len(groups), at, at + len(group) - 1, len(body))
        out.append(write([_with_part(head, said), *group]))
        at += len(group)
    return out


def _with_part(head: dict, said: str) -> dict:
    """``head`` with ``part`` after ``kind``."""
    out: dict = {}
    for k, v in head.items():
        out[k] = v
        if k == "kind":
            out["part"] = said
    return out
