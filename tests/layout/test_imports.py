"""The core knows no runtime, and its rooms import each other in one direction (issue 19).

Read from the source with :mod:`ast`: an import anywhere in a module counts,
inside a function too (it runs when the function does); only imports under
``if TYPE_CHECKING:`` are left out.
"""

from __future__ import annotations

import ast

from layout_graph import CORE, REPO, cycles, imports, modules, parsed, unit_graph


def _adapter_packages() -> list[str]:
    return sorted(p.name for p in REPO.iterdir() if p.is_dir() and p.name.startswith("asz_adapters") and (p / "__init__.py").is_file())


def test_the_adapter_packages_exist():
    """The packages the next tests keep out of the core are really there (so the tests test something)."""
    assert {"asz_adapters_claude", "asz_adapters_kiro", "asz_adapters_langchain"} <= set(_adapter_packages())


def test_the_core_imports_no_adapter_package():
    """No module of asz_core imports an adapter package, at the top or inside a function."""
    offenders = [f"{path.relative_to(REPO)}:{line}: imports {target}"
                 for name, path in modules(CORE).items() for target, line in imports(name, path)
                 if target.startswith("asz_adapters")]
    assert not offenders, "asz_core must not import an adapter package:\n" + "\n".join(offenders)


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def test_the_core_names_no_adapter_module_in_code():
    """``grep asz_adapters asz_core`` finds docs and comments only: no string in code names an adapter module
    (an ``import_module("asz_adapters_…")`` would hide the import from the test above)."""
    offenders = []
    for _name, path in modules(CORE).items():
        tree = parsed(path)
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "asz_adapters" in node.value and id(node) not in docs:
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value[:80]!r}")
    assert not offenders, "\n".join(offenders)


def test_no_import_cycle_between_the_rooms_of_the_core():
    """The rooms of asz_core (its subpackages and top-level modules) import each other without a cycle."""
    graph = unit_graph()
    found = cycles(graph)
    detail = []
    for group in found:
        for a in group:
            for b in group:
                if b in graph.get(a, {}):
                    detail.append(f"{a} -> {b}: {', '.join(graph[a][b][:3])}")
    assert not found, f"import cycles between rooms of asz_core: {found}\n" + "\n".join(detail)


def test_the_cycle_finder_finds_a_cycle():
    """The check above is not vacuous: a two-room and a three-room cycle are found, a chain is not."""
    assert cycles({"a": {"b": []}, "b": {"a": []}}) == [["a", "b"]]
    assert cycles({"a": {"b": []}, "b": {"c": []}, "c": {"a": []}, "d": {"a": []}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b": []}, "b": {"c": []}}) == []


def test_architecture_lists_every_import_direction():
    """docs/architecture.md's table of rooms lists every room each room imports (``every room`` for the CLI)."""
    import re

    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Layout: one package per stage", 1)[1].split("\n## ", 1)[0]
    documented: dict[str, set[str]] = {}
    for room, cell in re.findall(r"^\| `([a-z_]+)` \| (.*?) \|$", section, re.MULTILINE):
        documented[room] = {"*"} if cell.strip().startswith("every room") else set(re.findall(r"`([a-z_]+)`", cell))
    graph = unit_graph()
    missing = [f"{a} -> {b} ({graph[a][b][0]})" for a in sorted(graph) for b in sorted(graph[a])
               if "*" not in documented.get(a, set()) and b not in documented.get(a, set())]
    assert not missing, "imports docs/architecture.md does not list:\n" + "\n".join(missing)
    stale = [f"{a} -> {b}" for a, bs in documented.items() for b in sorted(bs) if b != "*" and b not in graph.get(a, {})]
    assert not stale, "docs/architecture.md lists imports there are not:\n" + "\n".join(stale)
