"""Check: two checkouts of asz give the same ``asz conversation --json`` and page API answers, byte for byte (issue 22).

Usage::

    python bench/view_api_same.py --before /tmp/main-tree --roots DIR

``--before`` is a tree of the code to compare with (``git archive main | tar -x -C DIR``, its compiled modules built
with ``python setup.py build_ext --inplace``); the other is this checkout. The storage roots are those of
``bench/view_same.py`` (made once under ``--roots`` by this checkout's collect, or reused). For each tree, in its own
process with the tree first on ``PYTHONPATH``: every conversation of every root is printed by ``python -m
asz_core.cli.main conversation ID --root R --json`` (stdout, stderr and exit code kept) and asked of
``/api/c/{id}/view`` and ``/api/c/{id}/headings`` through a ``TestClient`` of ``create_app(ViewState(R))`` (status and
body kept). The answers are compared; exit 1 when any differs. Takes minutes (a process per conversation and tree).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def dump(tree: Path, roots: list[Path], out: Path) -> None:
    """Write every answer of the code in ``tree`` (first on ``sys.path``) under ``out``."""
    import asz_core
    from starlette.testclient import TestClient

    from asz_core.view import list_conversations
    from asz_core.view.app import create_app
    from asz_core.view.state import ViewState

    if not Path(asz_core.__file__).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"asz_core was imported from {asz_core.__file__}, not from {tree}")
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    for i, root in enumerate(roots):
        state = ViewState(root)
        state.hold_counting = True  # nothing counted behind while the answers are read
        client = TestClient(create_app(state), base_url="http://127.0.0.1")
        for conv in list_conversations(root):
            p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "conversation", conv, "--root", str(root), "--json"],
                               capture_output=True, env=env, cwd=tree)
            (out / f"{i:03d}-{conv}-cli").write_bytes(p.stdout + b"\n--stderr--\n" + p.stderr + f"\nrc={p.returncode}".encode())
            for what in ("view", "headings"):
                r = client.get(f"/api/c/{conv}/{what}")
                (out / f"{i:03d}-{conv}-{what}").write_bytes(f"{r.status_code}\n".encode() + r.content)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="tree of the code to compare with")
    ap.add_argument("--roots", required=True, help="where bench/view_same.py's storage roots are made (kept)")
    ap.add_argument("--dump", nargs=2, metavar=("TREE", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO / "bench"))
    import view_same

    roots = view_same.make_roots(Path(args.roots))
    if args.dump:
        dump(Path(args.dump[0]), roots, Path(args.dump[1]))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        outs = {}
        for name, tree in (("before", Path(args.before)), ("after", REPO)):
            outs[name] = Path(tmp) / name
            subprocess.run([sys.executable, str(REPO / "bench" / "view_api_same.py"), "--before", str(tree), "--roots",
                            args.roots, "--dump", str(tree), str(outs[name])], env={**os.environ, "PYTHONPATH": str(tree)},
                           check=True, cwd=tree)
        before = {p.name: p.read_bytes() for p in sorted(outs["before"].iterdir())}
        after = {p.name: p.read_bytes() for p in sorted(outs["after"].iterdir())}
        differ = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        print(f"answers: {len(before)} before, {len(after)} after, {sum(map(len, before.values())) / 1e6:.1f} MB; differ: {len(differ)}")
        for k in differ[:20]:
            print(f"  differs: {k}")
        return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
