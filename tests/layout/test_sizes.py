"""Small rooms (issue 19): no module over 600 lines, no function over 80, no class over 300, in the product packages.

The product packages are ``asz_core`` and every ``asz_adapters_*`` package. A
function's or class's length runs from its ``def``/``class`` line (decorators
included) to its last line. The test lists every offender with its size, so
the message is the to-do list.
"""

from __future__ import annotations

import ast

from layout_graph import REPO

MAX_MODULE = 600
MAX_FUNCTION = 80
MAX_CLASS = 300


def product_files():
    """Every Python file of the product packages, in path order."""
    packages = ["asz_core"] + sorted(p.name for p in REPO.iterdir() if p.is_dir() and p.name.startswith("asz_adapters"))
    for pkg in packages:
        yield from sorted((REPO / pkg).rglob("*.py"))


def offenders() -> list[str]:
    """One line per module, function or class over its limit: ``path:line: what name has N lines (limit L)``."""
    out = []
    for path in product_files():
        rel = path.relative_to(REPO)
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > MAX_MODULE:
            out.append(f"{rel}: module has {lines} lines (limit {MAX_MODULE})")
        for node in ast.walk(ast.parse(text, str(rel))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                size = node.end_lineno - start + 1
                limit = MAX_CLASS if isinstance(node, ast.ClassDef) else MAX_FUNCTION
                if size > limit:
                    what = "class" if isinstance(node, ast.ClassDef) else "function"
                    out.append(f"{rel}:{start}: {what} {node.name} has {size} lines (limit {limit})")
    return out


def test_the_rooms_are_small():
    """No module over 600 lines, no function over 80, no class over 300 in asz_core and the adapter packages."""
    found = offenders()
    assert not found, f"{len(found)} over the size limits:\n" + "\n".join(found)


def test_the_measure_counts_what_it_should():
    """The measure is not vacuous: it walks the packages and finds functions and classes in them."""
    files = list(product_files())
    assert any(p.name == "collector.py" for p in files) and any("asz_adapters_claude" in str(p) for p in files)
