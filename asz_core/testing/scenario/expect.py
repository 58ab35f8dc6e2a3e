"""``NAME.expect.yaml`` as typed data: what a scenario's landed and parsed result must hold (origin-digest §9.1).

An :class:`Expectation` holds one :class:`Checkpoint` per checkpoint name
(counts of rounds, node kinds, relations and unresolved entries, node by
node :class:`NodeExpect`, session offsets in ms, view values, landed files
to ``lose``), the §9.1 properties switched on or off (:data:`PROPERTIES`,
all on by default) and the collect and parse budgets in bytes. A key the
language does not have is refused with :class:`~.fields.ScenarioError`
naming the file and key path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from .fields import Where, load_yaml, read_bool, read_dur, read_int, read_list, read_map, read_str, scenario_name

__all__ = ["NodeExpect", "Checkpoint", "Expectation", "PROPERTIES", "expectation_from_dict", "load_expectation"]


@attrs.frozen
class NodeExpect:
    """What one node must be: ``kind``, ``stream``, number of ``refs``, ``revision``, ``absent``, and
    ``attrs`` (a None value = the attribute is absent). Unset fields are not checked."""

    kind: str | None = None
    stream: str | None = None
    refs: int | None = None
    revision: int | None = None
    absent: bool | None = None
    attrs: dict | None = None


@attrs.frozen
class Checkpoint:
    """Expectations at one checkpoint (origin-digest §9.1). Every field None = not checked.

    ``session`` holds ``from``/``to`` offsets in ms from the build's ``--at``; ``lose`` lists
    ``{stream, kind, nth}`` landed files deleted after this checkpoint's parse; ``view`` is kept raw
    (the view document is a later issue).
    """

    name: str
    rounds: int | None = None
    written: bool | None = None
    delta: bool | None = None
    kinds: dict | None = None
    talks_on: dict | None = None
    runs_in: dict | None = None
    relations: dict | None = None
    unresolved: dict | None = None
    unresolved_kinds: dict | None = None
    nodes: dict | None = None
    session: dict | None = None
    view: dict | None = None
    verify: dict | None = None
    lose: tuple[dict, ...] = ()


@attrs.frozen
class Expectation:
    """A whole ``NAME.expect.yaml``: ``checkpoints`` by name, ``properties`` switched {name: bool},
    ``max_delta_bytes`` (collect budget) and ``max_round_bytes`` (parse budget), ``push_kinds``."""

    name: str
    path: str = ""
    checkpoints: dict = attrs.Factory(dict)
    properties: dict = attrs.Factory(dict)
    max_delta_bytes: int | None = None
    max_round_bytes: int | None = None
    push_kinds: tuple[str, ...] = ()


_CHECKPOINT_KEYS = ("rounds", "written", "delta", "kinds", "talks_on", "runs_in", "relations", "unresolved",
                    "unresolved_kinds", "nodes", "session", "view", "verify", "lose")


_VIEW_KEYS = ("state", "problems", "talks", "files", "rounds", "first_talk", "provider_bodies", "captured_prompts",
              "provider_files", "flags", "hide", "withheld", "changes", "changed_files", "changes_joined",
              "captured_by", "executions", "executions_joined", "outcomes")


#: Every property of origin-digest §9.1 (all default on).
PROPERTIES = ("reproducible", "fold_equals_parse", "immutable_rounds", "bundle", "header_matches_fold",
              "records_well_formed", "repack_keeps_structure", "recollect_idempotent", "every_line_a_record",
              "parts_keep_source_bytes", "discovery_ignores_noise", "pruned_sources_gone", "cross_format",
              "records_match", "push_follows_the_wire", "removed_after_sent", "view_covers_the_session",
              "changes_leave_the_fold", "provider_bodies_leave_the_fold", "provider_bodies_rebuild")


def _count_map(v: Any, ctx: Where) -> dict:
    d = read_map(v, ctx, tuple(v.keys()) if isinstance(v, dict) else ())
    return {str(k): read_int(n, ctx.at(k)) for k, n in d.items()}


def _checkpoint(name: str, v: Any, ctx: Where) -> Checkpoint:
    d = read_map(v, ctx, _CHECKPOINT_KEYS)
    f: dict[str, Any] = {}
    for k in ("rounds",):
        if k in d:
            f[k] = read_int(d[k], ctx.at(k))
    for k in ("written", "delta"):
        if k in d:
            f[k] = read_bool(d[k], ctx.at(k))
    for k in ("kinds", "talks_on", "runs_in", "relations"):
        if k in d:
            f[k] = _count_map(d[k], ctx.at(k))
    if "unresolved" in d:
        f["unresolved"] = {k: read_int(n, ctx.at("unresolved").at(k)) for k, n in read_map(d["unresolved"], ctx.at("unresolved"), ("open", "resolved")).items()}
    if "unresolved_kinds" in d:
        uk = d["unresolved_kinds"]
        c = ctx.at("unresolved_kinds")
        if not isinstance(uk, dict):
            raise c.fail("expected a mapping")
        for k, s in uk.items():
            if s not in ("open", "resolved", "none"):
                raise c.at(k).fail(f"expected open, resolved or none, got {s!r}")
        f["unresolved_kinds"] = dict(uk)
    if "nodes" in d:
        c = ctx.at("nodes")
        if not isinstance(d["nodes"], dict):
            raise c.fail("expected a mapping")
        nodes = {}
        for nid, nv in d["nodes"].items():
            nc = c.at(nid)
            nd = read_map(nv, nc, ("kind", "stream", "refs", "revision", "absent", "attrs"))
            a = nd.get("attrs")
            if a is not None and not isinstance(a, dict):
                raise nc.at("attrs").fail("expected a mapping")
            nodes[str(nid)] = NodeExpect(
                kind=None if nd.get("kind") is None else read_str(nd["kind"], nc.at("kind")),
                stream=None if nd.get("stream") is None else read_str(nd["stream"], nc.at("stream")),
                refs=read_int(nd["refs"], nc.at("refs")) if "refs" in nd else None,
                revision=read_int(nd["revision"], nc.at("revision")) if "revision" in nd else None,
                absent=read_bool(nd["absent"], nc.at("absent")) if "absent" in nd else None,
                attrs=a,
            )
        f["nodes"] = nodes
    if "session" in d:
        c = ctx.at("session")
        sd = read_map(d["session"], c, ("from", "to"))
        f["session"] = {k: read_dur(v2, c.at(k)) for k, v2 in sd.items()}
    if "view" in d:
        f["view"] = dict(read_map(d["view"], ctx.at("view"), _VIEW_KEYS))
    if "verify" in d:
        vd = read_map(d["verify"], ctx.at("verify"), ("problems",))
        f["verify"] = {k: read_int(n, ctx.at("verify").at(k)) for k, n in vd.items()}
    if "lose" in d:
        c = ctx.at("lose")
        items = []
        for i, it in enumerate(read_list(d["lose"], c)):
            ic = c.at(i)
            idd = read_map(it, ic, ("stream", "kind", "nth"))
            items.append({"stream": read_str(idd.get("stream"), ic.at("stream"), "main"), "kind": read_str(idd.get("kind"), ic.at("kind"), "transcript"),
                          "nth": read_int(idd["nth"], ic.at("nth")) if "nth" in idd else 1})
        f["lose"] = tuple(items)
    return Checkpoint(name=name, **f)


def expectation_from_dict(data: Any, name: str, path: str = "") -> Expectation:
    """Build an :class:`Expectation` from the YAML value ``data``. Raises ScenarioError naming ``path`` and the key."""
    ctx = Where(path or name)
    d = read_map(data, ctx, ("checkpoints", "properties", "collect", "parse", "push"))
    cps = {}
    c = ctx.at("checkpoints")
    raw = d.get("checkpoints") or {}
    if not isinstance(raw, dict):
        raise c.fail("expected a mapping")
    for k, v in raw.items():
        cps[str(k)] = _checkpoint(str(k), v, c.at(k))
    props = {}
    pc = ctx.at("properties")
    for k, v in read_map(d.get("properties"), pc, PROPERTIES).items():
        props[k] = read_bool(v, pc.at(k))
    coll = read_map(d.get("collect"), ctx.at("collect"), ("max_delta_bytes",))
    parse = read_map(d.get("parse"), ctx.at("parse"), ("max_round_bytes",))
    push = read_map(d.get("push"), ctx.at("push"), ("kinds",))
    return Expectation(
        name=name,
        path=path,
        checkpoints=cps,
        properties=props,
        max_delta_bytes=read_int(coll["max_delta_bytes"], ctx.at("collect").at("max_delta_bytes")) if "max_delta_bytes" in coll else None,
        max_round_bytes=read_int(parse["max_round_bytes"], ctx.at("parse").at("max_round_bytes")) if "max_round_bytes" in parse else None,
        push_kinds=tuple(read_str(k, ctx.at("push").at("kinds")) for k in read_list(push.get("kinds"), ctx.at("push").at("kinds"))),
    )


def load_expectation(path: str | Path) -> Expectation:
    """Read ``NAME.expect.yaml``. Raises ScenarioError (unreadable, not YAML, unknown key)."""
    p = Path(path)
    return expectation_from_dict(load_yaml(p), scenario_name(p), str(p))
