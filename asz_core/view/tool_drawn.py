"""A tool call's input drawn as a person reads it (trial 43c F4, F7; docs/view.md, "Tool inputs"; docs/reading.md):
one reading for the page (``/api/c/{id}/headings``' ``drawn``) and the md and html exports (render 20).

Three shapes of input, read by what the input holds, not by the tool's name (any runtime writing them is read alike):

- **A todo list** (:func:`todo_list`): an object whose ``todos`` is a list of objects each with a string ``content``
  and a string ``status`` (Claude Code's ``TodoWrite``) is a checklist, one item per todo: its status (``completed``,
  ``in_progress``, ``pending``; any other word said as written), its content, its ``activeForm`` where it differs from
  the content, and every other key of the todo (``id``, ``priority``) as ``key: value``; every other key of the input
  as a fact. Nothing of the input is left out.
- **An edit** (:func:`edit_diff`): an object with a string ``old_string`` and ``new_string`` (``Edit``), or one of
  the other text pairs of :data:`~asz_core.view.placing.PAIRS` (Kiro CLI's ``old_str``/``new_str``, Kiro IDE's
  ``originalContent``/``modifiedContent``; render 22 in the exports), or whose ``edits`` is a list of objects with
  ``old_string`` and ``new_string`` (``MultiEdit``), is a unified diff of old to new for each edit (Python's
  :mod:`difflib`), headed by the file's path (``--- PATH`` / ``+++ PATH``), with every line of both texts in it
  (its context is the whole text: the old text is its `` `` and ``-`` lines, the new its `` `` and ``+`` lines), so
  the diff holds the input's texts whole; its ``@@`` line counts lines of ``old_string`` and ``new_string``, not of
  the file. ``replace_all`` and every other key stay facts (a MultiEdit edit's on its note, ``edit 1 of 2 ·
  replace_all``).
- **A file written** (:func:`written`): an object with a path key (:data:`~asz_core.view.placing.PATH_KEYS`,
  ``*_path``) and a string ``content`` (``Write``) is the content as a code block whose language is read from the
  path's extension (:data:`LANGUAGES`; none for an extension not listed), every other key a fact.

Each returns None for any other input, which the readers draw as its fields (:func:`~asz_core.view.placing.input_fields`).
The texts are returned as written: each reader escapes them (the page draws text nodes, the html export escapes, the
md export fences them and writes its raw HTML inert), and the credentials are masked before (the exports mask a step's
input, the page's answers are masked as a whole).
"""

from __future__ import annotations

import difflib
import json
import os
from typing import Any, Callable

from .placing import PAIRS, fact_text as _fact, is_path_key as _is_path

__all__ = ["LANGUAGES", "TODO_STATES", "drawn_gist", "drawn_input", "edit_diff", "edit_gist", "language", "todo_gist", "todo_list", "written", "page_drawn"]

#: The statuses a todo list names and how a checklist marks each: ``[x]`` done, ``[~]`` under way, ``[ ]`` not begun.
TODO_STATES = {"completed": "x", "in_progress": "~", "pending": " "}

#: A code block's language by a file's extension (lower case) or whole name: a fixed table, so an export's bytes stay
#: the same whatever library version draws it again (``asz verify --export``).
LANGUAGES = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".jsx": "jsx", ".ts": "typescript", ".tsx": "tsx", ".json": "json", ".jsonl": "json", ".md": "markdown",
    ".markdown": "markdown", ".sh": "bash", ".bash": "bash", ".zsh": "bash", ".ps1": "powershell", ".yaml": "yaml",
    ".yml": "yaml", ".toml": "toml", ".ini": "ini", ".cfg": "ini", ".html": "html", ".htm": "html", ".css": "css",
    ".scss": "scss", ".xml": "xml", ".svg": "xml", ".sql": "sql", ".go": "go", ".rs": "rust", ".rb": "ruby",
    ".java": "java", ".kt": "kotlin", ".swift": "swift", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp",
    ".hpp": "cpp", ".cs": "csharp", ".php": "php", ".lua": "lua", ".r": "r", ".txt": "text", ".csv": "csv",
    ".vue": "vue", ".svelte": "svelte", ".ex": "elixir", ".exs": "elixir", ".erl": "erlang", ".dart": "dart",
    ".scala": "scala", ".proto": "protobuf", ".tf": "hcl", ".diff": "diff", ".patch": "diff",
    "dockerfile": "dockerfile", "makefile": "makefile",
}

_EDIT = PAIRS[0]  # old_string / new_string: Edit's, and each MultiEdit edit's


def _facts(data: dict, drawn: set) -> list[list[str]]:
    """``[[key, value]…]`` of the keys of ``data`` not in ``drawn``, the path first, as the fields are read
    (:func:`~asz_core.view.placing.input_fields`)."""
    return [[k, _fact(data[k])] for k in sorted(data, key=lambda k: not _is_path(k)) if k not in drawn]


def _path_key(data: dict) -> str | None:
    return next((k for k in data if isinstance(data[k], str) and _is_path(k)), None)


def language(path: str) -> str:
    """The code block language of a file at ``path`` (:data:`LANGUAGES`: its whole name, then its extension), ''
    when not listed."""
    name = os.path.basename(path.replace("\\", "/")).lower()
    return LANGUAGES.get(name) or LANGUAGES.get(os.path.splitext(name)[1], "")


def todo_list(data: Any) -> dict | None:
    """``{"todos": [{"status", "mark", "content", "active_form"?, "other": [[key, value]…]}…], "facts": [[key,
    value]…], "gist": todo_gist}`` of a todo list input ``data`` (decoded JSON; module docstring), else None: ``mark`` is
    :data:`TODO_STATES`' (``?`` for a status not listed), ``active_form`` only where it differs from ``content``."""
    if not isinstance(data, dict) or not isinstance(data.get("todos"), list) or not data["todos"] or not all(
            isinstance(t, dict) and isinstance(t.get("content"), str) and isinstance(t.get("status"), str)
            for t in data["todos"]):
        return None
    todos = []
    for t in data["todos"]:
        item = {"status": t["status"], "mark": TODO_STATES.get(t["status"], "?"), "content": t["content"]}
        form = t.get("activeForm")
        if isinstance(form, str) and form != t["content"]:
            item["active_form"] = form
        item["other"] = [[k, _fact(v)] for k, v in t.items()
                         if k not in ("content", "status") and not (k == "activeForm" and isinstance(form, str))]
        todos.append(item)
    return {"todos": todos, "facts": _facts(data, {"todos"}), "gist": todo_gist(todos)}


def todo_gist(todos: list[dict]) -> str:
    """A todo list in one line, for the line a folded call shows (the page's row, an html export's tool line):
    ``4 todos: 1 completed, 1 in progress, 2 pending`` (each status counted, the three listed first, in that order,
    then any other as written)."""
    counts: dict[str, int] = {}
    for t in todos:
        counts[t["status"]] = counts.get(t["status"], 0) + 1
    order = [s for s in TODO_STATES if s in counts] + [s for s in counts if s not in TODO_STATES]
    return f"{len(todos)} todo{'s' if len(todos) != 1 else ''}: " + ", ".join(f"{counts[s]} {s.replace('_', ' ')}" for s in order)


def _diff_lines(old: str, new: str, path: str) -> list[str]:
    """The unified diff of ``old`` to ``new``, whole (every line of both as context, ``-`` or ``+``), headed by
    ``path``; [] when the two hold the same lines."""
    a, b = old.splitlines(), new.splitlines()
    if a == b:
        return []
    got = list(difflib.unified_diff(a, b, fromfile=path, tofile=path, lineterm="", n=max(len(a), len(b))))
    return got


def _same_said(old: str, new: str) -> str:
    return "(no change)" if old == new else "(the same lines; they differ only in line endings or a final line break)"


def edit_diff(data: Any, pairs: tuple[tuple[str, str], ...] = PAIRS) -> dict | None:
    """``{"path", "edits": [{"note", "lines": [...], "same"?}…], "facts": [[key, value]…], "gist"}`` of an edit's input
    ``data`` (decoded JSON; module docstring), its old and new texts the first of ``pairs`` (old key, new key) it holds
    both of as strings (:data:`~asz_core.view.placing.PAIRS`; an export of render 20 reads ``old_string`` only), else
    None: ``lines`` the unified diff (:func:`_diff_lines`, without
    line ends), ``same`` what stands for a diff of no lines (``(no change)``); ``note`` '' for an Edit, ``edit 1 of 2``
    (``· replace_all``, ``· key: value`` for the edit's other keys) for each MultiEdit edit. The path key is the diff's
    head, not a fact."""
    if not isinstance(data, dict):
        return None
    old, new = _EDIT
    pair = next((p for p in pairs if isinstance(data.get(p[0]), str) and isinstance(data.get(p[1]), str)), None)
    if pair is not None:
        pieces, used = [("", data[pair[0]], data[pair[1]])], set(pair)
    elif isinstance(data.get("edits"), list) and data["edits"] and all(
            isinstance(e, dict) and isinstance(e.get(old), str) and isinstance(e.get(new), str) for e in data["edits"]):
        n = len(data["edits"])
        pieces = [(" · ".join([f"edit {j} of {n}"] + ["replace_all" if k == "replace_all" and v is True else f"{k}: {_fact(v)}"
                                                   for k, v in e.items() if k not in (old, new)]), e[old], e[new])
                  for j, e in enumerate(data["edits"], 1)]
        used = {"edits"}
    else:
        return None
    key = _path_key(data)
    path = data[key] if key else "(no path given)"
    edits = []
    for note, a, b in pieces:
        lines = _diff_lines(a, b, path)
        edits.append({"note": note, "lines": lines, **({} if lines else {"same": _same_said(a, b)})})
    return {"path": path, "edits": edits, "facts": _facts(data, used | {key}), "gist": edit_gist(path, edits)}


def edit_gist(path: str, edits: list[dict]) -> str:
    """An edit in one line, for the line a folded call shows (the page's row, an html export's tool line, the brief
    and audit forms' call line): its path and the lines its diffs take away and add, summed over a MultiEdit's
    edits, ``/w/a.py (-3 +5)`` (the ``-`` and ``+`` lines after each diff's ``---``/``+++`` head)."""
    body = [x for e in edits for x in e["lines"][2:]]
    return f"{path} (-{sum(x[:1] == '-' for x in body)} +{sum(x[:1] == '+' for x in body)})"


def drawn_gist(data: Any, pairs: tuple[tuple[str, str], ...] = PAIRS) -> str | None:
    """The one line of a todo list (:func:`todo_gist`) or an edit (:func:`edit_gist`) given as decoded ``data`` (or
    its JSON text), None for any other input: what a folded call's line says in place of its JSON cut short."""
    got = drawn_input(data, pairs=pairs) if isinstance(data, str) else drawn_input(data=data, pairs=pairs) if data is not None else None
    return next((v["gist"] for k, v in got.items() if k in ("todos", "diff")), None) if got else None


def written(data: Any) -> dict | None:
    """``{"path", "language", "content", "facts": [[key, value]…]}`` of a file-writing input ``data`` (decoded JSON;
    module docstring), else None; the path stays a fact too, the first (it is the block's only head)."""
    if not isinstance(data, dict) or not isinstance(data.get("content"), str):
        return None
    key = _path_key(data)
    if key is None:
        return None
    return {"path": data[key], "language": language(data[key]), "content": data["content"],
            "facts": _facts(data, {"content"})}


#: The readers, tried in order (an input is at most one of them).
_READERS: tuple[tuple[str, Callable[[Any], dict | None]], ...] = (("todos", todo_list), ("diff", edit_diff), ("write", written))
#: Keys one of which an input must hold to be read (a quick test before its JSON is decoded).
_HINTS = ('"todos"', '"edits"', '"content"', *(f'"{p[0]}"' for p in PAIRS))


def drawn_input(text: str | None = None, data: Any = None, pairs: tuple[tuple[str, str], ...] = PAIRS) -> dict | None:
    """``{"todos": …}``, ``{"diff": …}`` or ``{"write": …}`` (module docstring) of a tool call's input, given as its JSON
    ``text`` or decoded ``data``, an edit's texts read by ``pairs`` (:func:`edit_diff`); None when it is none of them
    (not JSON, clipped, another shape)."""
    if data is None:
        if not text or not any(h in text for h in _HINTS):
            return None
        try:
            data = json.loads(text)
        except ValueError:
            return None
    for name, read in _READERS:
        got = edit_diff(data, pairs) if read is edit_diff else read(data)
        if got is not None:
            return {name: got}
    return None


def page_drawn(tools, whole_input: Callable[[dict], Any]) -> dict[str, dict]:
    """``{step id: drawn_input}`` for the page (``/api/c/{id}/headings``' ``drawn``) of each ``tool`` or
    ``agent.call`` step in ``tools`` that is a todo list, an edit or a file written: its input whole, the document's
    text when the document did not clip it, else ``whole_input(step)`` (the landed call part's data, or None); a
    withheld step is left out."""
    out: dict[str, dict] = {}
    for n in tools:
        text = n.get("text")
        if n.get("state") == "omitted" or not isinstance(text, str) or not any(h in text for h in _HINTS):
            continue
        size = n.get("bytes")
        if isinstance(size, int) and size > len(text.encode("utf-8", "surrogatepass")):
            data = whole_input(n)
            got = drawn_input(data=data) if data is not None else None
        else:
            got = drawn_input(text)
        if got is not None:
            out[n["id"]] = got
    return out
