"""The import graph of the product packages, read from the source with :mod:`ast` (nothing is imported).

Shared by the layout tests and by ``docs/architecture.md``'s table of import directions.
"""

from __future__ import annotations

import ast
import functools
from collections import deque
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORE = "asz_core"


def modules(package: str = CORE) -> dict[str, Path]:
    """Every module of ``package`` by dotted name (a package by its own name, from ``__init__.py``)."""
    base = REPO / package
    out = {}
    for path in sorted(base.rglob("*.py")):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def from_target(package: str, node: ast.ImportFrom) -> str:
    """The dotted module a ``from … import`` statement in ``package`` reads from, a relative one resolved."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


@functools.lru_cache(maxsize=None)
def parsed(path: Path) -> ast.Module:
    """The syntax tree of the module at ``path``, parsed once a process and shared by every layout test that reads it
    (the six tests read the same 450 modules: each parsed and walked them again, about 2.7 s of CPU a test, session
    44). No test changes a tree."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


#: The nodes that hold statements: a statement (a function's, a class's, a loop's, a ``with``'s body), an ``except``
#: clause, a ``case``. An expression holds none (a lambda's body is an expression).
_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def statements(tree: ast.AST, *, skip_type_checking: bool = False):
    """Every statement of ``tree``, in :func:`ast.walk`'s order, without walking the expressions (most of a tree's
    nodes), which hold none. ``skip_type_checking``: the body of an ``if TYPE_CHECKING:`` (its ``else`` kept) left out,
    the statements under it too."""
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        if skip_type_checking and isinstance(node, ast.If) and _type_checking(node):
            todo.extend(node.orelse)
        else:
            todo.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, _HOLDERS))
        if isinstance(node, ast.stmt):
            yield node


@functools.lru_cache(maxsize=None)
def _imports(name: str, path: Path) -> tuple[tuple[str, int], ...]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in statements(parsed(path), skip_type_checking=True):
        if isinstance(node, ast.Import):
            out.extend((a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = from_target(package, node)
            out.append((target, node.lineno))
            # ``from . import x`` / ``from .pkg import mod``: the names may be modules themselves
            out.extend((f"{target}.{a.name}", node.lineno) for a in node.names)
    return tuple(out)


def imports(name: str, path: Path) -> list[tuple[str, int]]:
    """``(imported module, line)`` for every import in the module ``name`` at ``path``, relative ones resolved.

    Imports under ``if TYPE_CHECKING:`` are left out: they never run. Imports
    inside functions count (they run when the function does). Read once a process (:func:`parsed`)."""
    return list(_imports(name, path))


def unit(module: str) -> str:
    """The room of the core a module belongs to: its first level below ``asz_core`` (``asz_core.flow.parse`` → ``flow``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def unit_graph() -> dict[str, dict[str, list[str]]]:
    """Edges between the rooms of ``asz_core``: ``graph[a][b]`` lists the ``file:line`` of each import of b by a."""
    mods = modules()
    graph: dict[str, dict[str, list[str]]] = {}
    for name, path in mods.items():
        src = unit(name)
        if src == "__init__":
            continue  # the public API re-exports lazily (PEP 562): it names every room and is imported by none
        for target, line in imports(name, path):
            if target not in mods or not target.startswith(CORE + "."):
                continue
            dst = unit(target)
            if dst not in (src, "__init__"):
                graph.setdefault(src, {}).setdefault(dst, []).append(f"{path.relative_to(REPO)}:{line}")
    return graph


def cycles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """The strongly connected groups of more than one room (Tarjan), each sorted; empty when the graph has no cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(set(graph) | {w for e in graph.values() for w in e}):
        if v not in index:
            visit(v)
    return out
