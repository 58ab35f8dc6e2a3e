"""Check: two checkouts of asz build the same asz.view documents, byte for byte (issue 22, speed work never changes bytes).

Usage::

    python bench/view_same.py --before /tmp/main-tree [--roots DIR]

``--before`` is a tree of the code to compare with (``git archive main | tar
-x -C DIR``); the other is this checkout. The storage roots are made ONCE, with
this checkout's collect (``--roots`` keeps them between runs): the Claude
Code, Kiro and LangChain conversations of ../shared/corpus, every scenario of
../shared/conformance (Claude Code and Session Data formats, stage by stage),
and the 357-talk session of ``bench/view.py``. Then each tree, in its own
process, builds the document of every conversation of every root (the head;
``hide=system_prompt,tool_schemas``; every earlier round with
``through_round``) and writes the ``orjson.dumps`` bytes; the script compares
them and exits 1 on the first difference it lists (0 when every document is
the same). Builds that raise are compared by their error text.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
HIDE = ("system_prompt", "tool_schemas")


def make_roots(base: Path) -> list[Path]:
    """The storage roots to compare over (made once under ``base``; an existing ``base/done`` is reused)."""
    if (base / "done").exists():
        return [Path(p) for p in (base / "done").read_text().split("\n") if p]
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(REPO / "tests"))
    from asz_core.testing.scenario.build import build
    from asz_core.testing.scenario.model import load_scenario
    from cli_helpers import stage_upload_bodies

    roots: list[Path] = []
    corpus = SHARED / "corpus"

    def collect(*args: str) -> None:
        p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", *args], capture_output=True, text=True,
                           env={**os.environ, "CLAUDE_CONFIG_DIR": str(base / "claude-home")}, cwd=base)
        if " errors=0 " not in p.stdout:
            raise SystemExit(f"collect {args} failed:\n{p.stdout}{p.stderr}")

    base.mkdir(parents=True, exist_ok=True)
    if (corpus / "claude-code" / "projects").is_dir():
        roots.append(base / "cc")
        collect("--adapter", "claude-code-local", "--source", str(corpus / "claude-code" / "projects"), "--root", str(roots[-1]))
    if (corpus / "kiro" / "home" / ".kiro").is_dir():
        roots.append(base / "kiro")
        collect("--adapter", "kiro", "--source", str(corpus / "kiro" / "home" / ".kiro"), "--root", str(roots[-1]))
    if stage_upload_bodies(corpus, base / "lc"):
        root = base / "lc"
        collect("--adapter", "langsmith-ingest", "--source", str(root), "--root", str(root))
        roots.append(root)
    scenarios = SHARED / "conformance" / "scenarios"
    from asz_core.testing.scenario.fields import scenario_name

    for name in sorted({scenario_name(p) for p in scenarios.glob("*.yaml")}) if scenarios.is_dir() else []:
        path = scenarios / f"{name}.yaml"
        if not path.exists():
            continue
        for fmt in ("claude-code", "sd"):
            root = base / "scenarios" / fmt / path.stem
            try:
                build(load_scenario(path), fmt, root, at="2026-01-01T00:00:00Z", stepwise=True)
            except Exception as exc:  # a scenario this format cannot build: not a document to compare
                print(f"skip scenario {path.stem} [{fmt}]: {exc}", file=sys.stderr)
                continue
            roots.append(root)
    sys.path.insert(0, str(REPO / "bench"))
    import view as bench_view
    from asz_adapters_claude.plugin import ClaudeCodeLocal
    from asz_core.flow.parse import parse_root
    from asz_core.testing import collect_once

    big = base / "big"
    bench_view.generate(big / "projects", 357, 15)
    collect_once(big / "root", ClaudeCodeLocal(), big / "projects")
    parse_root(big / "root")
    roots.append(big / "root")
    (base / "done").write_text("\n".join(str(r) for r in roots) + "\n")
    return roots


def dump(roots: list[Path], out: Path) -> None:
    """Build every document of every root with the code on ``sys.path`` and write its bytes under ``out``."""
    import orjson

    from asz_core.view import ViewError, build_view, list_conversations

    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for i, root in enumerate(roots):
        for conv in list_conversations(root):
            rounds = sorted(p for p in (root / "_conversations" / conv / "rounds").iterdir())
            variants = [("head", {}), ("hide", {"hide": HIDE})] + [(f"r{k}", {"through_round": k}) for k in range(1, len(rounds))]
            for name, kw in variants:
                try:
                    data = orjson.dumps(build_view(root, conv, **kw))
                except (ViewError, ValueError) as exc:
                    data = f"{type(exc).__name__}: {exc}".encode()
                (out / f"{i:03d}-{conv}-{name}.json").write_bytes(data)
                n += 1
    import asz_core

    used = Path(asz_core.__file__).resolve().parent
    if not used.is_relative_to(Path.cwd().resolve()):  # the parent runs each dump in the tree it compares
        raise SystemExit(f"asz_core was imported from {used}, not from the tree {Path.cwd()}: the comparison would prove nothing")
    print(f"{n} documents built by {used}", file=sys.stderr)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="tree of the code to compare with (git archive main | tar -x -C DIR)")
    ap.add_argument("--roots", help="where the storage roots are made (kept; default a temporary directory)")
    ap.add_argument("--dump", nargs=2, metavar=("ROOTS_LIST", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.dump:
        dump([Path(p) for p in Path(args.dump[0]).read_text().split("\n") if p], Path(args.dump[1]))
        return 0
    if not args.before:
        ap.error("--before is required")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.roots) if args.roots else Path(tmp) / "roots"
        roots = make_roots(base)
        listing = Path(tmp) / "roots.txt"
        listing.write_text("\n".join(map(str, roots)) + "\n")
        outs = {}
        for name, tree in (("before", Path(args.before)), ("after", REPO)):
            outs[name] = Path(tmp) / name
            env = {**os.environ, "PYTHONPATH": str(tree)}
            subprocess.run([sys.executable, str(REPO / "bench" / "view_same.py"), "--dump", str(listing), str(outs[name])],
                           env=env, check=True, cwd=tree)
        before = {p.name: p.read_bytes() for p in sorted(outs["before"].iterdir())}
        after = {p.name: p.read_bytes() for p in sorted(outs["after"].iterdir())}
        differ = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        total = hashlib.sha256(b"".join(before[k] for k in sorted(before))).hexdigest()
        print(f"documents: {len(before)} before, {len(after)} after, {sum(map(len, before.values())) / 1e6:.1f} MB; "
              f"differ: {len(differ)}; sha256 of all before: {total[:16]}")
        for k in differ[:20]:
            print(f"  differs: {k}")
        return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
