"""An md or html index page of a folder export read back as rows, and held to the copies (``asz verify --export DIR``;
trial 31b F2 left, fix32d: a json index's rows were checked, an md or html index only by its digest).

What an index row says (:func:`~asz_core.reading.export_index.index_markdown`, :func:`~.index_html`): the copy (or
parts) it links, its talks, tokens and cost as the index shows them (``25,366``, ``$0.14``; ``held back``, ``not
recorded``, ``-``) and the state. Read back here (:func:`page_rows`), each row is checked: alone, that it links the
copies the folder manifest lists for that conversation (or is one the manifest lists as not exported), and that the
index has one row per conversation; with ``--root``, that its talks, tokens, cost and state are those of the
conversation's document as of the round its copy's manifest names, shown as the index shows a row
(:func:`shown_figures`). docs/verify.md, "A folder export"."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Optional

from ..reading.head_said import INDEX_MD_HEAD as MD_HEAD, INDEX_MD_RUNTIME_HEAD

__all__ = ["page_rows", "links_checked", "shown_figures", "figures_checked"]

#: The headers of an md index's table (:func:`~asz_core.reading.export_index.index_markdown`): before render 57, and
#: from it with its ``runtime`` column (:func:`~asz_core.reading.head_said.index_head`, whose strings these are).
MD_HEADS = (MD_HEAD, INDEX_MD_RUNTIME_HEAD)
_CELL = re.compile(r"(?<!\\)\|")


def _md_rows(text: str) -> list[dict]:
    """The rows of every table of an md index: one table (before trial 37a F6), or one per project's section."""
    lines = text.split("\n")
    rows = []
    heads = [(i, line != MD_HEAD) for i, line in enumerate(lines) if line in MD_HEADS]
    for line, runtime in ((line, r) for i, r in heads for line in _table_lines(lines, i + 2)):  # past the --- line
        cells = [c.strip() for c in _CELL.split(line)[1:-1]]
        if len(cells) != (9 if runtime else 8):
            rows.append({"bad": line[:80]})
            continue
        if runtime:  # its runtime column (render 57) left out
            del cells[3]
        state, link = cells[6].strip("*"), cells[7]
        out = {"talks": cells[3], "tokens": cells[4], "cost": cells[5], "files": re.findall(r"\[([^\]]+)\]\(", link),
               "not_exported": state.startswith("not exported"), "state": state.split(":")[0]}
        if out["not_exported"]:
            out["id"] = link.strip("`")
        rows.append(out)
    return rows


def _table_lines(lines: list[str], at: int) -> list[str]:
    """The row lines of the md table whose rows begin at line ``at``: up to the first line that is no row."""
    end = at
    while end < len(lines) and lines[end].startswith("| "):
        end += 1
    return lines[at:end]


class _Table(HTMLParser):
    """The ``<tr>`` rows of an html index: each cell's text and the links in it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[str, list[str]]]] = []
        self._row: Optional[list] = None
        self._cell: Optional[list] = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr":
            self._row = None if a.get("class") == "head" else []
        elif tag == "td" and self._row is not None:
            self._cell = ["", []]
        elif tag == "a" and self._cell is not None and a.get("href"):
            self._cell[1].append(a["href"])

    def handle_endtag(self, tag):
        if tag == "td" and self._row is not None and self._cell is not None:
            self._row.append((self._cell[0], self._cell[1]))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[0] += data


def _html_rows(text: str) -> list[dict]:
    t = _Table()
    t.feed(text)
    rows = []
    for cells in t.rows:
        cells = cells[:2] + cells[3:] if len(cells) == 8 else cells  # its runtime column (render 57) left out
        if len(cells) != 7:
            rows.append({"bad": html.escape(" ".join(c[0] for c in cells))[:80]})
            continue
        state = cells[5][0]
        rows.append({"talks": cells[2][0], "tokens": cells[3][0], "cost": cells[4][0], "files": cells[1][1],
                     "not_exported": state.startswith("not exported"), "state": state.split(" · ")[0].split(":")[0],
                     "id": cells[6][0]})
    return rows


def page_rows(index: Path) -> Optional[list[dict]]:
    """The rows of the md or html index page ``index`` (``{"talks", "tokens", "cost", "state", "files", "not_exported"}``
    as shown, html rows and rows not exported with their ``id``; ``{"bad"}`` for a row that does not read); None for
    another form (a json index: :func:`~asz_core.cli.verify_folder._index_rows`)."""
    text = index.read_bytes().decode("utf-8", "replace")
    if index.name.endswith(".md"):
        return _md_rows(text)
    if index.name.endswith(".html"):
        return _html_rows(text)
    return None


def links_checked(name: str, rows: list[dict], body: dict) -> list[str]:
    """Problems of an index's ``rows`` (named ``name``) against the folder manifest ``body``: each row links exactly the
    files the manifest lists for its conversation (an html row names that conversation's id), a row not exported is
    one the manifest lists so, and there is one row per conversation. Sets each row's ``id`` from the files it links."""
    owner: dict[str, str] = {}
    listed: dict[str, list[str]] = {}
    for f in body.get("files") or ():
        owner[f.get("file")] = f.get("conversation")
        listed.setdefault(f.get("conversation"), []).append(f.get("file"))
    gone = body.get("not_exported") or {}
    problems = []
    for k, row in enumerate(rows, 1):
        row["k"] = k
        if "bad" in row:
            problems.append(f"{name}: row {k}: does not read as an index row ({row['bad']!r})")
            continue
        if row["not_exported"]:
            if row.get("id") not in gone:
                problems.append(f"{name}: row {k} ({row.get('id')}): not exported, which the folder manifest does not say")
            continue
        cids = {owner.get(f) for f in row["files"]}
        cid = next(iter(cids)) if len(cids) == 1 else None
        if cid is None or row.get("id", cid) != cid or sorted(row["files"]) != sorted(listed.get(cid, [])):
            problems.append(f"{name}: row {k} ({row.get('id', '?')}): it links {', '.join(row['files']) or 'no file'}, "
                            "not the copies the folder manifest lists for one conversation")
            continue
        row["id"] = cid
    if len(rows) != len(listed) + len(gone):
        problems.append(f"{name}: {len(rows):,} row(s), the folder manifest {len(listed):,} conversation(s) with copies "
                        f"and {len(gone):,} not exported")
    return problems


def shown_figures(summary: dict, table) -> dict:
    """A conversation's talks, tokens, cost and state as an index row shows them, from its asz.view document's
    ``summary``, its cost priced by ``table`` (the export's: the configuration's ``prices``)."""
    from ..reading.export_index import index_figures
    from ..view.prices import cost_of
    from ..view.rows import usage_unrecorded

    unrecorded = usage_unrecorded(summary.get("llm_calls"), summary.get("calls_with_usage"), summary.get("credits")) \
        and not summary.get("counted_in")  # 0, counted where it continues (render 33: trial 46a F5)
    cost = cost_of(summary.get("usage_by_model") or {}, table)
    if summary.get("counted_in"):  # priced: $0.00, as its row of the index (view.counted_in)
        cost = {k: v for k, v in cost.items() if k != "priced"}
    row = {"usage": summary.get("usage"), "cost": cost, "usage_recorded": not unrecorded}
    tokens, cost = index_figures(row)
    return {"talks": str(summary.get("talks") or 0), "tokens": tokens, "cost": cost, "state": str(summary.get("state") or "")}


def figures_checked(name: str, row: dict, summary: dict, table) -> list[str]:
    """Problems of the index row ``row`` against its conversation's document ``summary`` (:func:`shown_figures`): the
    state; the talks, tokens and cost where both say ``verified`` (a row that does not verify holds its figures back)."""
    want = shown_figures(summary, table)
    keys = ("state", "talks", "tokens", "cost") if want["state"] == "verified" == row["state"] else ("state",)
    return [f"{name}: row {row['k']} ({row['id']}): {key} {row[key]}, the conversation's {want[key]} (its document as of its "
            "copy's round)" for key in keys if row[key] != want[key]]
