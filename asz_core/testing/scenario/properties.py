"""The §9.1 properties a scenario build is held to, and the ``lose`` of a checkpoint (origin-digest §9.1, §9.2).

:func:`check_properties` runs every property the expectation leaves on
(``properties: {name: false}`` turns one off) on one build: the general ones
on every format, the runtime ones (:data:`RUNTIME_PROPERTIES`) on
``claude-code`` only, then the wire properties of :mod:`.wire`.
:func:`prop_cross_format` and :func:`prop_records_match` compare the two
formats' builds. Each property reports through a :class:`~.result.Judge`:
one pass, or one ``property NAME: …`` failure line naming what differs.
:func:`fold_equals_parse_now` compares a checkpoint's fold with one full
assembly (§4.3); :func:`lose_after` deletes what a checkpoint's ``lose`` names.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Callable

import attrs

from ...sessiondata import FLAGS, PART_KINDS, STATES, array_elements, object_members, vocabulary
from ...sessiondata.vocabulary import FROM_VALUES
from .build import (Build, build, collect_pass, landed_paths, parse_once, read_fold, rebuild_root, round_paths, source_path,
                    tree_digests)
from .expect import PROPERTIES, Checkpoint, Expectation
from .model import Scenario
from .result import Judge

__all__ = ["SKIPPED_PROPERTIES", "RUNTIME_PROPERTIES", "STEP_KINDS", "check_properties", "prop_cross_format", "prop_records_match",
           "fold_equals_parse_now", "fold_diff", "lose_after", "count_by", "short"]

#: Properties that need a later issue, with the reason printed when skipped (none since issue 21:
#: push, removal, repack and bundle run in :mod:`.wire`).
SKIPPED_PROPERTIES: dict[str, str] = {}


#: Properties that apply only to runtime formats (claude-code), origin-digest §9.1.
RUNTIME_PROPERTIES = ("recollect_idempotent", "every_line_a_record", "parts_keep_source_bytes", "discovery_ignores_noise", "pruned_sources_gone")


#: Step kinds a round header's ``steps`` counts (origin-digest §4.5).
STEP_KINDS = vocabulary.STEP_KINDS


_ROLE_FIELDS = ("id", "parent", "call", "run", "continues", "tool", "child", "batch", "label", "started_by", "from_", "time", "trigger",
                "flags", "usage", "model")


def count_by(fold, kind_of: Callable) -> dict:
    """How many entities of ``fold`` (an iterable) fall under each value of ``kind_of(entity)``: ``{kind: count}``."""
    out: dict = {}
    for e in fold:
        k = kind_of(e)
        out[k] = out.get(k, 0) + 1
    return out


def _bodies(group: dict) -> dict:
    from ...flow.round import entity_body

    return {i: entity_body(e) for i, e in group.items()}


def fold_diff(a, b, *, resolved_ok: bool) -> list[str]:
    """Ids whose entities differ between folds ``a`` and ``b`` (revision ignored)."""
    out = []
    for what in ("nodes", "relations", "unresolved"):
        x, y = _bodies(getattr(a, what)), _bodies(getattr(b, what))
        for i in sorted(set(x) | set(y)):
            if i not in y:
                if what == "unresolved" and resolved_ok and getattr(a, what)[i].state == "resolved":
                    continue
                out.append(f"{what[:-1] if what != 'unresolved' else what} {i}: only in the first")
            elif i not in x:
                out.append(f"{what[:-1] if what != 'unresolved' else what} {i}: only in the second")
            elif x[i] != y[i]:
                out.append(f"{what[:-1] if what != 'unresolved' else what} {i}: differs")
    return out


def short(items: list[str], n: int = 6) -> str:
    """The first ``n`` of ``items`` joined with ``; ``, and how many more (a failure line stays readable)."""
    return "; ".join(items[:n]) + (f"; … {len(items) - n} more" if len(items) > n else "")


def _prop_reproducible(c: Judge, sc: Scenario, b: Build, ex: Expectation, at: str) -> None:
    with tempfile.TemporaryDirectory(prefix="asz-scn-") as tmp:
        again = build(sc, b.fmt, Path(tmp) / "again", at=at, expect=ex, after_stage=lambda x, k: lose_after(x, k, ex.checkpoints))
        x, y = tree_digests(b.out), tree_digests(again.out)
        diff = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
        c.ok(not diff, "property reproducible", f"a second build with the same --at differs in {short(diff)}")


def fold_equals_parse_now(b: Build, k: int, *, fresh: bool = True) -> list[str]:
    """Differences between checkpoint ``k``'s fold and one full assembly through its ``through_seq`` (origin-digest §4.3).

    Run right after the checkpoint's parse, before any ``lose``. First, in
    place: the session's own index is assembled whole through the head
    round's ``through_seq`` and compared with the fold
    (``asz_core.flow.parse.fold_matches_assembly``). Then, when ``fresh``
    (nothing was lost so far), a new root holding copies of the landed files
    is parsed once with no round budget and its fold must equal the chain's
    (revision ignored; entries the chain holds as ``resolved`` may be
    absent). Returns [] when both agree, else the differing ids or why a
    parse failed.
    """
    fold = b.snapshots[k].fold
    if fold is None or fold.head is None:
        return []
    from ...flow.parse import IndexEngine, fold_matches_assembly
    from ...storage.layout import session_dir

    try:
        engine = IndexEngine(update=False)
        handle, _ = engine.watermark(session_dir(b.out, b.plan.session))
        out = ["in place: " + p for p in fold_matches_assembly(fold, engine.assemble(handle, fold.through_seq, fold.head.conversation))]
    except Exception as exc:  # an assembly that cannot run is a difference, not a crash
        out = [f"in place: the assembly failed: {type(exc).__name__}: {exc}"]
    if fresh:
        with tempfile.TemporaryDirectory(prefix="asz-scn-") as tmp:
            dest = Path(tmp) / "once"
            rebuild_root(b.out, dest)
            _, problem = parse_once(dest, b.plan.session, 1 << 40)
            if problem:
                out.append(f"one full parse in a fresh root failed: {problem}")
            else:
                out += ["fresh root: " + d for d in fold_diff(fold, read_fold(dest, b.plan.session), resolved_ok=True)]
    return out


def _prop_immutable_rounds(c: Judge, b: Build) -> None:
    now = {p.name: p.read_bytes() for p in round_paths(b.out, b.plan.session)}
    bad = []
    for s in b.snapshots:
        for name, data in s.round_bytes.items():
            if now.get(name) != data:
                bad.append(f"{name} (written by checkpoint {s.name})")
    c.ok(not bad, "property immutable_rounds", f"rounds changed or vanished after they were written: {short(sorted(set(bad)))}")


def _prop_header_matches_fold(c: Judge, b: Build) -> None:
    for s in b.snapshots:
        f = s.fold
        if f is None or f.head is None:
            continue
        h = f.head
        kinds = count_by(f.nodes.values(), lambda n: n.kind)
        want = {
            "talks": kinds.get("talk", 0),
            "streams": kinds.get("stream", 0),
            "segments": kinds.get("segment", 0),
            "steps": sum(kinds.get(k, 0) for k in STEP_KINDS),
            "unresolved": f.open_unresolved,
            "llm_calls": kinds.get("llm.call", 0),
            "subagents": sum(1 for n in f.nodes.values() if n.kind == "stream" and n.attrs.get("role") == "child"),
        }
        bad = [f"{k} {getattr(h, k)} (fold {v})" for k, v in want.items() if getattr(h, k) is not None and getattr(h, k) != v]
        c.ok(not bad, f"property header_matches_fold at {s.name}", f"round {h.round} header: {', '.join(bad)}")


def _prop_view_covers_the_session(c: Judge, b: Build) -> None:
    """The document built from the head holds every round, every landed file, and every talk, run and step of the fold (seed 004)."""
    from ...view.document import STEP_KINDS as VIEW_STEPS
    from ...view.document import build_view

    for s in b.snapshots[-1:]:
        f = s.fold
        if f is None or f.head is None:
            continue
        where = f"property view_covers_the_session at {s.name}"
        try:
            doc = build_view(b.out, b.plan.session, through_round=f.rounds)
        except Exception as exc:
            c.ok(False, where, f"no document ({type(exc).__name__}: {exc})")
            continue
        shown: set[str] = set()
        stack = list(doc["talks"]) + list(doc["loose"])
        while stack:
            n = stack.pop()
            shown.add(n["id"])
            stack.extend(n.get("children", ()))
        wanted = {n.id for n in f.nodes.values() if n.kind in ("talk", "run") or n.kind in VIEW_STEPS}
        missing = sorted(wanted - shown)
        c.ok(not missing, where, f"{len(missing)} node(s) absent from the document: {', '.join(missing[:5])}")
        c.ok(len(doc["rounds"]) == f.rounds, where, f"rounds: document {len(doc['rounds'])}, chain {f.rounds}")
        landed = {p.relative_to(b.out).as_posix() for p in landed_paths(b.out, b.plan.session)}
        listed = {x["file"] for x in doc["files"] if x["format"] == "sd"}
        through = f.head.through_seq
        on_disk = {p for p in landed if int(p.rsplit("-", 1)[1].split(".")[0]) <= through}
        c.ok(on_disk <= listed, where, f"files not listed: {', '.join(sorted(on_disk - listed)[:5])}")


def _prop_records_well_formed(c: Judge, b: Build) -> None:
    from ...sessiondata import check_file, read_file

    bad = []
    for p in landed_paths(b.out, b.plan.session):
        fc = check_file(p)
        if not fc.ok:
            bad.append(f"{p.name}: {fc.errors[:1] if hasattr(fc, 'errors') else 'not whole'}")
            continue
        _, recs, _ = read_file(p)
        for row, r in enumerate(recs, 1):
            why = []
            if any(f not in FLAGS for f in r.flags):
                why.append(f"flags {r.flags}")
            if r.from_ and r.from_ not in FROM_VALUES:
                why.append(f"from {r.from_!r}")
            for part in r.parts:
                if part.k not in PART_KINDS or part.state not in STATES:
                    why.append(f"part {part.k}/{part.state}")
            if why:
                bad.append(f"{p.name} row {row}: {', '.join(why)}")
    c.ok(not bad, "property records_well_formed", short(bad))


def _prop_recollect_idempotent(c: Judge, b: Build, ex: Expectation) -> None:
    stamp = b.plan.at_ms * 1_000_000 + len(b.snapshots) * 1_000_000_000
    cnt, told = collect_pass(b.out, b.source_root, stamp, ex.max_delta_bytes)
    c.ok(cnt.landed == 0 and not cnt.failed, "property recollect_idempotent", f"a second pass over unchanged sources: {cnt.summary()} {told.strip()}")
    written, problem = parse_once(b.out, b.plan.session, ex.max_round_bytes)
    c.ok(written == 0 and not problem, "property recollect_idempotent", f"a parse after it wrote {written} round(s) {problem}")


def _landed_by_src(b: Build) -> dict:
    from ...sessiondata import read_file

    out: dict = {}
    for p in landed_paths(b.out, b.plan.session):
        h, recs, _ = read_file(p)
        out.setdefault(h.src, []).append((h, recs, p))
    return out


def _prop_every_line_a_record(c: Judge, b: Build) -> None:
    from ...sessiondata import source_sha

    landed = _landed_by_src(b)
    bad = []
    for rel, f in sorted(b.plan.files.items()):
        path = source_path(b.source_root, f)
        if not path.exists():
            if rel in landed:
                bad.append(f"{rel}: no source, yet landed")
            continue
        data = path.read_bytes()
        recs = [r for _, rs, _ in landed.get(rel, []) for r in rs]
        if f.mode == "snapshot":
            if not recs or recs[-1].sha != source_sha(data.rstrip(b"\n")):
                bad.append(f"{rel}: the document's last landed record does not hold it")
            continue
        lines = data.split(b"\n")[:-1]
        if len(lines) != len(recs):
            bad.append(f"{rel}: {len(lines)} lines, {len(recs)} records")
            continue
        for i, (ln, r) in enumerate(zip(lines, recs), 1):
            if r.ord != i or r.sha != source_sha(ln) or r.bytes != len(ln):
                bad.append(f"{rel} line {i}: record ord {r.ord} sha {r.sha} does not match")
                break
    c.ok(not bad, "property every_line_a_record", short(bad))


def _part_data_slices(line: bytes) -> list[tuple[int, str, bytes]]:
    """(part index, part kind, raw bytes of its ``data``) for every part of a landed record line."""
    top = {k: (s, e) for k, s, e in object_members(line, 0)}
    if "parts" not in top:
        return []
    out = []
    for i, (s, e) in enumerate(array_elements(line, top["parts"][0])):
        members = {k: (a, z) for k, a, z in object_members(line, s)}
        if "data" in members:
            kind = line[members["k"][0]:members["k"][1]].decode().strip('"') if "k" in members else ""
            a, z = members["data"]
            out.append((i, kind, line[a:z]))
    return out


def _prop_parts_keep_source_bytes(c: Judge, b: Build) -> None:
    from ...storage.layout import landed_files, session_dir

    srcs = {rel: source_path(b.source_root, f).read_bytes() for rel, f in b.plan.files.items() if source_path(b.source_root, f).exists()}
    bad = []
    for _, p in landed_files(session_dir(b.out, b.plan.session)):
        lines = p.read_bytes().split(b"\n")
        import orjson

        src = orjson.loads(lines[0]).get("src", "")
        source = srcs.get(src)
        if source is None:
            continue
        for row, line in enumerate(lines[1:-2], 1):
            for i, kind, raw in _part_data_slices(line):
                if kind == "unknown":
                    continue
                if raw not in source:
                    bad.append(f"{p.name} row {row} part {i} ({kind}): {raw[:60]!r} is not the source's bytes")
    c.ok(not bad, "property parts_keep_source_bytes", short(bad))


def _prop_discovery_ignores_noise(c: Judge, b: Build) -> None:
    from ...storage.layout import session_dirs

    names = [d.name for d in session_dirs(b.out)]
    c.ok(names == [b.plan.session], "property discovery_ignores_noise", f"sessions landed: {names}, expected only {b.plan.session}")
    landed = _landed_by_src(b)
    bodies = {f.name for f in (b.bodies or ())}  # issue 10: provider body files are sources, not noise
    noise = [src for src in landed if src not in b.plan.files and src not in bodies]
    c.ok(not noise, "property discovery_ignores_noise", f"landed from noise: {short(noise)}")
    skipped = b.counters[0].skipped if b.counters else 0
    c.ok(skipped > 0, "property discovery_ignores_noise", "the first pass skipped nothing, though the project holds noise")


def _prop_pruned_sources_gone(c: Judge, b: Build, ex: Expectation) -> None:
    from ...storage.cursor import read_cursor

    with tempfile.TemporaryDirectory(prefix="asz-scn-") as tmp:
        dest = Path(tmp) / "pruned"
        shutil.copytree(b.out, dest, symlinks=True)
        before = tree_digests(dest, sources=False)
        src_root = dest / "_source"
        for f in b.plan.files.values():
            p = source_path(src_root, f)
            if p.exists():
                p.unlink()
        stamp = b.plan.at_ms * 1_000_000 + (len(b.snapshots) + 1) * 1_000_000_000
        collect_pass(dest, src_root, stamp, ex.max_delta_bytes)
        after = tree_digests(dest, sources=False)
        lost = sorted(k for k in before if k not in after or before[k] != after[k])
        c.ok(not lost, "property pruned_sources_gone", f"landed files changed after their sources went: {short(lost)}")
        states = {}
        for cp in (dest / b.plan.session).rglob("*.cursor"):
            cur = read_cursor(cp)
            states[cp.relative_to(dest).as_posix()] = getattr(cur, "state", "?")
        active = sorted(k for k, v in states.items() if v != "source_gone")
        c.ok(states and not active, "property pruned_sources_gone", f"cursors not source_gone: {short([f'{k} {states[k]}' for k in active])}")


def _shape(fold) -> tuple:
    return (count_by(fold.nodes.values(), lambda n: n.kind), count_by(fold.relations.values(), lambda r: r.type),
            count_by(fold.unresolved.values(), lambda u: (u.kind, u.state)))


def _prop_changes_leave_the_fold(c: Judge, sc: Scenario, b: Build, ex: Expectation, at: str) -> None:
    """The observers' records (changes/1, execution/1) add nothing to the fold: the same build without them folds the same."""
    if not any(ln.file.root == "plugin" for ln in b.plan.lines):
        return
    with tempfile.TemporaryDirectory(prefix="asz-scn-") as tmp:
        bare = build(sc, b.fmt, Path(tmp) / "bare", at=at, expect=ex, observers=False)
        for s1, s2 in zip(b.snapshots, bare.snapshots):
            if s1.fold is None or s2.fold is None:
                continue
            x, y = _shape(s1.fold), _shape(s2.fold)
            c.ok(x == y, f"property changes_leave_the_fold at {s1.name}", f"with the observers' records {x}, without {y}")


def _prop_provider_bodies_leave_the_fold(c: Judge, sc: Scenario, b: Build, ex: Expectation, at: str) -> None:
    """Provider bodies add no node, relation or unresolved entry: the same build without them folds to the same shape (issue 10)."""
    if not sc.provider_bodies:
        return
    with tempfile.TemporaryDirectory(prefix="asz-scn-") as tmp:
        bare = build(attrs.evolve(sc, provider_bodies=False), b.fmt, Path(tmp) / "bare", at=at, expect=ex)
        for s1, s2 in zip(b.snapshots, bare.snapshots):
            if s1.fold is None or s2.fold is None:
                continue
            x, y = _shape(s1.fold), _shape(s2.fold)
            c.ok(x == y, f"property provider_bodies_leave_the_fold at {s1.name}", f"with the provider bodies {x}, without {y}")


def _prop_provider_bodies_rebuild(c: Judge, b: Build) -> None:
    """Every body file written lands, and every landed body rebuilds byte for byte to the file (issue 10; seed 000)."""
    if not b.bodies:
        return
    from ...sessiondata.providerbody import BodyError, Session
    from ...storage.layout import provider_files, session_dir

    s = Session.open(provider_files(session_dir(b.out, b.plan.session)))
    bad = []
    for f in b.bodies:
        rid = f.name[: -len(".json")]
        if rid not in s.records:
            bad.append(f"{f.name}: not landed")
            continue
        try:
            if s.body(rid) != f.data:
                bad.append(f"{f.name}: rebuilt bytes differ")
        except BodyError as exc:
            bad.append(f"{f.name}: {exc}")
    c.ok(not bad, "property provider_bodies_rebuild", short(bad))


def _records(b: Build) -> list:
    from ...sessiondata import read_file

    out = []
    for p in landed_paths(b.out, b.plan.session):
        h, recs, _ = read_file(p)
        out.append((h, recs))
    return out


def _part_view(p) -> tuple:
    return (p.k, p.state, p.id, p.of, p.name, p.server, p.server_tool, p.failed, p.text if p.k in ("text", "result", "reasoning") else None)


def prop_records_match(c: Judge, a: Build, b: Build) -> None:
    """The two formats land the same records: same roles, positions and parts, kind by kind, in order."""
    ra, rb = _records(a), _records(b)
    bad = []
    if len(ra) != len(rb):
        bad.append(f"{len(ra)} landed files in {a.fmt}, {len(rb)} in {b.fmt}")
    for (ha, xa), (hb, xb) in zip(ra, rb):
        key = f"seq {ha.seq} {ha.kind} {ha.stream or ha.batch}"
        for f in ("kind", "src", "stream", "batch", "session"):
            if getattr(ha, f) != getattr(hb, f):
                bad.append(f"{key}: header {f} {getattr(ha, f)!r} vs {getattr(hb, f)!r}")
        if len(xa) != len(xb):
            bad.append(f"{key}: {len(xa)} records vs {len(xb)}")
            continue
        for r1, r2 in zip(xa, xb):
            for f in _ROLE_FIELDS + ("ord", "off", "sha", "bytes"):
                if getattr(r1, f) != getattr(r2, f):
                    bad.append(f"{key} ord {r1.ord}: {f.rstrip('_')} {getattr(r1, f)!r} vs {getattr(r2, f)!r}")
            p1, p2 = [_part_view(p) for p in r1.parts], [_part_view(p) for p in r2.parts]
            if p1 != p2:
                bad.append(f"{key} ord {r1.ord}: parts {p1} vs {p2}")
            d1, d2 = [(d.what, d.bytes, d.why) for d in r1.dropped], [(d.what, d.bytes, d.why) for d in r2.dropped]
            if d1 != d2:
                bad.append(f"{key} ord {r1.ord}: dropped {d1} vs {d2}")
    c.ok(not bad, "property records_match", short(bad, 8))


def prop_cross_format(c: Judge, a: Build, b: Build) -> None:
    """Checkpoint by checkpoint, the claude-code build ``a`` and the sd build ``b`` fold alike (revision ignored)."""
    for sa, sb in zip(a.snapshots, b.snapshots):
        if sa.fold is None or sb.fold is None:
            continue
        diff = fold_diff(sa.fold, sb.fold, resolved_ok=False)
        c.ok(not diff, f"property cross_format at {sa.name}", f"{a.fmt} and {b.fmt} fold differently: {short(diff)}")


def lose_after(b: Build, k: int, checkpoints: dict) -> None:
    """``after_stage`` hook: apply the ``lose`` of the checkpoint stage ``k`` ends, if any."""
    cp = checkpoints.get(b.plan.stage_names[k])
    if cp is not None and cp.lose:
        _lose(b, cp)


def _lose(b: Build, cp: Checkpoint) -> None:
    """Delete the landed files a checkpoint's ``lose`` names (the ``nth`` file of a stream's kind, from 1)."""
    from ...sessiondata import read_file

    for item in cp.lose:
        stream = b.plan.agents.get(item["stream"], item["stream"])
        hits = []
        for p in landed_paths(b.out, b.plan.session):
            h, _, _ = read_file(p)
            if h.kind == item["kind"] and (h.stream or h.batch) == stream:
                hits.append(p)
        n = item.get("nth", 1)
        if 0 < n <= len(hits):
            p = hits[n - 1]
            p.chmod(0o644)
            p.unlink()


def check_properties(c: Judge, sc: Scenario, ex: Expectation, b: Build, at: str) -> None:
    """Run every property ``ex`` leaves on over build ``b``; skipped ones are said with their reason."""
    on = lambda name: ex.properties.get(name, True)  # noqa: E731
    for name in PROPERTIES:
        if not on(name):
            continue
        if name in SKIPPED_PROPERTIES:
            c.skip(f"property {name} ({SKIPPED_PROPERTIES[name]})")
    general = (
        ("reproducible", lambda: _prop_reproducible(c, sc, b, ex, at)),
        ("immutable_rounds", lambda: _prop_immutable_rounds(c, b)),
        ("header_matches_fold", lambda: _prop_header_matches_fold(c, b)),
        ("records_well_formed", lambda: _prop_records_well_formed(c, b)),
        ("view_covers_the_session", lambda: _prop_view_covers_the_session(c, b)),
        ("changes_leave_the_fold", lambda: _prop_changes_leave_the_fold(c, sc, b, ex, at)),
        ("provider_bodies_leave_the_fold", lambda: _prop_provider_bodies_leave_the_fold(c, sc, b, ex, at)),  # issue 10
        ("provider_bodies_rebuild", lambda: _prop_provider_bodies_rebuild(c, b)),  # issue 10
    )
    runtime = (
        ("every_line_a_record", lambda: _prop_every_line_a_record(c, b)),
        ("parts_keep_source_bytes", lambda: _prop_parts_keep_source_bytes(c, b)),
        ("discovery_ignores_noise", lambda: _prop_discovery_ignores_noise(c, b)),
        ("pruned_sources_gone", lambda: _prop_pruned_sources_gone(c, b, ex)),
        # last: it runs another pass and parse on the build itself
        ("recollect_idempotent", lambda: _prop_recollect_idempotent(c, b, ex)),
    )
    for name, run in general + (runtime if b.fmt == "claude-code" else ()):
        if on(name):
            run()
    _wire(c, ex, b, on)


def _wire(c: Judge, ex: Expectation, b: Build, on: Callable[[str], bool]) -> None:
    """Push, removal, repack and bundle (issue 21), on copies of the build, and ``push.kinds``."""
    from .wire import WIRE_PROPERTIES, wire_findings

    if not ex.push_kinds and not any(on(n) for n in WIRE_PROPERTIES):
        return
    try:
        findings = wire_findings(b.out, b.plan.session, on=on, push_kinds=ex.push_kinds, max_delta_bytes=ex.max_delta_bytes,
                                 fold_diff=fold_diff, shape=_shape)
    except Exception as exc:  # a check that cannot run is a failure, not a crash
        findings = [("push_follows_the_wire", False, f"the wire checks could not run: {type(exc).__name__}: {exc}")]
    for name, ok, message in findings:
        c.ok(ok, name if name == "push.kinds" else f"property {name}", message)
