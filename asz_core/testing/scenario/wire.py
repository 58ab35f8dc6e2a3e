"""The scenario properties that need more than one root: push, removal, repack, bundle (origin-digest §9.1; issue 21).

:func:`wire_findings` runs, on copies of one build, what the original's
check runs after a scenario is built:

- ``push_follows_the_wire``: the build is pushed to an ``asz receive`` on
  loopback over gRPC and over HTTP; each receiving root holds every landed
  file and round byte for byte, verifies clean and folds to the same chain;
  a second push sends nothing.
- ``push.kinds``: every kind the expectation lists crossed the wire (each
  received file's header kind, ``round`` for a round). A list is what the push
  must carry, not all it may: ``all-kinds`` lists six kinds while its
  definition says the push carries seven (its MCP ``execution`` file too).
- ``removed_after_sent``: once sent, retention (``after: 0``, only what the
  receiver accepted) removes the session; every landed file leaves its
  skeleton, verify is clean, a fresh parse of the skeletons folds as the
  chain does, and the document keeps its state, saying ``removed`` where
  the content went.
- ``repack_keeps_structure``: ``asz repack`` under the build's budget keeps
  every record line in order, verifies clean and folds to the shape of one
  full parse.
- ``bundle``: the files that travelled (the landed files a receiver holds,
  without its rounds) parse in a fresh root to the fold of the received chain.

Each finding is ``(name, ok, message)``; ``name`` is the property (or
``push.kinds``). Comparisons of folds are given by the caller
(``fold_diff(a, b, resolved_ok=…)`` → differing ids, ``shape(fold)``).
"""

from __future__ import annotations

import hashlib
import io
import shutil
import tempfile
from pathlib import Path
from typing import Callable

from ...export.push import push
from ...export.receive import Receiver
from ...export.settings import ExportConfig, RetentionConfig
from ...export.state import PushState
from ...retention.prune import prune
from ...retention.repack import RepackRefused, RepackUnverified, repack
from ...sessiondata import DEFAULT_MAX_DELTA_BYTES, read_file
from ...storage.layout import landed_files, session_dir
from ...verify import verify
from .build import parse_once, read_fold, rebuild_root

__all__ = ["wire_findings", "WIRE_PROPERTIES"]

#: The properties :func:`wire_findings` checks.
WIRE_PROPERTIES = ("push_follows_the_wire", "removed_after_sent", "repack_keeps_structure", "bundle")


def _sent(root: Path) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not p.name.startswith(".") and (p.suffix == ".sd" or (p.suffix == ".sf" and "/rounds/" in rel)):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _kinds(root: Path) -> set[str]:
    kinds = set()
    for rel in _sent(root):
        kinds.add("round" if rel.endswith(".sf") else read_file(root / rel)[0].kind)
    return kinds


def _lines(root: Path, session: str) -> dict[tuple, list[bytes]]:
    out: dict[tuple, list[bytes]] = {}
    sdir = session_dir(root, session)
    for ln, p in landed_files(sdir):
        out.setdefault((p.parent.relative_to(sdir).as_posix(), ln.kind), []).extend(p.read_bytes().split(b"\n")[1:-2])
    return out


def _short(items: list[str], n: int = 6) -> str:
    return "; ".join(items[:n]) + (f"; … {len(items) - n} more" if len(items) > n else "")


def _fresh_fold(src: Path, dest: Path, session: str):
    rebuild_root(src, dest)
    _, problem = parse_once(dest, session, 1 << 40)
    if problem:
        raise RuntimeError(f"one full parse in a fresh root failed: {problem}")
    return read_fold(dest, session)


def _push_both(tmp: Path, pushed: Path, session: str, fold, fold_diff: Callable, out: list) -> Path | None:
    """Push to a receiver over each protocol; findings for push_follows_the_wire. Returns the gRPC receiver's root."""
    want = _sent(pushed)
    first = None
    for proto in ("grpc", "http"):
        rcv = Receiver(tmp / f"received-{proto}", "127.0.0.1:0", err=io.StringIO()).start().serve_in_thread()
        try:
            rep = push(pushed, ExportConfig(metrics=False), endpoint=f"{proto}://{rcv.address}", err=io.StringIO())
            again = push(pushed, ExportConfig(metrics=False), endpoint=f"{proto}://{rcv.address}", err=io.StringIO())
        finally:
            rcv.stop()
        got = _sent(rcv.root)
        where = f"push_follows_the_wire ({proto})"
        out.append((where, rep.ok and rep.files == len(want), f"push: {rep.summary()} {'; '.join(rep.problems)}"))
        out.append((where, got == want, f"received files differ: {_short(sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k)))}"))
        # A second push sends no file; with nothing due it makes one empty logs request, which lands nothing and
        # checks the endpoint still takes this root's token (docs/push.md; trial 24a, F8); got == want above shows
        # nothing more landed.
        out.append((where, again.files == 0 and again.requests <= 1,
                    f"a second push sent {again.files} file(s) in {again.requests} request(s)"))
        rv = verify(rcv.root)
        out.append((where, rv.ok, f"the receiving root does not verify: {_short(rv.lines())}"))
        if fold is not None:
            diff = fold_diff(fold, read_fold(rcv.root, session), resolved_ok=False)
            out.append((where, not diff, f"the received chain folds differently: {_short(diff)}"))
        first = first or rcv.root
    return first


def _removal(tmp: Path, pushed: Path, session: str, fold, fold_diff: Callable, out: list) -> None:
    from ...view import build_view

    before = build_view(pushed, session) if fold is not None else None
    # the receiver pushed to last stands for the configured endpoint (retention counts only its acceptance)
    rep = prune(pushed, RetentionConfig(after=0.0), endpoint=PushState.load(pushed).endpoint, instance_id="scenario@check")
    name = "removed_after_sent"
    out.append((name, rep.removed == [session] and not rep.problems,
                f"retention removed {rep.removed}, kept {[(k.session, k.reason) for k in rep.kept]} {rep.problems}"))
    files = landed_files(session_dir(pushed, session), skeletons=True)
    out.append((name, bool(files) and all(p.suffix == ".sk" for _, p in files),
                f"landed files left beside the skeletons: {_short([p.name for _, p in files if p.suffix != '.sk'])}"))
    rv = verify(pushed)
    out.append((name, rv.ok, f"the pruned root does not verify: {_short(rv.lines())}"))
    if fold is None:
        return
    try:
        diff = fold_diff(fold, _fresh_fold(pushed, tmp / "from-skeletons", session), resolved_ok=True)
    except RuntimeError as exc:
        diff = [str(exc)]
    out.append((name, not diff, f"a parse of the skeletons folds differently: {_short(diff)}"))
    after = build_view(pushed, session)
    out.append((name, after["summary"]["state"] == before["summary"]["state"],
                f"the document says {after['summary']['state']} after removal, {before['summary']['state']} before: {after['summary'].get('problems')}"))
    out.append((name, b'"state":"removed"' in __import__("orjson").dumps(after), "the document says removed nowhere"))


def _repack(tmp: Path, build_root: Path, session: str, budget: int, shape: Callable, out: list) -> None:
    name = "repack_keeps_structure"
    dest = tmp / "repacked"
    try:
        rows = repack(build_root, dest, session, budget=budget)
    except RepackRefused as exc:  # the build does not verify: its own property says why
        out.append((name, False, f"repack refused: {_short([str(p) for p in exc.problems])}"))
        return
    except RepackUnverified as exc:  # DEST written, and it does not verify
        out.append((name, False, f"the repacked root does not verify: {_short([str(p) for p in exc.problems])}"))
        return
    out.append((name, all(not r.problem for r in rows), f"repack refused: {[r.problem for r in rows if r.problem]}"))
    out.append((name, _lines(dest, session) == _lines(build_root, session), "record lines differ after repack"))
    rv = verify(dest)
    out.append((name, rv.ok, f"the repacked root does not verify: {_short(rv.lines())}"))
    try:
        want = shape(_fresh_fold(build_root, tmp / "one-parse", session))
        got = shape(read_fold(dest, session))
    except Exception as exc:  # noqa: BLE001 - a chain that does not read is a finding
        want, got = None, f"{type(exc).__name__}: {exc}"
    out.append((name, got == want, f"the repacked root folds to {got}, one full parse of the build to {want}"))


def wire_findings(build_root: Path, session: str, *, on: Callable[[str], bool], push_kinds: tuple[str, ...],
                  max_delta_bytes: int | None, fold_diff: Callable, shape: Callable) -> list[tuple[str, bool, str]]:
    """Findings ``(name, ok, message)`` of the wire properties that are ``on`` for the build at ``build_root``."""
    out: list[tuple[str, bool, str]] = []
    try:
        fold = read_fold(build_root, session)
    except Exception:  # noqa: BLE001 - no chain: push and removal still run, fold checks do not
        fold = None
    with tempfile.TemporaryDirectory(prefix="asz-wire-") as t:
        tmp = Path(t)
        pushed = tmp / "pushed"
        shutil.copytree(build_root, pushed, symlinks=True, ignore=shutil.ignore_patterns("_source", ".lock"))
        if on("push_follows_the_wire") or on("bundle") or on("removed_after_sent") or push_kinds:
            received = _push_both(tmp, pushed, session, fold, fold_diff, out)
            if push_kinds and received is not None:
                got = _kinds(received)
                missing = sorted(set(push_kinds) - got)
                out.append(("push.kinds", not missing, f"kinds that did not cross the wire: {missing} (it carried {sorted(got)})"))
            if on("bundle") and received is not None:
                try:
                    diff = fold_diff(read_fold(received, session), _fresh_fold(received, tmp / "bundle", session), resolved_ok=True)
                except Exception as exc:  # noqa: BLE001
                    diff = [f"{type(exc).__name__}: {exc}"]
                out.append(("bundle", not diff, f"the landed files that travelled fold differently from the chain: {_short(diff)}"))
            if on("removed_after_sent"):
                _removal(tmp, pushed, session, fold, fold_diff, out)
        if on("repack_keeps_structure"):
            _repack(tmp, build_root, session, max_delta_bytes or DEFAULT_MAX_DELTA_BYTES, shape, out)
    return [f for f in out if f[0].split(" ")[0] == "push.kinds" or on(f[0].split(" ")[0])]
