"""``asz verify --export DIR [--sha256 HEX] [--root ROOT]``: a folder export checked as one dataset against its
``export.manifest.json`` (:mod:`asz_core.cli.export_folder`; trial 31b F2: ``--export DIR`` said "no such file").

What it checks: the folder manifest is the one vouched for (``--sha256``); every file it lists is in the folder with
its size and SHA-256, and so is each file's own manifest; no other file is (one added, removed or changed is named);
the index page is the one listed, and a json index's rows are the copies' (each row's file, id, state, talks, steps,
rounds, model calls, tokens and cost equal the copy's summary; the rows not exported are the manifest's); an md or html
index's rows link the copies the manifest lists, one row a conversation, and with ``--root`` show each conversation's
talks, tokens, cost and state as of its copy's round (:mod:`asz_core.cli.verify_index`); then each
copy as one file is checked (:func:`~asz_core.cli.verify_run.export_results`): against its manifest, and with
``--root`` against the landed files, as of its manifest's head round. docs/verify.md, "A folder export"."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

import orjson

from .export_folder import FOLDER_MANIFEST, FOLDER_SCHEMA
from .export_resume import JOURNAL

__all__ = ["check_folder"]

#: The summary keys a json index row must share with its copy's document (``usage`` only where the row records it).
ROW_KEYS = ("state", "talks", "steps", "rounds", "llm_calls", "calls_with_usage", "usage", "cost")


def _listing(folder: Path, body: dict) -> tuple[list[str], list[str]]:
    """The folder against its manifest's listing: ``(said, problems)``, a file added, removed or changed named; the
    files its ``beside`` names (in the folder before the export, not part of it: trial 39d F2) said, not problems."""
    from ..reading.export_manifest import sha256

    said, problems = [], []
    want: dict[str, Optional[str]] = {(body.get("index") or {}).get("file"): (body.get("index") or {}).get("sha256")}
    for f in body.get("files") or ():
        want[f.get("file")] = f.get("sha256")
        m = f.get("manifest") or {}
        want[m.get("file")] = m.get("sha256")
    want.pop(None, None)
    here = {p.name for p in folder.iterdir() if p.is_file() and p.name != FOLDER_MANIFEST}
    before = sorted(here & {str(n) for n in body.get("beside") or ()} - set(want))
    here -= set(before)
    for name in sorted(here - set(want)):
        problems.append(f"{name}: in the folder, not in its manifest (a file added since the export)")
    for name in sorted(set(want) - here):
        problems.append(f"{name}: in the folder manifest, not in the folder (a file removed since the export)")
    for name in sorted(set(want) & here):
        got = sha256((folder / name).read_bytes())
        if got != want[name]:
            problems.append(f"{name}: its SHA-256 is {got}, not the folder manifest's {want[name]}: changed since the export")
    if not problems:
        said.append(f"the folder holds the {len(want):,} file(s) its manifest lists (the index, {len(body.get('files') or ()):,} "
                    "copies and their manifests), each with the manifest's SHA-256, and no other"
                    + (" added since" if before else ""))
    if before:
        said.append(f"{len(before):,} other file(s) were in the folder before the export and are not part of it (the "
                    f"manifest's beside): {', '.join(before[:5])}" + (f" and {len(before) - 5:,} more" if len(before) > 5 else ""))
    return said, problems


def _index_rows(folder: Path, body: dict) -> tuple[list[str], list[str]]:
    """A json index's rows against the copies they name and the manifest: ``(said, problems)``; [] for another format."""
    index = folder / str((body.get("index") or {}).get("file") or "")
    if not index.name.endswith(".json") or not index.is_file():
        return [], []
    try:
        rows = orjson.loads(index.read_bytes())
    except orjson.JSONDecodeError as exc:
        return [], [f"{index.name}: not JSON ({exc})"]
    listed = {f.get("file"): f.get("conversation") for f in body.get("files") or ()}
    gone = body.get("not_exported") or {}
    problems = []
    for k, row in enumerate(rows if isinstance(rows, list) else ()):
        cid, name = row.get("id"), row.get("file")
        if name is None:
            if cid not in gone:
                problems.append(f"{index.name}: row {k + 1} ({cid}): not exported, which the folder manifest does not say")
            continue
        if listed.get(name) != cid:
            problems.append(f"{index.name}: row {k + 1} ({cid}): its file {name} is not that conversation's copy in the manifest")
            continue
        try:
            summary = orjson.loads((folder / name).read_bytes()).get("summary") or {}
        except (OSError, orjson.JSONDecodeError, AttributeError):
            continue  # the copy's own check names it
        for key in ROW_KEYS:
            if key == "usage" and row.get("usage_recorded") is False:
                continue  # not recorded: the row holds nulls where the document holds 0s
            if key in row and key in summary and row[key] != summary[key]:
                problems.append(f"{index.name}: row {k + 1} ({cid}): {key} {json.dumps(row[key])}, its copy {name} "
                                f"{json.dumps(summary[key])}")
    if len(rows) != len(listed) + len(gone):
        problems.append(f"{index.name}: {len(rows):,} row(s), the folder manifest {len(listed):,} copies and "
                        f"{len(gone):,} not exported")
    said = [] if problems else [f"the index's {len(rows):,} row(s) are the copies' figures (state, talks, steps, rounds, "
                                "model calls, tokens, cost) and the manifest's conversations not exported"]
    return said, problems


def _page_rows(folder: Path, body: dict) -> tuple[list[str], list[str], Optional[dict]]:
    """An md or html index's rows against the manifest (:func:`~asz_core.cli.verify_index.links_checked`): ``(said,
    problems, rows by conversation)``, the rows None for another form or an index that is not there."""
    from .verify_index import links_checked, page_rows

    index = folder / str((body.get("index") or {}).get("file") or "")
    rows = page_rows(index) if index.name.endswith((".md", ".html")) and index.is_file() else None
    if rows is None:
        return [], [], None
    problems = links_checked(index.name, rows, body)
    said = [] if problems else [f"the index's {len(rows):,} row(s) link the copies the folder manifest lists, one row a "
                                "conversation, and name those not exported as it does"]
    return said, problems, {r["id"]: r for r in rows if r.get("id") and not r.get("not_exported")}


def _row_figures(root: Path, index: str, row: dict, manifest: Path, docs, table) -> list[str]:
    """The index ``row``'s talks, tokens, cost and state against its conversation's document as of the round its copy's
    ``manifest`` names (:func:`~asz_core.cli.verify_index.figures_checked`); [] when the manifest names no round."""
    from ..reading.export_manifest import read_manifest
    from ..reading.export_title import pinned, title_pins
    from ..view.chain import as_of
    from .verify_index import figures_checked

    body = read_manifest(manifest)
    conv = (body.get("conversations") or [{}])[0]
    upto, hide = (conv.get("head") or {}).get("round"), list((body.get("made") or {}).get("hide") or [])
    if not isinstance(upto, int):
        return []
    pins = title_pins(root, body)[0]  # titled as the copy's check titled it: the document it built, built once
    doc = pinned(pins, row["id"], lambda: docs(root, row["id"], hide))
    if (doc.get("head") or {}).get("round") != upto:
        with as_of(row["id"], upto):
            doc = pinned(pins, row["id"], lambda: docs(root, row["id"], hide))
    from ..reading.export_later import counted_as_drawn

    return figures_checked(index, row, counted_as_drawn(root, doc.get("summary") or {}, _render(body)), table)


#: This process's document builder and price table, shared by the copies it checks (:func:`_one_copy`).
_HELD: dict = {}


def _one_copy(item: tuple) -> tuple[list[str], list[str], Optional[list[str]]]:
    """One copy of a folder checked: ``(said, problems)`` of :func:`~asz_core.cli.verify_run.export_results` and, for
    the copy an index row stands for (with ``--root``, the copy checked), that row's figures' problems (None when none
    was checked). ``item``: ``(copy, manifest, its SHA-256 as the folder manifest lists it, root, config, the index
    page's name, the row)``. Each document is built once in this process (:class:`~asz_core.reading.export_docs.SharedDocs`:
    a --split copy's parts and its row share it)."""
    from ..reading.export_docs import SharedDocs
    from .verify_run import export_results

    copy, m, sha, root, config, index, row = item
    docs = _HELD.setdefault("docs", SharedDocs())
    got, wrong = export_results(copy, m, sha, root, config, docs)
    if root is None or row is None or wrong:
        return got, wrong, None
    if "table" not in _HELD:
        from .configured import config_prices

        _HELD["table"] = config_prices(config, "asz verify")
    return got, wrong, _row_figures(root, index, row, m, docs, _HELD["table"])


def _one_copy_there(item: tuple):
    """:func:`_one_copy` in a worker; None for a copy whose check ended the command (a usage error, exit 2: a manifest
    that does not read, a bad configuration), checked again by the command itself, which says why and exits."""
    try:
        return _one_copy(item)
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - its stderr is the worker's (closed): the command says it
        return None


def each_copy(items: list[tuple], jobs: int):
    """:func:`_one_copy` of each of ``items`` in order, in ``jobs`` forked workers when there are two copies or more
    against a root (each copy's check draws it again: session 49, trial 49b F3), else here; a copy whose check a worker
    could not finish (:func:`_one_copy_there` gave None, or the worker died) is checked here. Each call starts with no
    document held (another root's may share an id)."""
    _HELD.clear()
    if jobs < 2 or len(items) < 2 or items[0][3] is None:
        yield from map(_one_copy, items)
        return
    from ..collect.workers import each_in_order

    for got, item in zip(each_in_order(_one_copy_there, items, jobs), items):  # the workers' first: their pool ends whole
        yield got if got is not None else _one_copy(item)


def _render(body: dict) -> int:
    """The render a copy's manifest ``body`` names (0 when none: renders 1 and 2)."""
    r = body.get("render")
    return r if isinstance(r, int) and not isinstance(r, bool) else 0


#: What asz verify --export says of a copy that has no manifest to check it by (trial 33c F4): the way to one.
NO_MANIFEST_WAY = ("a copy with no manifest is checked only against the root, made again from it (asz verify --export "
                   "DIR/FILE --root ROOT, when this asz still draws it so; nothing says what it held when written): "
                   "else export the conversations again with this asz (asz export … --out DIR/ writes each copy's "
                   "FILE.manifest.json and the folder's export.manifest.json, asz export ID --out FILE one copy's) and "
                   "check those")


def _each_file_said(folder: Path) -> str:
    """What a folder with no folder manifest can be checked by: its files' own manifests (``check each file``, with
    how many have one), or, where none has (an asz built before 2026-12-05, source 9436bebf, wrote none for an unmasked copy), that it cannot
    be and the way to copies that can (:data:`NO_MANIFEST_WAY`; trial 33c F4: the advice went in a circle)."""
    try:
        names = [e.name for e in os.scandir(folder) if e.is_file()]
    except OSError:
        names = []
    copies = [n for n in names if not n.endswith(".manifest.json") and n not in ("index.html", "index.md", "index.json")]
    held = sum(1 for n in copies if f"{n}.manifest.json" in names)
    if held:
        return f"check each file ({held:,} of {len(copies):,} have a manifest beside them), asz verify --export DIR/FILE"
    return f"nor has any of its {len(copies):,} file(s) a manifest beside it; {NO_MANIFEST_WAY}"


def check_folder(folder: Path, given: str, root: Optional[Path], config: Optional[Path], as_json: bool, usage,
                 jobs: int = 1) -> None:
    """Check the folder export ``folder`` (module docstring); print ``ok:`` lines, each problem as ``FILE: …``, then
    ``the folder checks …`` or ``N problem(s)``; exit 0, 1 problems, 2 usage (``usage(message)`` makes that exit) or a
    copy whose drawing no render gives (unproven, never counted as checked: :func:`~asz_core.cli.verify_run.said_export`).
    ``jobs``: processes checking the copies (:func:`each_copy`)."""
    from ..reading.export_manifest import sha256
    from .verify_run import not_checkable, said_export, unreproduced

    where = folder / FOLDER_MANIFEST
    if not where.is_file() and (folder / JOURNAL).is_file():  # trial 31b F13: a stopped export is never whole
        raise usage(f"no folder manifest at {where}: the export into {folder} was stopped before its end (its partial "
                    f"manifest {JOURNAL} is there; no index page or folder manifest yet): run the same asz export "
                    "again to finish it (what is whole there is kept), then check it")
    if not where.is_file():
        raise usage(f"no folder manifest at {where}: asz export --out DIR/ writes it beside the index page since session "
                    f"31; a folder from an earlier asz has none: {_each_file_said(folder)}")
    raw = where.read_bytes()
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise usage(f"{where}: not a folder manifest: not JSON ({exc})") from None
    if not isinstance(body, dict) or not str(body.get("schema", "")).startswith(FOLDER_SCHEMA.rsplit("/", 1)[0] + "/1"):
        raise usage(f"{where}: not a folder manifest of asz export (schema {FOLDER_SCHEMA})")
    own, said, problems, gone = sha256(raw), [], [], []
    if given and given.strip().lower() != own:
        problems.append(f"{FOLDER_MANIFEST}: its SHA-256 is {own}, not the {given.strip()} given: it is not the "
                        "manifest the sender vouched for")
    else:
        said.append(f"the folder manifest is the one vouched for (SHA-256 {own})" if given else
                    f"the folder manifest's own SHA-256 is {own}: compare it with the digest the sender gave on "
                    "another channel (--sha256 HEX compares it)")
    page = _page_rows(folder, body)
    for part in (_listing(folder, body), _index_rows(folder, body), page):
        said, problems = said + part[0], problems + part[1]
    checked, moved, figured, rows = 0, 0, 0, page[2] or {}
    listed = [(f, folder / str(f.get("file")), folder / str((f.get("manifest") or {}).get("file"))) for f in body.get("files") or ()]
    listed = [(f, c, m) for f, c, m in listed if c.is_file() and m.is_file()]  # the others are named above
    items = [(c, m, (f.get("manifest") or {}).get("sha256") or "", root, config, str((body.get("index") or {}).get("file")),
              rows.pop(f.get("conversation"), None)) for f, c, m in listed]  # its index row, once (a --split copy's first part)
    for (_, copy, m), (got, wrong, off) in zip(listed, each_copy(items, jobs)):
        if off is not None:
            figured, problems = figured + (not off), problems + off
        checked += not wrong and not any(unreproduced(x) for x in got)  # an unproven drawing is no check passed
        moved += any("the root moved on since the export" in x for x in got)
        said += [f"{copy.name}: {x}" for x in got if "the root moved on since the export" in x]
        said += [x for x in got if x.startswith("note: ")]  # it names its copy (asz_core.reading.export_forms)
        gone += [f"{copy.name}: {x}" for x in got if not_checkable(x)]
        problems += [f"{copy.name}: {x}" for x in wrong]
    n = len(body.get("files") or ())
    if page[2] is not None and root is not None:
        said.append(f"the index's figures (talks, tokens, cost, state) of {figured:,} conversation(s) are their "
                    "documents' as of each copy's round")
    said.append(f"{checked:,} of {n:,} copies check against " + ("the root" if root is not None else "their manifests")
                + (f" ({moved:,} as of the round their manifest names: the root moved on since)" if moved else ""))
    unchecked = "" if root is not None else (
        "not checked: that each copy's text is the landed one" + (", and that the index's figures (talks, tokens, cost, "
        "state) are the conversations'" if page[2] is not None else "") + ": the root's holder checks it (asz verify "
        "--export DIR --root ROOT)")
    said_export({"export": str(folder), "manifest": str(where), "against_root": root is not None, "files": n}, said,
                unchecked, gone, problems, f"{folder.name}/", "the folder", as_json)
