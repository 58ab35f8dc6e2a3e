"""What a Kiro tool call acts on, in a few words: the ``tool_call`` summary of ``asz export --format prose --audit``
(the adapter's ``call_gist``; docs/adapters/kiro.md, Tool calls in the audit form; trial 19, F11).

The readers' own rule takes an input's first summing field (``command``, ``file_path``, ``path``, ``pattern``, …),
which reads Kiro's inputs wrongly: a CLI 2.x ``write`` holds ``{"command": "create", "path": …}``, so it read
``write: create`` and lost the file; a ``grep`` or ``glob`` holds ``{"pattern", "path"}`` and read the folder, not
the pattern; a 3.x ``create`` names its file in ``file`` and a ``read``/``read_files`` in a list, so they read as
JSON. Each summary here is built from the input's own fields, as written, by the shapes of the real corpus
sessions (../shared/corpus/kiro): nothing is added. Pure functions, standard library only.
"""

from __future__ import annotations

from typing import Any

__all__ = ["call_gist"]


def _text(v: Any) -> str:
    return v if isinstance(v, str) and v.strip() else ""


def _paths(items: Any) -> str:
    """The ``path`` of each entry of a list of objects, joined with ``, ``; '' when none has one."""
    if not isinstance(items, list):
        return ""
    return ", ".join(p for x in items if isinstance(x, dict) and (p := _text(x.get("path"))))


def call_gist(name: str, data: Any) -> str | None:
    """The summary of a Kiro tool call ``name`` with input ``data`` (decoded JSON), or None (the readers' own rule):

    - a 2.x ``write`` (``{"command", "path", …}``): ``<command> <path>`` (``create /w/notes.md``);
    - a 3.x ``create`` (``{"file", …}``): its ``file``;
    - ``grep`` and ``glob`` (``{"pattern", "path"}``): ``<pattern> in <path>``, or the pattern alone with no path;
    - a 2.x ``read`` (``{"operations": [{"path"}…]}``) and a 3.x ``read_files`` (``{"files": [{"path"}…]}``): the
      paths, joined with ``, ``;

    None for any other tool or shape (a shell call reads as its ``command`` by the readers' rule already). Never
    raises."""
    if not isinstance(data, dict):
        return None
    if name == "write" and _text(data.get("path")):
        return f"{_text(data.get('command'))} {data['path']}".strip()
    if name == "create" and _text(data.get("file")):
        return data["file"]
    if name in ("grep", "glob") and _text(data.get("pattern")):
        return f"{data['pattern']} in {data['path']}" if _text(data.get("path")) else data["pattern"]
    if name in ("read", "read_files"):
        return _paths(data.get("operations" if name == "read" else "files")) or None
    return None
