"""``asz scenario build``: a scenario landed and parsed into a storage root, checkpoint by checkpoint (origin-digest §9.1).

Two formats:

* ``claude-code``: the plan's lines are written as Claude Code writes them
  under ``DIR/_source/projects/<project>/…`` (with the noise a real project
  directory holds), then one collect pass of the real ``claude-code-local``
  adapter through the real collector lands them into ``DIR``;
* ``sd``: the plan's lines land directly as mock Session Data
  (:mod:`asz_core.testing.scenario.mock`).

Either way each checkpoint is its own stage: the stage's lines are written
(appended to the sources, or landed), then the session is parsed, and a
:class:`Snapshot` of the chain is taken. Every pass of stage ``k`` is stamped
``--at`` + ``k`` seconds, so the same scenario and ``--at`` give the same
landed files and rounds byte for byte.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import attrs

from ...sessiondata.times import parse_instant
from ...storage.layout import rounds_dir
from .expect import Expectation
from .model import Scenario
from .plan import Plan, make_plan

__all__ = [
    "FORMATS",
    "DEFAULT_AT",
    "NOISE",
    "SOURCE_ROOTS",
    "Snapshot",
    "Build",
    "build",
    "parse_at",
    "read_fold",
    "round_paths",
    "landed_paths",
    "tree_digests",
    "source_path",
    "collect_pass",
    "parse_once",
    "rebuild_root",
    "provider_stage",
]

FORMATS = ("claude-code", "sd")
#: ``--at`` when none is given: scenario builds are reproducible by default.
DEFAULT_AT = "2026-01-01T00:00:00Z"
NOISE = {
    "memory/notes.md": b"agent memory, not a session\n",
    "not-a-uuid.jsonl": b'{"type":"summary","summary":"not a session"}\n',
    "sessions-index.json": b'{"version":1,"entries":[]}\n',
    "tool-results/toolu_noise.txt": b"persisted tool output\n",
}


def parse_at(text: str) -> int:
    """``--at`` (RFC 3339) → ms since the epoch. Raises ValueError for anything else."""
    ns = parse_instant(text)
    if ns is None:
        raise ValueError(f"--at {text!r} is not an RFC 3339 time such as {DEFAULT_AT}")
    return ns // 1_000_000


@attrs.define
class Snapshot:
    """The chain after one checkpoint's parse: ``name``, the ``fold`` (asz_core.flow.fold.Fold),
    ``round_files`` (paths in order), ``written`` (rounds this stage wrote), ``landed`` (files this
    stage landed), ``problem`` ('' or why parse/collect failed), ``round_bytes`` (path → bytes)."""

    name: str
    fold: Any
    round_files: list[Path]
    written: int
    landed: int
    problem: str = ""
    round_bytes: dict = attrs.Factory(dict)


@attrs.define
class Build:
    """One built scenario: ``fmt``, the storage root ``out``, the ``plan``, a :class:`Snapshot` per
    checkpoint (in order), and for claude-code ``source_root`` (``DIR/_source``, holding ``projects``
    and ``plugins/data``) and the collector's ``counters`` per stage."""

    fmt: str
    out: Path
    plan: Plan
    snapshots: list[Snapshot] = attrs.Factory(list)
    source_root: Path | None = None
    counters: list = attrs.Factory(list)
    bodies: list | None = None  # issue 10: provider body files of a provider_bodies scenario


def round_paths(root: Path, conversation: str) -> list[Path]:
    """Round files of a chain in round order (empty reservation files skipped)."""
    d = rounds_dir(root, conversation)
    if not d.is_dir():
        return []
    return sorted(p for p in d.iterdir() if p.name.endswith(".sf") and p.stat().st_size > 0)


def read_fold(root: Path, conversation: str):
    """Fold the chain of ``conversation`` under ``root``. Raises RoundError/FoldError for a bad chain."""
    from ...flow.fold import fold_rounds
    from ...flow.round import read_round

    return fold_rounds(read_round(p) for p in round_paths(root, conversation))


def landed_paths(root: Path, session: str) -> list[Path]:
    """Every landed ``.sd`` file of a session, by seq."""
    from ...storage.layout import landed_files, session_dir

    return [p for _, p in landed_files(session_dir(Path(root), session))]


def tree_digests(root: Path, *, sources: bool = True) -> dict[str, str]:
    """rel path → SHA-256 of landed files, rounds and (``sources``) source files under ``root``;
    cursors, state files, locks and the index (which hold times and inode numbers) are left out."""
    out = {}
    root = Path(root)
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(root).as_posix()
        if p.suffix in (".sd", ".sf") or (sources and rel.startswith("_source/")):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _write_sources(plan: Plan, stage: int, base: Path) -> None:
    for ln in plan.kept(stage):
        path = source_path(base, ln.file)
        path.parent.mkdir(parents=True, exist_ok=True)
        if ln.file.mode == "snapshot":
            path.write_bytes(ln.raw)
        else:
            with open(path, "ab") as f:
                f.write(ln.raw + b"\n")


def _write_noise(plan: Plan, projects: Path) -> None:
    for rel, data in NOISE.items():
        p = projects / plan.project / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


#: Where each kind of source root sits under ``DIR/_source``: Claude Code's ``projects`` and the
#: asz observers' plugin data directories (``changes`` and ``execution`` files).
SOURCE_ROOTS = {"projects": "projects", "plugin": "plugins/data"}
#: The adapter that reads each source root.
ROOT_ADAPTERS = {"projects": "claude-code-local", "plugin": "changes"}


def source_path(base: Path, f) -> Path:
    """Where planned source ``f`` is written under ``base`` (``DIR/_source``)."""
    return Path(base) / SOURCE_ROOTS[f.root] / f.rel


def collect_pass(out: Path, base: Path, stamp_ns: int, max_delta_bytes: int | None = None,
                 roots: tuple[str, ...] = ("projects", "plugin")):
    """One collect pass into ``out``, stamped ``stamp_ns`` (``CollectOptions.stamp_ns``): the real
    ``claude-code-local`` adapter over ``base/projects`` and the real ``changes`` adapter over
    ``base/plugins/data`` when it exists (``roots`` picks which run), together
    (:func:`asz_core.collect.run_passes`), so each session lands its main
    transcript, then the observers' files, then the rest.

    Returns ``(Counters, report text)``: the counters of both adapters added,
    and what the passes told (errors, conflicts), '' when nothing. Raises
    KeyError when an adapter is not registered.
    """
    import io

    from ...collect.collector import CollectOptions, Collector, Report, run_passes
    from ...plugins import get_plugin_manager

    opts = CollectOptions(fsync=False, stamp_ns=stamp_ns)
    if max_delta_bytes:
        opts.max_delta_bytes = max_delta_bytes
    err = io.StringIO()
    reg = get_plugin_manager()
    cols = []
    for key in roots:
        root = Path(base) / SOURCE_ROOTS[key]
        if root.is_dir():
            cols.append(Collector(out, reg.get(ROOT_ADAPTERS[key]), root, options=opts, report=Report(err)))
    return run_passes(cols), err.getvalue()


def parse_once(out: Path, session: str, max_round_bytes: int | None = None) -> tuple[int, str]:
    """Parse ``session`` under ``out`` once (``asz_core.flow.parse``, origin-digest §4.3).

    ``max_round_bytes`` is the round budget in bytes (None: the default 2 MiB).
    Returns ``(rounds written, problem)``, problem '' on success; never raises
    (an exception inside the parser becomes the problem text).
    """
    from ...flow.parse import DEFAULT_MAX_ROUND_BYTES, parse_outcome

    try:
        o = parse_outcome(out, session, max_round_bytes=max_round_bytes or DEFAULT_MAX_ROUND_BYTES, fsync=False)
    except Exception as exc:  # an assembly still being written: report, do not crash the check
        return 0, f"parse failed: {type(exc).__name__}: {exc}"
    return len(o.rounds), o.problem


def build(sc: Scenario, fmt: str, out: str | os.PathLike, *, at: str = DEFAULT_AT, expect: Expectation | None = None,
          stop_after: int | None = None, after_stage=None, stepwise: bool = True, observers: bool = True) -> Build:
    """Build ``sc`` in format ``fmt`` (``claude-code`` or ``sd``) into storage root ``out`` (must be new or empty).

    Stage by stage: write or land the stage's lines, collect (claude-code),
    parse, snapshot. ``expect`` supplies ``collect.max_delta_bytes`` and
    ``parse.max_round_bytes``; ``stop_after`` stops after that many stages;
    ``after_stage(build, k)`` runs after stage ``k``'s snapshot (the check
    uses it for ``lose``). ``stepwise`` False lands the whole scenario in one
    stage and parses once, as the original's ``asz scenario build`` made the
    format pages' example (one round). Raises ValueError (bad format or ``--at``),
    FileExistsError (``out`` not empty), KeyError (an adapter is not
    registered), OSError or LockBusy (the storage root cannot be written). A
    collect or parse that reports a problem does not raise: the stage's
    :class:`Snapshot` carries it in ``problem``.
    """
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    at_ms = parse_at(at)
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out}: not empty; a scenario builds into a new directory")
    out.mkdir(parents=True, exist_ok=True)
    plan = make_plan(sc, at_ms)
    if not observers:
        for ln in plan.lines:
            if ln.file.root == "plugin":
                ln.lost = True
    if not stepwise:
        for ln in plan.lines:
            ln.stage = 0
        plan.stage_names = ["final"]
    b = Build(fmt, out, plan)
    mdb = expect.max_delta_bytes if expect else None
    mrb = expect.max_round_bytes if expect else None
    positions: dict = {}
    base = out / "_source"
    if fmt == "claude-code":
        (base / "projects").mkdir(parents=True, exist_ok=True)
        (out / "_scenario").mkdir(exist_ok=True)
        _write_noise(plan, base / "projects")
        b.source_root = base
    before = 0
    stages = len(plan.stage_names)
    for k in range(stages if stop_after is None else min(stop_after, stages)):
        stamp_ns = at_ms * 1_000_000 + k * 1_000_000_000
        problem = ""
        if fmt == "claude-code":
            # One pass of both adapters lands in the original's order (collect.landing_rank, the
            # same as mock.landing_group): the main transcript, the observers' files, the rest.
            _write_sources(plan, k, base)
            c, told = collect_pass(out, base, stamp_ns, mdb)
            b.counters.append(c)
            landed = c.landed
            if c.errors or c.conflicts or c.pending:
                problem = f"collect: {c.summary()} {told.strip()}".strip()
        else:
            from .mock import land_stage

            landed = land_stage(plan, k, out, positions, stamp_ns)
        if sc.provider_bodies:  # issue 10: body files as Claude Code writes them, then the provider pass
            landed += provider_stage(b, sc, k, stamp_ns, mdb)
        written, perr = parse_once(out, plan.session, mrb)
        problem = "; ".join(p for p in (problem, perr) if p)
        try:
            fold = read_fold(out, plan.session)
        except Exception as exc:
            fold = None
            problem = "; ".join(p for p in (problem, f"chain unreadable: {exc}") if p)
        paths = round_paths(out, plan.session)
        snap = Snapshot(plan.stage_names[k], fold, paths, len(paths) - before, landed, problem,
                        {p.name: p.read_bytes() for p in paths})
        before = len(paths)
        b.snapshots.append(snap)
        if after_stage is not None:
            after_stage(b, k)
    return b


def provider_stage(b: Build, sc: Scenario, k: int, stamp_ns: int, max_delta_bytes: int | None) -> int:
    """Write stage ``k``'s provider body files under ``DIR/_source/provider-bodies`` and run the provider
    pass (:func:`asz_core.collect.provider_bodies.provider_pass`) stamped ``stamp_ns``; returns the files it landed.

    Issue 10. The bodies are derived from the plan (:mod:`asz_core.testing.scenario.bodies`).
    """
    import io

    from ...collect.provider_bodies import provider_pass
    from ...sessiondata import DEFAULT_MAX_DELTA_BYTES
    from .bodies import body_files, write_bodies

    src = b.out / "_source" / "provider-bodies"
    if b.bodies is None:
        b.bodies = body_files(b.plan, sc)
    write_bodies(b.bodies, src, k)
    c = provider_pass(b.out, src, max_delta_bytes=max_delta_bytes or DEFAULT_MAX_DELTA_BYTES, fsync=False,
                      err=io.StringIO(), stamp_ns=stamp_ns, now_ns=lambda: stamp_ns)
    return c.landed


def rebuild_root(src: Path, dest: Path) -> None:
    """Copy the landed session directories of ``src`` into the new root ``dest`` (no chains, no index, no sources)."""
    dest.mkdir(parents=True, exist_ok=True)
    for p in Path(src).iterdir():
        if p.name.startswith(("_", ".")) or not p.is_dir():
            continue
        shutil.copytree(p, dest / p.name, ignore=shutil.ignore_patterns("index", ".lock", "*.tmp"))
