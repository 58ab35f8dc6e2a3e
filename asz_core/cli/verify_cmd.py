"""``asz verify [SESSION | PATH]``: digests and contiguity of landed data (origin-digest §8.1; seed 000, Record).

This module declares the command for Typer (its options and their help, which ``asz verify --help`` prints); the work
is :func:`asz_core.cli.verify_run.run`, which the ``asz`` console script also runs without Typer for the forms of
:data:`asz_core.cli.verify_run.LIGHT_OPTIONS` (issue 22: the command's start).

With ``--export FILE``: a masked copy ``asz export --redact`` wrote, against its manifest and with ``--root`` the root
(:mod:`asz_core.reading.export_manifest`).

Exit codes: 0 whole and contiguous, 1 problems found, 2 usage (a missing
path, root or session; an empty folder given as the root; a file that is not ``.sd``/``.sk``; a bad configuration file).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .verify_run import run


def verify(
    target: Optional[str] = typer.Argument(None, metavar="[SESSION | PATH]", help="A session id in the root (or a unique prefix of one), or the path of one .sd/.sk file to check on its own."),
    root: Optional[Path] = typer.Option(None, "--root", help="Storage root (default: storage.root from the configuration, else ./data)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Configuration file (default ./asz.yaml when present)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as one JSON object."),
    deep: bool = typer.Option(False, "--deep", help="Also decode and type-check every record line in full (slower; the closing digests already bind every byte)."),
    figures: bool = typer.Option(False, "--figures", help="Also count the figures asz ls and asz usage read from their cache (_index/summaries.sqlite) again from the evidence; an entry that differs is a problem and is removed (about a cold asz usage more)."),
    receipts: Optional[List[Path]] = typer.Option(None, "--receipts", metavar="HOSTROOT|FILE", help="On a receiving root: a pushing host's root (its push.state) or a copy of its push.state; every file it says the receiver accepted must be in the root with that SHA-256, else a problem names the file, the host and the session; receipts of another receiver than this root's are said as such, with the receipts to give when the host's root keeps them (repeatable: one per host)."),
    export: Optional[Path] = typer.Option(None, "--export", metavar="FILE", help="A copy asz export wrote to a file, masked or not (one conversation's md, html, json, prose or text file, or several conversations' one md, prose or text stream file), or a folder --out DIR/ wrote (its export.manifest.json: every file listed with its SHA-256, none added or removed, a json index's rows the copies' figures, an md or html index's rows each linking one conversation's copies and, with --root, showing its talks, tokens, cost and state, then each copy as one file; a folder an export was stopped in, with its partial manifest export.partial.jsonl and no folder manifest, exits 2: run the export again): checked against the manifest beside it (FILE.manifest.json): the copy's SHA-256 and each mask's place, naming each changed line; with --root (given, not the configured one) also against the landed files: the copy made again from the root (masked as it was) must be the copy byte for byte (each place that is not is named, inside or outside a mask), and the head round and landed files the manifest's. docs/verify.md, \"A masked export\"."),
    manifest: Optional[Path] = typer.Option(None, "--manifest", metavar="FILE", help="With --export: the manifest, when it is not FILE.manifest.json beside the copy."),
    sha256: str = typer.Option("", "--sha256", metavar="HEX", help="With --export: the manifest's SHA-256 as the sender gave it on another channel; a manifest whose digest differs is a problem."),
    jobs: int = typer.Option(0, "--jobs", help="Processes checking the landed files at once, or a folder export's copies against --root (default 0: one per CPU; 1: this process only)."),
) -> None:
    """Check landed Session Data: headers, closing digests, ord/byte contiguity and cursors' end.

    With PATH to one .sd or .sk file, checks that file alone. Otherwise
    verifies every session of the root, or only SESSION, and its round
    chains, and the root (or SESSION) against its _sessions.list (a listed session gone or emptied: ``missing session``).
    Each record line's ord, off, sha and bytes are read from the front of the line; ``--deep`` decodes every line too.
    Prints ``checked N session(s), N source file(s), N records`` (a source file: one stream's records of one kind, transcript or meta, as landed under one cursor),
    ``checked N conversation chain(s), N round(s)`` and then one line per
    problem (file:line: problem [field]: detail) or
    ``all landed data is contiguous and matches its digests``. Notes (sessions
    not parsed yet, a parse interrupted) and ``warning:`` lines (a torn tail, a
    source in conflict: rewritten after it landed; an MCP call's execution record whose arguments differ from the
    transcript's input, naming session, record and tool call) do not fail the run, nor does the note on stderr
    naming files and folders of the root open to more users than asz writes now (a root an older asz made) with
    the command that closes them (chmod -R go-rwx ROOT). On a terminal a
    progress bar over sessions then chains runs on stderr; Ctrl-C stops within
    a second and says how many were checked (exit 130, no verdict). Exit 0
    clean, 1 problems, 2 usage (also ``no landed data in DIR``: an empty folder, never collected into, is no root).

    ``--figures`` also counts every cached list row and summary in use
    (tokens, cost, state, title: what asz ls, asz usage and the page print)
    again from the round chains and landed files, with the price table of
    the configuration, and reports an entry that differs as ``figures
    differ`` (and removes it, so the next list counts it from the files).
    Without it, a line says how many cached entries were not counted again
    (--json: figures_not_recounted) and how many do not match their seal
    (figures_unsealed: edited outside asz; the readers count those again).
    ``--receipts HOST``: see docs/verify.md (missing or changed since received, receipts of another receiver).

    ``--export FILE``: a copy asz export wrote to a file (masked or not), checked
    against its manifest (FILE.manifest.json; --sha256 HEX: the manifest's
    digest the sender gave on another channel), and with --root against the
    landed files; each place that differs is named, inside or outside a
    mask (docs/verify.md, "A masked export").
    """
    run(target, root, config, as_json, deep, figures, receipts, export, manifest, sha256, jobs)


def register(app: typer.Typer) -> None:
    """Add ``verify`` to ``app``."""
    app.command("verify")(verify)
