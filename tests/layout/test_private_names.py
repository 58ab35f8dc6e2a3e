"""Private names stay home (issue 19): no module of asz_core or an adapter package uses another module's ``_name``.

A name with one leading underscore is private to the module that defines it.
Another module may not take it: not ``from x import _y``, not ``import x``
then ``x._y``. A private *module* (``pkg/_m.py``) is private to its package:
modules inside ``pkg`` may import it, nobody else. Dunder names (``__all__``,
``__version__``) are not private. Read from the source with :mod:`ast`;
nothing is imported.
"""

from __future__ import annotations

import ast

from layout_graph import REPO, from_target, modules, parsed, statements


def _packages() -> list[str]:
    return ["asz_core"] + sorted(p.name for p in REPO.iterdir() if p.is_dir() and p.name.startswith("asz_adapters"))


def product_modules() -> dict[str, object]:
    """Every module of the product packages by dotted name, with its path."""
    out: dict = {}
    for pkg in _packages():
        out.update(modules(pkg))
    return out


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _may_take(importer_pkg: str, target: str, name: str, known: dict) -> bool:
    """True when ``target.name`` is a private module of a package that contains the importer."""
    full = f"{target}.{name}"
    return full in known and (importer_pkg == target or importer_pkg.startswith(target + "."))


def crossings(name: str, text: str, is_package: bool, known: dict, tree: ast.AST | None = None) -> list[str]:
    """``line: what`` for every private name of another product module that the module ``name`` (source ``text``, or
    its syntax tree ``tree`` when given) uses.

    ``known`` is the set (or dict) of product module names; only imports of
    those count (the standard library's and third parties' privates are their
    business). ``is_package`` says the source is an ``__init__.py``.
    """
    tree = tree if tree is not None else ast.parse(text)
    package = name if is_package else name.rpartition(".")[0]
    bound: dict[str, str] = {}  # local name -> product module it names
    out = []
    for node in statements(tree):  # an import is a statement: ast.walk's order, no expression walked
        if isinstance(node, ast.ImportFrom):
            target = from_target(package, node)
            for a in node.names:
                if f"{target}.{a.name}" in known:
                    bound[a.asname or a.name] = f"{target}.{a.name}"
                if target in known and _private(a.name) and target != name and not _may_take(package, target, a.name, known):
                    out.append(f"{node.lineno}: from {target} import {a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] not in {k.split(".")[0] for k in known}:
                    continue
                bound[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
                parts = a.name.split(".")
                for i, part in enumerate(parts[1:], 1):
                    if _private(part) and not _may_take(package, ".".join(parts[:i]), part, known):
                        out.append(f"{node.lineno}: import {a.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain = []
            inner = node.value
            while isinstance(inner, ast.Attribute):
                chain.append(inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id in bound:
                owner = ".".join([bound[inner.id]] + chain[::-1])
                if owner in known and owner != name and not _may_take(package, owner, node.attr, known):
                    out.append(f"{node.lineno}: {owner}.{node.attr}")
    return out


def offenders() -> list[str]:
    """``path:line: what`` for every private name crossing a module boundary in the product packages."""
    known = product_modules()
    out = []
    for name, path in known.items():
        rel = path.relative_to(REPO)
        for hit in crossings(name, "", path.name == "__init__.py", known, parsed(path)):
            out.append(f"{rel}:{hit}")
    return out


def test_no_private_name_crosses_a_module():
    """No ``from x import _y`` and no ``x._y`` between two modules of asz_core or an adapter package."""
    found = offenders()
    assert not found, f"{len(found)} private names used outside their module (make them public, with a docstring):\n" + "\n".join(found)


def test_the_check_sees_each_form():
    """The check is not vacuous: each form of crossing is found, and a module's own or a package's private module is not."""
    known = {"asz_core", "asz_core.verify", "asz_core.verify.landed", "asz_core.verify.walk", "asz_core.verify._m", "asz_core.flow"}
    src = (
        "from .landed import _scan, check\n"
        "from asz_core.verify import landed as L\n"
        "import asz_core.verify.landed\n"
        "from . import _m\n"
        "import os\n"
        "L._fast(1)\n"
        "asz_core.verify.landed._slow(2)\n"
        "os._exit\n"
        "def _own(): pass\n"
        "_own()\n"
    )
    got = crossings("asz_core.verify.walk", src, False, known)
    assert got == ["1: from asz_core.verify.landed import _scan", "6: asz_core.verify.landed._fast",
                   "7: asz_core.verify.landed._slow"], got
    assert crossings("asz_core.flow.x", "from asz_core.verify import _m\n", False, known) == [
        "1: from asz_core.verify import _m"]
