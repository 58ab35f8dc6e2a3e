"""What ``asz export`` says on stderr once every conversation is written (asz_core.cli.export_cmd): prose's token
estimate and the written file's own size, the window's counts, and the credentials masked or written whole; and before, the conversations a --project kept though
it cannot judge them and those a window cannot place (:func:`filter_warnings`), and an ``--out`` whose folder is
missing (:func:`refuse_missing_parent`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

#: A typical model context, in tokens (the Claude models' 200K): a prose export beyond it is said, with the way to
#: split it (``--out DIR/``: one file per conversation; trial 22a, F15).
MODEL_CONTEXT_TOKENS = 200_000
#: The formats made from prose turns: prose (JSON Lines) and text, the audit form as plain text (docs/reading.md).
PROSE_FORMS = ("prose", "text")


def closing_lines(fmt: str, prose) -> None:
    """What stderr gets once every conversation is written (``prose``: export_cmd's ``Prose``): prose's token estimate,
    the size of what was written (:func:`written_line`), what it kept without its source, the window's counts and
    the conversations ``--in-range-only`` left out, then what was masked (:func:`credentials_line`)."""
    if fmt in PROSE_FORMS:
        from ..reading.prose import estimate

        typer.echo(estimate(prose.turns, sum(prose.raw)).line(), err=True)
        typer.echo(written_line(prose.written, prose.split, prose.max_tokens, fmt), err=True)
        if prose.stats.line(prose.audit):
            typer.echo(prose.stats.line(prose.audit), err=True)
        if prose.window is not None:
            typer.echo(window_line(prose), err=True)
        if prose.outside:
            typer.echo(f"asz export: --in-range-only left out {len(prose.outside):,} conversation(s) with no line inside "
                       "the window (active in it by their recorded range only: a conversation resumed later)", err=True)
    for line in over_lines(prose):
        typer.echo(line, err=True)
    if big_md_line(prose):
        typer.echo(big_md_line(prose), err=True)
    if clips_line(prose.clips, prose.whole):
        typer.echo(clips_line(prose.clips, prose.whole), err=True)
    if thinking_line(prose.thinking_left):
        typer.echo(thinking_line(prose.thinking_left), err=True)
    said = credentials_line(prose)
    if said:
        typer.echo(said, err=True)
    for line in manifest_lines(prose.manifests):
        typer.echo(line, err=True)


def clips_line(clips, whole: bool) -> str:
    """One note for the json texts the conversations of a folder export had clipped at 2,000 bytes (``clips``: ``(put
    back whole, still clipped)`` per conversation; trial 31b F6: one note per conversation, 222 lines for 275, buried
    every other line): ``asz export: note: 40 of 275 conversation(s) hold texts the asz.view document clipped at 2,000
    bytes: 1,234 put back whole (--whole), 56 still clipped (…)``; '' when none."""
    held = [(a, b) for a, b in clips or () if a or b]
    if not held:
        return ""
    put, cut = sum(a for a, _ in held), sum(b for _, b in held)
    said = f"asz export: note: {len(held):,} of {len(clips):,} conversation(s) hold texts the asz.view document clipped at 2,000 bytes: "
    bits = [f"{put:,} put back whole (--whole)"] if put else []
    if cut:
        bits.append(f"{cut:,} still clipped (each node's bytes gives the whole size; "
                    + ("a talk's label, reply and prompt stay clipped with --whole)" if whole else
                       "--whole puts them back whole; --format md, html or prose give texts whole)"))
    return said + ", ".join(bits)


def thinking_line(left) -> str:
    """One note for the thinking blocks the md or html copies of a folder export left out (``left``: ``(with a text,
    removed by retention)`` per conversation; trial 43c F8: one note per conversation, 124 of a folder export's 134
    stderr lines): ``asz export: note: 124 of 284 conversation(s): 3,456 thinking block(s) left out (--thinking shows
    them)``, retention's said apart as each copy's head says them
    (:func:`~asz_core.reading.export_calls.thinking_left_line`); '' when none."""
    from ..reading.export_calls import thinking_left_line

    held = [(n, gone) for n, gone in left or () if n or gone]
    if not held:
        return ""
    said = thinking_left_line(sum(n for n, _ in held), sum(gone for _, gone in held))
    return f"asz export: note: {len(held):,} of {len(left):,} conversation(s): {said}"


def stdout_note(prose, ext: str) -> None:
    """A masked copy written to stdout has no manifest to check it by (recheck25 N2): said on stderr, never silent, for
    one conversation as for several (trial 31b F10): ``asz export: note: no manifest for stdout: …``. An unmasked one
    is the landed text and says nothing (docs/reading.md), nor does md or html masked by default that masked nothing."""
    if prose.redact and (prose.redacted or not getattr(prose, "shared", False) or prose.redact_said is not None):
        typer.echo(f"asz export: note: no manifest for stdout: a masked copy written to stdout has none; --out FILE.{ext} "
                   f"writes FILE.{ext}.manifest.json beside it, --out DIR/ one per conversation (docs/verify.md)", err=True)


def manifest_lines(manifests: list) -> list[str]:
    """stderr's word on the manifests a masked export wrote (``(path, its own SHA-256)`` each; docs/verify.md, "A
    masked export"): one line each, ``asz export: manifest PATH SHA-256 HEX``, then what to do with the digest."""
    if not manifests:
        return []
    if len(manifests) == 1 and Path(manifests[0][0]).name == "export.manifest.json":  # a folder (export_folder)
        path, digest = manifests[0]
        return [f"asz export: folder manifest {path} SHA-256 {digest} (the index page and every file with its own "
                "manifest beside it)",
                "asz export: give the receiver the folder, and that SHA-256 on another channel; asz verify --export DIR "
                "--sha256 HEX checks the folder alone, asz verify --export DIR --root ROOT (the root's holder) checks "
                "every copy against the landed files (docs/verify.md)"]
    return [f"asz export: manifest {path} SHA-256 {digest}" for path, digest in manifests] + [
        "asz export: give the receiver each copy with its manifest, and the manifest's SHA-256 on another channel; "
        "asz verify --export FILE --sha256 HEX checks a copy alone, asz verify --export FILE --root ROOT (the root's "
        "holder) checks it against the landed files (docs/verify.md)"]


def written_line(size: int, split: bool, max_tokens: int = MODEL_CONTEXT_TOKENS, fmt: str = "prose") -> str:
    """The written prose's own size (``size``, bytes), every key of every line counted (the estimate above counts
    ``text`` only): ``asz export: written 2,599,014 bytes ≈ 649,753 tokens (bytes ÷ 4, every key of every line)``,
    ``(bytes ÷ 4, the whole text)`` for ``fmt`` text, which has no keys; beyond ``max_tokens`` (``--max-tokens``,
    default :data:`MODEL_CONTEXT_TOKENS`), unless it was already written one file per conversation (``split``),
    ``; more than a 200,000-token model context: --out DIR/ writes one file per conversation``."""
    counted = "the whole text" if fmt == "text" else "every key of every line"
    said = f"asz export: written {size:,} bytes ≈ {size // 4:,} tokens (bytes ÷ 4, {counted})"
    if size // 4 > max_tokens and not split:
        said += (f"; more than a {max_tokens:,}-token model context: --out DIR/ writes one file per "
                 "conversation (docs/reading.md, \"Sizing an audit for a model\")")
    return said


def over_budget(prose, path, size: int, fmt: str, part: bool = False, one: bool = False) -> None:
    """Keep, for the closing lines, the warning on one written file (prose, text or md) over ``prose.max_tokens``
    (bytes ÷ 4; trial 27b F5: a 16k-line session's day was 290,668 tokens and nothing said so): ``asz export:
    warning: FILE is 1,162,672 bytes ≈ 290,668 tokens (bytes ÷ 4), over --max-tokens 200,000 (a model's context):
    --split writes it in parts that each fit``, of ``one`` conversation's ``--out FILE`` (where ``--split`` is
    refused) ``--split with --out DIR/ (one conversation: with --since/--until) writes …``; a part
    still over it (``part``) holds one line alone over the budget."""
    if fmt == "md" and size > GITHUB_MD_BYTES:  # one line for them all, at the end (trial 37a F5)
        prose.__dict__.setdefault("big", []).append((path, size))
    if fmt not in (*PROSE_FORMS, "md") or size // 4 <= prose.max_tokens:
        return
    tail = ""
    if part:
        tail = ": the part holds one line alone over the budget (a line is never cut)"
    elif fmt != "md" and prose.audit:
        tail = (": --split writes it in parts that each fit" if not one else ": --split with --out DIR/ (one "
                "conversation: with --since/--until) writes it in parts that each fit") + \
            " (docs/reading.md, \"Sizing an audit for a model\")"
    prose.over.append((str(path), size, tail))


def over_lines(prose) -> list[str]:
    """The warnings :func:`over_budget` kept: one file's, ``asz export: warning: FILE is N bytes ≈ N tokens (bytes ÷ 4),
    over --max-tokens 200,000 (a model's context)[: advice]``; of more, one line, the count and the five largest
    named, ``asz export: warning: 25 file(s) written are over --max-tokens 200,000 (a model's context; bytes ÷ 4):
    FILE (N bytes ≈ N tokens), … and 20 more (each file's bytes: the folder manifest's files)`` (trial 48d F8: a
    folder export printed 25 such lines)."""
    if len(prose.over) == 1:
        ((path, size, tail),) = prose.over
        return [f"asz export: warning: {path} is {size:,} bytes ≈ {size // 4:,} tokens (bytes ÷ 4), over --max-tokens "
                f"{prose.max_tokens:,} (a model's context){tail}"]
    if not prose.over:
        return []
    big = sorted(prose.over, key=lambda x: -x[1])
    tails = {t for _, _, t in big}
    named = ", ".join(f"{p} ({n:,} bytes ≈ {n // 4:,} tokens)" for p, n, _ in big[:5]) + (
        f" and {len(big) - 5:,} more (each file's bytes: the folder manifest's files)" if len(big) > 5 else "")
    return [f"asz export: warning: {len(big):,} file(s) written are over --max-tokens {prose.max_tokens:,} (a model's "
            f"context; bytes ÷ 4): {named}{tails.pop() if len(tails) == 1 else ''}"]


#: The size in bytes up to which GitHub renders a Markdown file in a repository (512 KB; past it the file shows as raw
#: text: trial 37a F5, a 613,070-byte conversation was not rendered). docs/reading.md, "Sharing in GitHub, GitLab and
#: VS Code".
GITHUB_MD_BYTES = 512 * 1024


def big_md_line(prose) -> str:
    """The warning on the md files written over :data:`GITHUB_MD_BYTES` (``prose.big``: ``(path, bytes)`` each), the
    largest first, the first five named: ``asz export: warning: 2 md file(s) written are over 512 KB (524,288 bytes),
    past which GitHub shows a Markdown file as raw text, not rendered: ex/046df9ad-….md (613,070 bytes), …; --brief
    writes the brief form (…), --format html a page for a browser``; '' when none."""
    big = sorted(getattr(prose, "big", ()), key=lambda x: -x[1])
    if not big:
        return ""
    named = ", ".join(f"{p} ({n:,} bytes)" for p, n in big[:5]) + (f" and {len(big) - 5:,} more" if len(big) > 5 else "")
    instead = ("they are the brief form already: a --since/--until window of each makes a smaller file" if prose.brief
               else "asz export … --brief writes the brief form (the person's words and the replies whole, each tool "
                    "call on one line, tool results left out)")
    return (f"asz export: warning: {len(big):,} md file(s) written are over 512 KB ({GITHUB_MD_BYTES:,} bytes), past "
            f"which GitHub shows a Markdown file as raw text, not rendered: {named}; {instead}, --format html a page "
            "for a browser (docs/reading.md, \"Sharing in GitHub, GitLab and VS Code\")")


def window_file_over(prose, out, fmt: str) -> None:
    """:func:`over_budget` of ``out``, the one file ``asz export ID --since D --until D --out FILE`` wrote (one
    conversation's window as one stream), in the words of one conversation's ``--out FILE`` (trial 27b: only the
    files of ``--out DIR/`` were warned about); the size line then gives no ``--out DIR/`` advice (``prose.split``):
    the file is one conversation's already."""
    if out.is_file():
        prose.split = True
        over_budget(prose, out, out.stat().st_size, fmt, one=True)


def credentials_line(prose) -> str:
    """stderr's word on credentials, '' when there is none to say: ``--redact`` (given, or ``--audit``'s default)
    counts what it masked, ``--no-redact`` what it wrote whole (trial 22a, F3), and an export of any format given
    neither, when it wrote some whole, says how many and names ``--redact`` (trial 24b F7: an html export wrote 7
    credentials whole and said nothing); md and html given neither mask by default and say so only when they masked
    some (trial 34c F8)."""
    places, values = credentials_counted(prose)
    if prose.redact and prose.redact_said is None and getattr(prose, "shared", False):  # md, html: trial 34c F8
        return (f"asz export: md and html mask credentials by default: masked {places:,} place(s) of {values:,} "
                "credential(s) (--no-redact keeps them whole)") if places else ""
    if prose.redact and prose.redact_said is None:
        return (f"asz export: --audit masked {places:,} place(s) of {values:,} credential(s) (the audit form masks "
                "them by default; --no-redact keeps them whole)" + unwritten_said(prose))
    if prose.redact:
        return credentials_said("export", places, values, True) + unwritten_said(prose)
    if prose.redact_said is False:
        return (f"asz export: --no-redact: {places:,} place(s) of {values:,} credential(s) of a known form written "
                "whole (asz secrets lists them)" + unwritten_said(prose))
    return credentials_said("export", places, values, False)


def credentials_said(cmd: str, places: int, values: int, masked: bool) -> str:
    """The one note a reader printing a conversation's texts gives of its credentials (``places`` and ``values`` as
    :func:`~asz_core.view.secret_forms.counted` counts them): masked, ``asz CMD: --redact masked 8 place(s) of 4
    credential(s)``; written whole, ``asz CMD: note: 8 place(s) of 4 credential(s) of a known form written whole (asz
    secrets lists them); --redact masks them``, '' when there is none (``asz export``, ``asz conversation --json``,
    ``asz show``: trial 44c F4, they printed credentials whole and said nothing)."""
    if masked:
        return f"asz {cmd}: --redact masked {places:,} place(s) of {values:,} credential(s)"
    if places:
        return (f"asz {cmd}: note: {places:,} place(s) of {values:,} credential(s) of a known form written whole "
                "(asz secrets lists them); --redact masks them")
    return ""


def credentials_counted(prose) -> tuple[int, int]:
    """``(places, distinct credentials)`` an export masked or wrote whole: this run's fingerprints and, of a resumed
    folder export, those of the copies it kept (keyed, :class:`~asz_core.cli.export_resume.Resume`), counted as one
    where the key makes them one."""
    from ..view.secret_forms import counted

    kept = getattr(prose, "redacted_kept", None) or []
    if not kept:
        return counted(prose.redacted)
    from ..storage.mask_key import keyed_mark

    return counted([keyed_mark(prose.kept_key, m) for m in prose.redacted] + kept)


def unwritten_said(prose) -> str:
    """What the audit form's credential line adds (trial 25b F7): ``; 3 more credential(s) stood only in parts the
    audit leaves out (tool results, tool inputs past their line, thinking, withheld records): found, not written
    (each header's credentials)``, those of every conversation written that stand in none of its lines; '' for none
    and for another form."""
    left = len(prose.unwritten - set(prose.redacted)) if prose.audit else 0
    return (f"; {left:,} more credential(s) stood only in parts the audit leaves out (tool results, tool inputs past "
            "their line, thinking, withheld records): found, not written (each header's credentials)") if left else ""


def window_line(prose) -> str:
    """stderr's word on the window (docs/reading.md, "A day's window"): ``asz export: 931 of 1,007 prose line(s) lie
    outside the window FROM .. TO (each has in_range false: a conversation active in the window is written whole);
    --in-range-only leaves them out``, or with ``--in-range-only`` ``asz export: --in-range-only left out …``; and how
    many have no time of their own and cannot be placed by their conversation's range (in_range null, kept)."""
    from ..reading.prose_audit import instant

    placed = prose.placed
    total, out = sum(placed.values()), placed[False]
    span = f"the window {instant(prose.window[0]) or '…'} .. {instant(prose.window[1]) or '…'}"
    if prose.in_range_only:
        said = f"asz export: --in-range-only left out {out:,} of {total:,} prose line(s) outside {span}"
    else:
        said = (f"asz export: {out:,} of {total:,} prose line(s) lie outside {span} (each has in_range false: a "
                "conversation active in the window is written whole); --in-range-only leaves them out")
    return said + (f"; {placed[None]:,} line(s) have no time of their own and a conversation range that crosses the "
                   "window's end (in_range null, kept)" if placed[None] else "")


def filter_warnings(r, rows: list[dict], filters, project: str) -> None:
    """Warnings on stderr, before anything is written, naming what the filters could not decide: the conversations
    with no times a --since/--until window cannot place (``filters.unplaced``: said rather than dropped, trial 7; not
    exported, listed in the index; one that verifies with no record holding a time yet is a note: trial 27b F6), then the exported ``rows`` that ``--project`` could not judge (they do not verify,
    so their project is held back: :attr:`~asz_core.reading.listing.Filters.unjudged`), exported as every
    conversation that does not verify is, with its own warning and exit 1, never left out silently (trial 25b F3).
    Each conversation named by its shortest prefix unique in root ``r``."""
    from ..reading.ids import conversation_names
    from ..reading.listing import unjudged_line, unplaced_lines

    shown = conversation_names(r)
    note, warning = unplaced_lines(filters.unplaced, shown=shown)  # no time yet (nothing wrong), or not read
    for said, line in (("note", note), ("warning", warning)):
        if line:
            typer.echo(f"asz export: {said}: {line}", err=True)
    kept = {row["id"] for row in rows}
    line = unjudged_line([x for x in filters.unjudged if x["id"] in kept], project, shown=shown, kept="exported")
    if line:
        typer.echo(f"asz export: warning: {line}", err=True)


def form_asked(fmt: Optional[str], audit: bool, brief: bool, in_range_only: bool, window: bool, whole: bool = False,
               limit: Optional[int] = None) -> str:
    """The format ``--format``, ``--audit`` and ``--brief`` ask for (md, or prose with ``--audit`` alone); raises
    typer.Exit(2) for a format that is none, a form of another format, ``--in-range-only`` without a prose window
    (``window``: --since or --until given), ``--whole`` but with json or ``--result-limit`` (``limit``) but with md
    (not ``--brief``, which draws no result) or html."""
    from .export_cmd import FORMATS
    from .jobs import usage_error

    if brief and audit:
        raise usage_error("export", "--brief is a form of md and --audit one of prose: give one")
    if fmt is None:
        fmt = "prose" if audit else "md"  # --audit alone asks for prose (trial 17 gap: it was refused as md)
    if brief and fmt != "md":
        raise usage_error("export", f"--brief is a form of --format md, not of {fmt}")
    if fmt not in FORMATS:
        raise usage_error("export", f"--format is one of {', '.join(FORMATS)}, not {fmt!r}")
    if audit and fmt not in PROSE_FORMS:
        raise usage_error("export", f"--audit is a form of --format prose, not of {fmt} (--audit alone gives prose; "
                                    "--format text is the audit form as plain text)")
    if in_range_only and (fmt not in PROSE_FORMS or not window):
        raise usage_error("export", "--in-range-only reads a --since/--until window in --format prose or text (or "
                                    "--audit)")
    if whole and fmt != "json":
        raise usage_error("export", f"--whole is a form of --format json, not of {fmt} (md, html and prose give texts "
                                    "whole)")
    if limit is not None and (fmt not in ("md", "html") or brief):
        raise usage_error("export", "--result-limit cuts the tool results md and html draw, not "
                                    f"{'--brief' if brief else fmt}'s")
    return fmt


def refuse_missing_parent(out: Optional[Path]) -> None:
    """Exit 1, before anything is read, when ``--out``'s parent folder does not exist: ``asz export: cannot write
    OUT: no such folder PARENT (make it first: asz export creates no folder but --out DIR itself)``. A mistyped path
    is said, never made (a new user's report: ``--out /nonexistent/dir/x.md`` created ``/nonexistent/dir``)."""
    if out is None:
        return
    parent = out.absolute().parent
    if not parent.is_dir():
        typer.echo(f"asz export: cannot write {out}: no such folder {parent} (make it first: asz export creates no "
                   "folder but --out DIR itself)", err=True)
        raise typer.Exit(1)


def out_folder(given: Optional[str], fmt: str = "", one: bool = False, chosen: bool = True) -> tuple[Optional[Path], bool]:
    """``(--out as a path, whether it names a folder for one conversation)``: it ends in a slash (``exp/newdir/``,
    made when missing as for several, never its parents; trial 38c F6 wrote a file ``exp/newdir`` and
    ``exp/newdir.manifest.json``) or is a folder already there. One conversation then goes into it as several do: its
    file, the index page and the folder's manifest. Exit 1 first when its parent folder is missing
    (:func:`refuse_missing_parent`); exit 2 when it is no folder and neither absent nor a regular file (a FIFO, a
    device, a link to one: :func:`~asz_core.cli.out_named.out_file`), or when ``one`` conversation's FILE ends in
    another format's suffix than ``fmt``'s, or, ``fmt`` not ``chosen`` by ``--format``, a suffix that is not its own
    (:func:`refuse_suffix`); ``-`` is stdout (None)."""
    from .out_named import STDOUT, out_file

    if given is None or given == STDOUT:  # --out -: stdout, as without --out (trial 47b F1)
        return None, False
    refuse_missing_parent(Path(given))
    folder = given.endswith(("/", os.sep)) or Path(given).is_dir()
    if one and not folder:
        refuse_suffix(Path(given), fmt, chosen)
    return Path(given) if folder else out_file("export", "--out", given), folder


#: Suffixes that name a format's own file besides its :data:`~asz_core.cli.export_folder.EXT` suffix.
_ALSO = {"md": (".markdown", ".mdown", ".mkd"), "html": (".htm", ".xhtml"), "json": (), "prose": (".ndjson",),
         "text": (".text", ".log")}


def refuse_suffix(out: Path, fmt: str, chosen: bool = True) -> None:
    """Exit 2 when one conversation's ``--out`` FILE ends in another format's suffix (``--format html --out x.md``:
    trial 47b F3 wrote HTML into a .md file without a word, while several conversations' mismatch was already exit 2,
    in the same words), or, the format not ``chosen`` (md by default: no ``--format``, ``--brief`` or ``--audit``), in
    a suffix that is not the format's (trial 49b F4: ``--out chat.pdf`` wrote 1.8 MB of Markdown into chat.pdf without
    a word); with the format chosen, such a suffix is written as asked and stderr warns of it. No
    suffix, or one of the format's own (``.htm``, ``.markdown``: :data:`_ALSO`), is written as asked."""
    from .export_folder import EXT
    from .jobs import usage_error

    ext, suffix = EXT[fmt], out.suffix.lower()
    other = next((f for f, e in EXT.items() if f".{e}" == suffix), None)
    if other is not None and suffix != f".{ext}":
        raise usage_error("export", f"--out {out}: one conversation as {fmt} goes into a .{ext} file, not one "
                                    f"{out.suffix} file (--format {other}'s); give --out FILE.{ext}, or --format {other}")
    if not suffix or suffix == f".{ext}" or suffix in _ALSO[fmt]:
        return
    pdf = " (asz writes no PDF: --format html makes a page a browser prints to one)" if suffix == ".pdf" else ""
    if not chosen:
        raise usage_error("export", f"--out {out}: no --format given, so this is {fmt}, whose file is .{ext}, not "
                                    f"{out.suffix}{pdf}; give --out FILE.{ext}, or --format {fmt} to write {fmt} into "
                                    f"this {out.suffix} file as asked")
    typer.echo(f"asz export: warning: --out {out}: {fmt} written into a {out.suffix} file, not a .{ext} one{pdf}",
               err=True)


def say_unread(cid: str, n: int, redacted: int = 0) -> None:
    """Say on stderr that ``n`` (> 0) thinking blocks of ``cid`` hold no text (``redacted`` of them redacted), which ``--thinking`` cannot show (trial 21:
    it changed nothing on a Claude Code 2.1 session, silently); the export says it too, once, in the first one's place."""
    if n:
        from ..reading.export_steps import thinking_note

        typer.echo(f"asz export: note: {cid}: {thinking_note(n, redacted)[1:-1]}", err=True)


def say_thinking(cid: str, doc: dict, thinking: bool, head_says: bool, gathered: Optional[list] = None) -> None:
    """With ``thinking``, :func:`say_unread` of the asz.view document ``doc``; without, when the copy's head says it
    (``head_says``: md and html, not ``--brief``, whose head says it in its own words), ``asz export: note: ID: 3
    thinking block(s) left out (--thinking shows them)`` once, those retention pruned said apart (trial 41c F6;
    :func:`~asz_core.reading.export_calls.thinking_said`), or, for a folder export (``gathered``, a list), its counts
    appended there for :func:`thinking_line` to say once."""
    if thinking:
        from ..reading.export_steps import redacted_thinking, unread_thinking

        say_unread(cid, unread_thinking(doc), redacted_thinking(doc))
    elif head_says:
        from ..reading.export_calls import thinking_left, thinking_removed, thinking_left_line

        left = (thinking_left(doc), thinking_removed(doc))
        if gathered is not None:
            gathered.append(left)
        elif said := thinking_left_line(*left):
            typer.echo(f"asz export: note: {cid}: {said}", err=True)
