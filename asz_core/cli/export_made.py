"""The manifest of a masked export (trial 25b F5; docs/verify.md, "A masked export"): how a copy was made
(:func:`made`), its manifest written beside it (:func:`copy_manifest`), and the copy made again from a root
(:func:`made_again`, what ``asz verify --export --root`` compares byte for byte); :func:`render`, an export's one
conversation, records where its masks stand for that manifest. The manifest's shape and checks are
:mod:`asz_core.reading.export_manifest`'s."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

from .export_said import PROSE_FORMS

if TYPE_CHECKING:
    from .export_cmd import Prose

__all__ = ["render", "made", "made_again", "copy_manifest", "manifest_body", "stream_manifest", "STREAM_RULE"]

#: What follows each conversation of several written as one md stream (stdout, or ``--out FILE.md``).
STREAM_RULE = b"\n---\n\n"


def render(root: Path, cid: str, fmt: str, hide: list[str], thinking: bool, prose: Prose) -> tuple[bytes, list[str]]:
    """One conversation in ``fmt`` as bytes, and what of it does not verify (one line each, naming the file or round
    and the problem; [] when its evidence verifies); for prose, turns and source bytes are also added to ``prose``.
    With ``prose.redact`` each credential is masked (:func:`~asz_core.view.secret_forms.redacted`) in each text before
    it is placed, never over the rendered bytes (trial 25b F1: a key cut before its end ran on over the lines, markup
    and JSON after it); without, those written whole are counted, never silent (trial 24b F7)."""
    from ..reading.export_links import linking
    from .export_cmd import render_bytes

    with linking(prose.linked) as prose.linked_used:  # a folder's ids, linked where its head names them (render 26)
        return _render(root, cid, fmt, hide, thinking, prose, render_bytes)


def _render(root: Path, cid: str, fmt: str, hide: list[str], thinking: bool, prose: Prose, render_bytes) -> tuple[bytes, list[str]]:
    """:func:`render` within its folder's links."""
    if prose.redact:  # where each mask stands, for the manifest (asz_core.reading.export_manifest)
        from ..reading.export_manifest import mask_places
        from ..view.secret_forms import recording

        with recording() as seen:
            data, bad = render_bytes(root, cid, fmt, hide, thinking, prose)
        prose.masks, prose.seen = mask_places(data, seen), seen
    else:
        data, bad = render_bytes(root, cid, fmt, hide, thinking, prose)
    prose.written += len(data) if fmt in PROSE_FORMS else 0
    return data, bad


def made(prose: Prose, fmt: str, hide: list[str], thinking: bool) -> dict:
    """How a copy was made, as its manifest's ``made`` says it: what :func:`made_again` needs to make it again
    (``redact``: masked or not; a manifest without the key, from before every copy had one, was masked;
    ``result_limit``: md's and html's ``--result-limit``, from render 52, a manifest without it made again whole)."""
    from ..reading.export_cut import RESULT_LIMIT
    from ..view.zone import zone_name

    return {"format": fmt, "redact": prose.redact, "brief": prose.brief, "audit": prose.audit, "thinking": thinking,
            "whole": prose.whole,
            "hide": list(hide), "window": list(prose.window) if prose.window is not None else None,
            "in_range_only": prose.in_range_only, "index": prose.index, "tz": zone_name(),
            **({"result_limit": RESULT_LIMIT.get()} if fmt in ("md", "html") and not prose.brief else {}),
            **({"part": prose.part, "max_tokens": prose.max_tokens} if prose.part is not None else {})}


def made_again(root: Path, cid: str, how: dict, config: Optional[Path] = None) -> tuple[bytes, list]:
    """Conversation ``cid`` exported again from ``root``, masked or not, as a manifest's ``made`` (``how``) says (``asz verify
    --export --root``; the holder of the root runs it), with what :class:`~asz_core.view.secret_forms.recording`
    gathered while it was made. Raises ViewError, LookupError as render."""
    from ..view.secret_forms import recording
    from ..view.zone import use_zone, zone_of

    window = tuple(how["window"]) if how.get("window") is not None else None
    try:  # the times in the zone they were written in (--tz's, or the exporting machine's by its name)
        use_zone(zone_of(how["tz"]) if how.get("tz") else None)
    except ValueError:  # an offset name (UTC+01:00) no zone spells: this machine's, and a difference is named
        use_zone(None)
    from .export_cmd import Prose, render_bytes

    prose = Prose([], config, bool(how.get("audit")), window, how.get("redact", True) is not False, bool(how.get("in_range_only")),
                  bool(how.get("brief")), bool(how.get("whole")))
    prose.index, prose.linked = how.get("index") or "", frozenset(how.get("linked") or ())
    prose.clips = []  # json's clipped texts: the export said them; the check does not again
    prose.thinking_left = []  # the thinking md and html left out: the export said it; the check does not again
    if how.get("part") is not None:  # one part of a file --split wrote (asz_core.reading.export_parts)
        prose.split_parts, prose.max_tokens = True, int(how.get("max_tokens") or 0) or prose.max_tokens
    from ..reading.export_links import linking

    from ..reading.export_cut import results_cut

    with recording() as seen, linking(prose.linked), results_cut(int(how.get("result_limit") or 0)):  # none: whole
        data = render_bytes(root, cid, how["format"], list(how.get("hide") or []), bool(how.get("thinking")), prose)[0]
    if how.get("part") is not None:  # the part made again; none (the file fits now, or fewer parts): nothing
        k = how["part"]
        data = prose.parts[k - 1] if isinstance(k, int) and 0 < k <= len(prose.parts) else b""
    if how.get("stream") and how["format"] == "md":  # each conversation of an md stream ends with a rule
        data += STREAM_RULE
    return data, (seen if prose.redact else [])  # unmasked: no mask to place (trial 29a F6)


def copy_manifest(r: Path, cid: str, out: Path, data: bytes, fmt: str, hide: list[str], thinking: bool, prose: Prose) -> None:
    """Write ``out``'s manifest (``OUT.manifest.json``: docs/verify.md, "A masked export"), masked or not (trial 29a
    F6: an unmasked copy, which disclosure may require, had none), and say it and its own SHA-256 on stderr, the
    digest the receiver is given on another channel."""
    from ..reading.export_manifest import write_manifest

    path, digest = write_manifest(out, manifest_body(r, cid, out, data, fmt, hide, thinking, prose))
    prose.manifests.append((path, digest))


def manifest_body(r: Path, cid: str, out: Path, data: bytes, fmt: str, hide: list[str], thinking: bool, prose: Prose) -> dict:
    """The manifest :func:`copy_manifest` writes beside ``out`` (``data``: the copy's bytes), not written."""
    from ..reading.export_manifest import manifest

    from ..reading.export_links import linked

    return manifest(out.name, data, {**made(prose, fmt, hide, thinking), **linked(prose.linked_used)}, [_evidence(r, cid, hide, prose)],
                    prose.masks if prose.redact else [], r)


def _evidence(r: Path, cid: str, hide: list[str], prose: Prose) -> dict:
    """Conversation ``cid``'s entry of a manifest's ``conversations``: that of the document its copy was rendered from
    (``prose.evidence``: the md, html and json forms', and the prose forms' that build one, the audit and text forms'
    and those of a dialect landing in arrival order: :func:`~asz_core.reading.prose.prose_turns`), else of the
    document built now."""
    if cid in prose.evidence:
        return prose.evidence[cid]
    from ..reading.export_title import built_evidence

    return built_evidence(r, cid, hide)[1]


def stream_manifest(r: Path, out: Path, fmt: str, hide: list[str], thinking: bool, prose: Prose) -> None:
    """Write the manifest (masked or not: trial 29a F6) of several conversations written as one stream into ``out`` (``--out
    FILE.md`` or ``FILE.jsonl``; trial 26b F5: it had none, and asz verify --export FILE exited 2): one manifest for
    the whole file, its ``conversations`` each conversation written in the stream's order (``prose.streamed``:
    ``(id, what recording gathered while it was made)``), its ``masks`` placed over the whole file, and ``made``'s
    ``stream`` true, so that ``asz verify --export FILE --root ROOT`` makes each again in that order, an md one
    followed by :data:`STREAM_RULE` as the stream writes it (:func:`made_again`). Said on stderr as
    :func:`copy_manifest` says it."""
    if not prose.streamed:
        return
    from ..reading.export_manifest import manifest, mask_places, write_manifest
    from .export_said import GITHUB_MD_BYTES

    data = out.read_bytes()
    if fmt == "md" and len(data) > GITHUB_MD_BYTES:  # one file of several: said as a folder's files are (trial 37a F5)
        prose.__dict__.setdefault("big", []).append((out, len(data)))
    seen = [got for _, each in prose.streamed for got in each]
    body = manifest(out.name, data, {**made(prose, fmt, hide, thinking), "stream": True},
                    [_evidence(r, cid, hide, prose) for cid, _ in prose.streamed], mask_places(data, seen), r)
    prose.manifests.append(write_manifest(out, body))
