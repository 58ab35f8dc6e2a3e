"""Which places of a shown text in a masked copy are masks the masker put there, and which a text holds as typed
(render 12; review37: a password's ``***`` and every Markdown ``***`` rule or ``***bold italic***`` were listed
alike, 12 places where 3 were masks, each of the first form seen). Used by
:func:`~asz_core.reading.export_manifest.mask_places`; docs/verify.md, ``masks``.

Each place a shown text stands in a text the masker saw (:class:`~asz_core.view.secret_forms.recording`) is an
origin: a mask (its form, fingerprint and texts) or a typed one; a place in the copy is the origin whose text around
it (:func:`plain`, :data:`AROUND` characters each side) is most like the copy's there."""

from __future__ import annotations

import os
from typing import Optional

from ..view.secret_forms import TYPED_TOO

__all__ = ["AROUND", "classed", "origins", "origin", "plain", "masked_whole"]


#: Characters of the text each side of a place (:func:`plain`) that :func:`origin` compares (render 12).
AROUND = 60
def classed(e: dict) -> bool:
    """Whether the places of one shown text are told apart by what is around them (render 12, :func:`origin`): it
    also stands in a text as typed, or for credentials of more than one form."""
    return bool(e.get("origins")) and (len(e["kinds"]) > 1 or any(o[0] is None for o in e["origins"]))


def origins(seen: list, by_shown: dict) -> None:
    """Each place a shown text of ``by_shown`` stands in a text the masker masked (``seen``), the masked text as
    written before the copy drew it: a mask ``(kind, fingerprint, texts_sha256, before, after)`` or one typed
    ``(None, None, None, before, after)``, ``before`` and ``after`` :data:`AROUND` characters of :func:`plain` text;
    added to each shown text's ``origins``."""
    wholes = "\0".join(plain(masked_whole(text, cuts)[0]) for text, cuts in seen if cuts) if TYPED_TOO in by_shown else ""
    for text, cuts in seen:
        if not any(shown in by_shown for shown in (TYPED_TOO, *(c[2] for c in cuts))):
            continue
        if not cuts and plain(text).rstrip("…") in wholes:
            continue  # a masked text masked again (a title or heading cut from it, its masks as they were): no typed ***
        whole, masks = masked_whole(text, cuts)
        spans = [(x, y) for x, y, *_ in masks]
        for x, y, shown, mark, kind in masks:
            e = by_shown[shown]
            texts = e["marks"][mark]["texts_sha256"] if len(e["marks"]) > 1 else e["texts_sha256"]
            e["origins"].append((kind, mark, texts, plain(whole[max(x - 400, 0):x])[-AROUND:], plain(whole[y:y + 400])[:AROUND]))
        for shown, e in by_shown.items():
            x = whole.find(shown)
            while x >= 0:
                y = x + len(shown)
                if not any(p < y and x < q for p, q in spans):  # typed, not a mask
                    e["origins"].append((None, None, None, plain(whole[max(x - 400, 0):x])[-AROUND:], plain(whole[y:y + 400])[:AROUND]))
                x = whole.find(shown, x + 1)


def masked_whole(text: str, cuts: list) -> tuple[str, list[tuple[int, int, str, str, str]]]:
    """``text`` masked by its ``cuts`` (:class:`~asz_core.view.secret_forms.recording`'s), and each mask's
    ``(start, end, shown, fingerprint, kind)`` in it."""
    parts, masks, at = [], [], 0
    for a, b, shown, mark, kind in cuts:
        parts.append(text[at:a])
        x = sum(map(len, parts))
        masks.append((x, x + len(shown), shown, mark, kind))
        parts.append(shown)
        at = b
    return "".join(parts) + text[at:], masks


def origin(origins: list, forms: set, before: str, after: str) -> Optional[tuple[str, str, list]]:
    """Of the places a shown text stands in the masked texts (:func:`origins`), the one whose text around it is most
    like the copy's (``before`` and ``after`` it, :func:`plain`): ``(kind, fingerprint, texts_sha256)`` when that is
    a mask, None when a typed one is more alike (a mask wins a tie: never a mask left unsaid). A mask of a form the
    place was not found as (a URL's password is looked for as ``:***@``: ``forms``) is not among them."""
    def alike(x: str, y: str) -> int:
        return len(os.path.commonprefix((x, y)))

    b = before[::-1]
    best, score = None, -1
    for kind, mark, texts, x, y in origins:
        if kind is not None and kind not in forms:
            continue
        got = alike(x[::-1], b) + alike(y, after)
        if got > score or (got == score and best is not None and best[0] is None and kind is not None):
            best, score = (kind, mark, texts), got
    return None if best is None or best[0] is None else best


def plain(text: str) -> str:
    """``text`` as a reader sees it in any form of the copy, so one text written in md, JSON or HTML compares alike:
    JSON's ``\\uXXXX`` read, HTML's entities read, tags, backslashes and white space taken out (render 12)."""
    import html
    import re

    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    text = re.sub(r"\\[nrt]", " ", text)
    return re.sub(r"[\s\\]+|<[^<>\n]*>", "", html.unescape(text))
