"""Credentials the page shows masked, by default (trial 34c F8; fix35a).

The page is a reader's view: a screen shared in a review, a tab left open. So ``asz view`` and ``asz server`` mask
every credential of a known form (:mod:`~asz_core.view.secret_forms`: ``AKIA…MPLE``, ``ghp_…R8``, a PEM key's first
line then ``[private key left out]``) in what the page is served: the asz.view document (``/api/c/{id}/view``), the
headings answer (``/api/c/{id}/headings``), a landed record (``/api/c/{id}/record/…``) and a provider body
(``/api/c/{id}/body/…``), as ``asz export --format md|html`` masks by default. ``--no-redact`` serves them whole. The
landed records are never changed; ``asz show``, ``asz conversation --json``, ``asz export --no-redact`` and ``--format json``
give the texts whole, and say so on stderr (``--redact`` masks them).

Which it is, every such answer says: the header ``asz-credentials: masked`` or ``whole`` on all four routes, the
document's answer also ``asz-credentials-masked: N`` (N: the places masked, a credential met twice counted twice),
and the headings answer's ``secrets``, ``{"shown": "masked", "places": N}`` or ``{"shown": "whole"}``, which the
page reads. The document itself keeps its shape: ``/api/c/{id}/view`` is the asz.view document, its texts masked.

A text the document clipped (at 2,000 bytes, its node's ``bytes`` or ``result_bytes`` larger than the text) is read
whole from the lines the build read, masked whole and then clipped, its credentials counted over the whole text, as
the exports and ``asz secrets`` count them (close44). One whose whole text cannot be read may end in the head of a
credential the clip cut, which no form matches whole: such a head, a credential form's first characters (``ghp_``,
``AKIA``, ``sk-``, ``eyJ``, …) running to the clip's end in the characters a token is made of, is shown as its first
four characters and ``…`` (its place counted), never more (trial 25b F2's rule for the exports).
"""

from __future__ import annotations

import copy
import re

from ..sessiondata.jsonbytes import dumps_wide

__all__ = ["MASKED", "WHOLE", "HEADER", "served", "mask_document", "masked_json", "masked_line", "talk_copies"]

#: The two ways the page is served credentials (``asz view --no-redact``: :data:`WHOLE`).
MASKED, WHOLE = "masked", "whole"
#: The response header every answer holding the conversation's texts carries: :data:`MASKED` or :data:`WHOLE`.
HEADER = "asz-credentials"

#: The first characters of each credential form that has fixed ones (secret_forms.KINDS), for a head a clip cut.
_HEADS = re.compile(r"(?<![A-Za-z0-9_])(?:A(?:KIA|SIA)|gh[pousr]_|github_pat_|glpat-|sk-|xox[bpars]-|AIza|GOCSPX-|"
                    r"[sr]k_live_|hf_|npm_|eyJ|SG\.)[A-Za-z0-9_./+=-]*\Z")
#: How far from a clipped text's end a cut head is looked for (the longest form, a JWT or a GitHub token, fits).
_TAIL = 1024
#: The characters a token is made of (``_HEADS``' run after a head; each head is made of them too): a head cut at
#: the end stands in the text's last run of them, where :func:`_cut_head` starts looking.
_TOKEN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+=-"


def _cut_head(text: str) -> tuple[str, int]:
    """``text`` (clipped) with a credential's head running to its end shown as its first four characters and
    ``…``; and 1 when one was, else 0."""
    m = _HEADS.search(text, max(0, len(text) - _TAIL, len(text.rstrip(_TOKEN))))
    if m is None or m.end() - m.start() <= 4:
        return text, 0
    return text[:m.start() + 4] + "…", 1


def served(doc: dict, credentials: str | None, whole=None) -> tuple[dict, dict | None, bytes]:
    """The asz.view document ``doc`` as the page is served it: with ``credentials`` :data:`MASKED` (``asz view``'s
    default) its strings masked in place (:func:`mask_document`); :data:`WHOLE` (``--no-redact``) or None (a library
    caller's :class:`~asz_core.view.state.ViewState`) as built. Returns the summary the list, the checker and
    ``_index/found/`` keep (as built, never masked), what the answers say of it (``{"shown": "masked", "places":
    N}``, ``{"shown": "whole"}``, or None) and the JSON bytes served (``dumps_wide`` of the document as served,
    made once: a document holding no credential is served the very bytes it was searched in). ``whole(node, key)``,
    when given, reads the whole text a clipped ``text`` or ``result`` stands for (:func:`_masked`)."""
    if credentials == MASKED:
        summary = copy.deepcopy(doc["summary"])
        secrets, body = _masked(doc, whole=whole)
        return summary, secrets, body
    return doc["summary"], {"shown": WHOLE} if credentials == WHOLE else None, dumps_wide(doc)


def mask_document(doc: dict, gone: list[str] | None = None) -> dict:
    """Mask, in place, every string of the asz.view document ``doc`` (an image's ``media`` left as it is: base64 is
    no text), each text the document clipped also at a credential's head the clip cut (:func:`_cut_head`). Returns
    the document's ``secrets`` entry, ``{"shown": "masked", "places": N}``. A document in whose JSON text
    :func:`~asz_core.view.secret_forms.find` finds no credential (its forms read JSON's escapes: a PEM key's ``\\n``,
    a quote's ``\\"``) is not walked string by string. ``gone``, when given, gets the fingerprint of each place
    masked (``asz conversation --redact`` counts them as the exports do)."""
    return _masked(doc, gone)[0]


def _masked(doc: dict, gone: list[str] | None = None, whole=None) -> tuple[dict, bytes]:
    """:func:`mask_document`'s entry and the masked document's JSON bytes (those it was searched in when it held
    no credential: the document is not serialized twice). A clipped text whose whole text ``whole(node, key)`` gives
    (the document's clip its start, its UTF-8 length the node's ``bytes``: the rule ``asz export`` reads them by) is
    masked whole, then clipped, and its credentials are counted over the whole text, as the exports and ``asz
    secrets`` count them (close44: the page counted the clip's, 146 places where they counted 250); without one it is
    masked and counted as clipped (:func:`_cut_head`)."""
    from .kinds import clip_text
    from .secret_forms import Masker, find, masked_cut  # when a document is served: not at the server's start (session 36)

    mask = Masker(True, gone)
    cut, held, was, read = 0, [], {}, []
    copies = talk_copies(doc)
    for node in _clipped(doc):
        for key, size in (("text", "bytes"), ("result", "result_bytes")):
            value = node.get(key)
            if isinstance(value, str) and isinstance(node.get(size), int) and node[size] > len(value.encode("utf-8")):
                got = whole(node, key) if whole is not None else None
                if isinstance(got, str) and got.startswith(value) and len(got.encode("utf-8", "surrogatepass")) == node[size]:
                    read.append((node, key, got))
                    continue
                node[key], n = _cut_head(mask.text(value))
                cut += n
                held.append((node, key, node[key]))
                was[value] = node[key]
    some = bool(read) and bool(find("\n".join(got for _, _, got in read)))  # one look first: most hold none
    for node, key, got in read:
        value = node[key]
        if some:
            node[key], written, away = masked_cut(got, clip_text)
            mask.gone += written + away
        held.append((node, key, node[key]))
        was[value] = node[key]
    for node, key in copies:  # a talk's copy of a step's text: masked as that text is, counted there (trial 44c)
        held.append((node, key, was.get(node[key]) or Masker(True).text(node[key])))
    body = dumps_wide(doc)
    if find(body.decode("utf-8", "surrogatepass")):
        for node, key, _ in held:  # masked already: kept out of the walk (masking a masked text changes nothing)
            node[key] = None
        mask.tree(doc, frozenset({"media"}))
        for node, key, shown in held:
            node[key] = shown
        body = dumps_wide(doc)
    return {"shown": MASKED, "places": len(mask.gone) + cut}, body


def talk_copies(doc: dict) -> list[tuple[dict, str]]:
    """``(talk, key)`` of each talk's ``label``, ``reply`` or ``prompt`` in the asz.view document ``doc`` that is a
    step's ``text`` or ``result`` again, whole or clipped at 2,000 bytes (:func:`~asz_core.view.kinds.clip_text`): one place of the
    conversation, counted at its step by every reader (the page's ``asz-credentials-masked``, the json export,
    ``asz conversation``; trial 44c: the page counted a label's copy again, 133 places where the exports counted 95)."""
    from .kinds import clip_text

    nodes = list(_clipped({"talks": doc.get("talks")}))
    texts = {n[k] for n in nodes for k in ("text", "result") if isinstance(n.get(k), str) and n[k]}
    texts |= {clip_text(t) for t in texts}
    return [(n, key) for n in nodes for key in ("label", "reply", "prompt") if isinstance(n.get(key), str) and n[key] in texts]


def _clipped(doc: dict):
    """Every node of the document's talks and loose nodes, their children too."""
    stack = [*(doc.get("talks") or ()), *(doc.get("loose") or ())]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            yield n
            stack.extend(n.get("children") or ())


def masked_json(data: bytes) -> bytes:
    """JSON bytes (the headings answer, a provider body) with every credential in its strings masked; the bytes as
    they are when they hold none. Raises orjson.JSONDecodeError for bytes that are no JSON."""
    import orjson

    from .secret_forms import Masker, find

    if not find(data.decode("utf-8", "surrogatepass")):
        return data
    return dumps_wide(Masker(True).tree(orjson.loads(data)))


def masked_line(line: bytes, gone: list[str] | None = None, mask: bool = True) -> bytes:
    """A landed record's JSON line with every credential in its strings masked (read exactly: a number no 64 bits
    hold stays its text); the line as it is when it holds none, or when ``mask`` is False (its credentials only
    counted). ``gone``, when given, gets the fingerprint of each place (``asz show``'s note)."""
    import orjson

    from ..sessiondata.codec import parse_line
    from .secret_forms import Masker, find

    if not find(line.decode("utf-8", "surrogatepass")):
        return line
    shown = Masker(mask, gone).tree(parse_line(line, exact=True))
    return orjson.dumps(shown) if mask else line
