"""The scenario language as typed data (origin-digest §9.1).

A scenario is ``NAME.yaml`` (what happened, in the model's words) beside
``NAME.expect.yaml`` (what the landed and parsed result must hold). Both are
read with PyYAML and turned into the attrs classes below; a key the language
does not have is refused with :class:`ScenarioError` naming the file and the
key path, never ignored.

Durations are written Go style (``1s``, ``100ms``, ``1000s``, ``+11.1s``)
and held as integer milliseconds.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import attrs
import yaml

__all__ = [
    "ScenarioError",
    "Usage",
    "Change",
    "Execution",
    "ToolResult",
    "Tool",
    "Agent",
    "Skill",
    "WorkflowChild",
    "Workflow",
    "Call",
    "Inject",
    "Queued",
    "ResultStep",
    "Reset",
    "System",
    "Step",
    "ToolSchema",
    "Scenario",
    "NodeExpect",
    "Checkpoint",
    "Expectation",
    "PROPERTIES",
    "parse_duration_ms",
    "scenario_name",
    "load_scenario",
    "load_expectation",
    "scenario_from_dict",
    "expectation_from_dict",
]


class ScenarioError(ValueError):
    """A scenario or expectation file that cannot be read: ``path`` and ``message`` name the place.

    The CLI maps it to exit code 2 (usage).
    """

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


_UNIT_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1000.0, "m": 60000.0, "h": 3600000.0}


def parse_duration_ms(value: Any, where: str = "duration") -> int:
    """``"1s"`` → 1000, ``"100ms"`` → 100, ``"+11.1s"`` → 11100, ``0`` → 0 (milliseconds, int).

    Several parts (``1m30s``) add up. Raises ValueError naming ``where`` for
    anything else (a bare number other than 0, a negative value, no unit).
    """
    if value == 0 or value == "0":
        return 0
    s = str(value).strip()
    total = 0.0
    pos = 1 if s.startswith("+") else 0
    part = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
    if pos >= len(s):
        raise ValueError(f"{where}: {value!r} is not a duration such as 1s or 100ms")
    while pos < len(s):
        m = part.match(s, pos)
        if not m:
            raise ValueError(f"{where}: {value!r} is not a duration such as 1s or 100ms")
        total += float(m.group(1)) * _UNIT_MS[m.group(2)]
        pos = m.end()
    return int(round(total))


# --------------------------------------------------------------------------- reading helpers


class _Ctx:
    """Where a value sits: file path and key path, for error messages."""

    def __init__(self, path: str, keys: str = ""):
        self.path = path
        self.keys = keys

    def at(self, key: Any) -> "_Ctx":
        if isinstance(key, int):
            return _Ctx(self.path, f"{self.keys}[{key}]")
        return _Ctx(self.path, f"{self.keys}.{key}" if self.keys else str(key))

    def fail(self, message: str) -> ScenarioError:
        return ScenarioError(self.path, f"{self.keys}: {message}" if self.keys else message)


def _map(v: Any, ctx: _Ctx, allowed: tuple[str, ...]) -> dict:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ctx.fail(f"expected a mapping, got {type(v).__name__}")
    for k in v:
        if k not in allowed:
            raise ctx.fail(f"unknown key {k!r} (allowed: {', '.join(allowed)})")
    return v


def _str(v: Any, ctx: _Ctx, default: str = "") -> str:
    if v is None:
        return default
    if isinstance(v, bool) or isinstance(v, (dict, list)):
        raise ctx.fail(f"expected text, got {type(v).__name__}")
    return str(v)


def _bool(v: Any, ctx: _Ctx, default: bool = False) -> bool:
    if v is None:
        return default
    if not isinstance(v, bool):
        raise ctx.fail(f"expected true or false, got {v!r}")
    return v


def _int(v: Any, ctx: _Ctx) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ctx.fail(f"expected an integer, got {v!r}")
    return v


def _dur(v: Any, ctx: _Ctx) -> int | None:
    if v is None:
        return None
    try:
        return parse_duration_ms(v, ctx.keys)
    except ValueError as exc:
        raise ctx.fail(str(exc).split(": ", 1)[-1]) from None


def _list(v: Any, ctx: _Ctx) -> list:
    if v is None:
        return []
    if not isinstance(v, list):
        raise ctx.fail(f"expected a list, got {type(v).__name__}")
    return v


# --------------------------------------------------------------------------- scenario model


@attrs.frozen
class Usage:
    """Provider usage of a call: tokens in, out, cache read, cache write (None = the builder's default)."""

    in_: int | None = None
    out: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None


@attrs.frozen
class Change:
    """One file a tool changed: relative ``path``, content ``before`` and ``after`` (None = absent)."""

    path: str
    before: str | None = None
    after: str | None = None


@attrs.frozen
class Execution:
    """The plugin's observation of an MCP call: ``server`` name, ``source`` (user, project…), ``duration_ms``."""

    server: str = ""
    source: str = ""
    duration_ms: int | None = None


@attrs.frozen
class ToolResult:
    """What a tool returned: ``text``; ``after_ms`` delay from the request; ``lost`` (never reached
    the file); ``string`` (``toolUseResult`` is a bare string); ``failed`` (``is_error``)."""

    text: str = ""
    after_ms: int | None = None
    lost: bool = False
    string: bool = False
    failed: bool | None = None


@attrs.frozen
class Tool:
    """A tool request: ``id`` ('' = position-derived ``s<N>-tool``), ``name``, ``input`` (JSON value),
    ``result`` (None = never arrived), ``changes`` and an MCP ``execution``."""

    name: str
    id: str = ""
    input: Any = attrs.Factory(dict)
    result: ToolResult | None = None
    changes: tuple[Change, ...] = ()
    execution: Execution | None = None


@attrs.frozen
class ToolSchema:
    """An advertised tool: ``name``, ``description``, ``input_schema`` (JSON value or None)."""

    name: str
    description: str = ""
    input_schema: Any = None


@attrs.frozen
class Agent:
    """A child agent launched by the ``Agent`` tool: its ``name`` (label), ``prompt``, delay ``after_ms``
    before its first record, its own ``steps``, whether it ``notify``-s the parent, whether its file
    is ``lost``; optional ``system_prompt``/``tools`` for its provider bodies."""

    name: str
    prompt: str = ""
    after_ms: int | None = None
    steps: tuple["Step", ...] = ()
    notify: bool = False
    lost: bool = False
    system_prompt: str = ""
    tools: tuple[ToolSchema, ...] = ()


@attrs.frozen
class Skill:
    """A skill run as a forked child: skill ``name``, child ``agent`` name ('' = the skill name), ``steps``."""

    name: str
    agent: str = ""
    steps: tuple["Step", ...] = ()


@attrs.frozen
class WorkflowChild:
    """One child of a workflow run: ``name``, ``prompt``, ``steps``."""

    name: str
    prompt: str = ""
    steps: tuple["Step", ...] = ()


@attrs.frozen
class Workflow:
    """A workflow run: ``name``, the project dir its script is filed under (``script_project``, '' = the
    session's), and its ``children``."""

    name: str
    script_project: str = ""
    children: tuple[WorkflowChild, ...] = ()


@attrs.frozen
class Call:
    """One provider call: ``thinking`` (None none, ``"unavailable"`` = no text, else the text), ``text``,
    at most one of ``tool``/``agent``/``skill``/``workflow``, and ``usage``."""

    thinking: str | None = None
    text: str | None = None
    tool: Tool | None = None
    agent: Agent | None = None
    skill: Skill | None = None
    workflow: Workflow | None = None
    usage: Usage = Usage()


@attrs.frozen
class Inject:
    """An injection (attachment): ``type`` and ``text``; a ``prompt_snapshot`` carries ``system_prompt`` and ``tools``."""

    type: str
    text: str | None = None
    system_prompt: str | None = None
    tools: tuple[ToolSchema, ...] = ()


@attrs.frozen
class Queued:
    """A queued command attachment: ``text`` and ``mode`` (``prompt`` or ``task-notification``)."""

    text: str
    mode: str = "prompt"


@attrs.frozen
class ResultStep:
    """A tool result arriving on its own: tool id ``of``, ``text``, delay ``after_ms``, ``failed``, ``string``, ``lost``."""

    of: str
    text: str = ""
    after_ms: int | None = None
    failed: bool | None = None
    string: bool = False
    lost: bool = False


@attrs.frozen
class Reset:
    """An explicit context reset (compaction) with the ``summary`` carried forward."""

    summary: str = ""


@attrs.frozen
class System:
    """A ``system`` record of ``subtype`` with extra ``fields`` (a mapping written into the record)."""

    subtype: str
    fields: dict = attrs.Factory(dict)


@attrs.frozen
class Step:
    """One step; exactly one of the kind fields is set (``kind`` names it). ``after_ms`` replaces the
    scenario interval before the step; ``checkpoint`` names the state after it; ``lost`` removes the
    step's own records from the source."""

    kind: str
    input: str | None = None
    queued: Queued | None = None
    inject: Inject | None = None
    call: Call | None = None
    result: ResultStep | None = None
    error: str | None = None
    reset: Reset | None = None
    replay: int | None = None
    system: System | None = None
    after_ms: int | None = None
    checkpoint: str = ""
    lost: bool = False


@attrs.frozen
class Scenario:
    """A whole scenario file (origin-digest §9.1). ``name`` is the file name without ``.yaml``.

    ``session`` ('' = derived from the name), ``project`` ('' = derived), ``title``, ``interval_ms``
    (default 1000), ``entrypoint``, ``provider_bodies``, ``system_prompt``, ``tools``, ``steps``.
    """

    name: str
    path: str = ""
    session: str = ""
    project: str = ""
    title: str = ""
    interval_ms: int = 1000
    entrypoint: str = ""
    provider_bodies: bool = False
    system_prompt: str = ""
    tools: tuple[ToolSchema, ...] = ()
    steps: tuple[Step, ...] = ()

    def checkpoints(self) -> list[str]:
        """Checkpoint names in step order, then ``final`` (always last)."""
        names = [s.checkpoint for s in self.steps if s.checkpoint]
        return names + ["final"]


_STEP_KINDS = ("input", "queued", "inject", "call", "result", "error", "reset", "replay", "system")
_STEP_KEYS = _STEP_KINDS + ("after", "checkpoint", "lost")


def _usage(v: Any, ctx: _Ctx) -> Usage:
    d = _map(v, ctx, ("in", "out", "cache_read", "cache_write"))
    return Usage(
        in_=_int(d["in"], ctx.at("in")) if "in" in d else None,
        out=_int(d["out"], ctx.at("out")) if "out" in d else None,
        cache_read=_int(d["cache_read"], ctx.at("cache_read")) if "cache_read" in d else None,
        cache_write=_int(d["cache_write"], ctx.at("cache_write")) if "cache_write" in d else None,
    )


def _tool_schemas(v: Any, ctx: _Ctx) -> tuple[ToolSchema, ...]:
    out = []
    for i, item in enumerate(_list(v, ctx)):
        c = ctx.at(i)
        d = _map(item, c, ("name", "description", "input_schema"))
        if "name" not in d:
            raise c.fail("a tool needs a name")
        out.append(ToolSchema(_str(d["name"], c.at("name")), _str(d.get("description"), c.at("description")), d.get("input_schema")))
    return tuple(out)


def _tool_result(v: Any, ctx: _Ctx) -> ToolResult | None:
    if v is None:
        return None
    if not isinstance(v, dict):
        return ToolResult(text=_str(v, ctx))
    d = _map(v, ctx, ("text", "after", "lost", "string", "failed"))
    return ToolResult(
        text=_str(d.get("text"), ctx.at("text")),
        after_ms=_dur(d.get("after"), ctx.at("after")),
        lost=_bool(d.get("lost"), ctx.at("lost")),
        string=_bool(d.get("string"), ctx.at("string")),
        failed=_bool(d["failed"], ctx.at("failed")) if "failed" in d else None,
    )


def _tool(v: Any, ctx: _Ctx) -> Tool:
    d = _map(v, ctx, ("id", "name", "input", "result", "changes", "execution"))
    if "name" not in d:
        raise ctx.fail("a tool needs a name")
    changes = []
    for i, c in enumerate(_list(d.get("changes"), ctx.at("changes"))):
        cc = ctx.at("changes").at(i)
        cd = _map(c, cc, ("path", "before", "after"))
        if "path" not in cd:
            raise cc.fail("a change needs a path")
        changes.append(Change(_str(cd["path"], cc.at("path")), cd.get("before"), cd.get("after")))
    execution = None
    if d.get("execution") is not None:
        ec = ctx.at("execution")
        ed = _map(d["execution"], ec, ("server", "source", "duration"))
        execution = Execution(_str(ed.get("server"), ec.at("server")), _str(ed.get("source"), ec.at("source")),
                              _dur(ed.get("duration"), ec.at("duration")))
    inp = d.get("input")
    return Tool(
        name=_str(d["name"], ctx.at("name")),
        id=_str(d.get("id"), ctx.at("id")),
        input={} if inp is None else inp,
        result=_tool_result(d.get("result"), ctx.at("result")),
        changes=tuple(changes),
        execution=execution,
    )


def _steps(v: Any, ctx: _Ctx) -> tuple[Step, ...]:
    return tuple(_step(item, ctx.at(i)) for i, item in enumerate(_list(v, ctx)))


def _agent(v: Any, ctx: _Ctx) -> Agent:
    d = _map(v, ctx, ("name", "prompt", "after", "system_prompt", "tools", "steps", "notify", "lost"))
    if "name" not in d:
        raise ctx.fail("an agent needs a name")
    return Agent(
        name=_str(d["name"], ctx.at("name")),
        prompt=_str(d.get("prompt"), ctx.at("prompt")),
        after_ms=_dur(d.get("after"), ctx.at("after")),
        steps=_steps(d.get("steps"), ctx.at("steps")),
        notify=_bool(d.get("notify"), ctx.at("notify")),
        lost=_bool(d.get("lost"), ctx.at("lost")),
        system_prompt=_str(d.get("system_prompt"), ctx.at("system_prompt")),
        tools=_tool_schemas(d.get("tools"), ctx.at("tools")),
    )


def _call(v: Any, ctx: _Ctx) -> Call:
    d = _map(v, ctx, ("thinking", "text", "tool", "agent", "skill", "workflow", "usage"))
    actions = [k for k in ("tool", "agent", "skill", "workflow") if d.get(k) is not None]
    if len(actions) > 1:
        raise ctx.fail(f"a call holds at most one of tool, agent, skill, workflow; got {', '.join(actions)}")
    skill = workflow = None
    if d.get("skill") is not None:
        sc = ctx.at("skill")
        sd = _map(d["skill"], sc, ("name", "agent", "steps"))
        if "name" not in sd:
            raise sc.fail("a skill needs a name")
        skill = Skill(_str(sd["name"], sc.at("name")), _str(sd.get("agent"), sc.at("agent")), _steps(sd.get("steps"), sc.at("steps")))
    if d.get("workflow") is not None:
        wc = ctx.at("workflow")
        wd = _map(d["workflow"], wc, ("name", "script_project", "children"))
        if "name" not in wd:
            raise wc.fail("a workflow needs a name")
        children = []
        for i, ch in enumerate(_list(wd.get("children"), wc.at("children"))):
            cc = wc.at("children").at(i)
            cd = _map(ch, cc, ("name", "prompt", "steps"))
            if "name" not in cd:
                raise cc.fail("a workflow child needs a name")
            children.append(WorkflowChild(_str(cd["name"], cc.at("name")), _str(cd.get("prompt"), cc.at("prompt")), _steps(cd.get("steps"), cc.at("steps"))))
        workflow = Workflow(_str(wd["name"], wc.at("name")), _str(wd.get("script_project"), wc.at("script_project")), tuple(children))
    thinking = d.get("thinking")
    return Call(
        thinking=None if thinking is None else _str(thinking, ctx.at("thinking")),
        text=None if d.get("text") is None else _str(d["text"], ctx.at("text")),
        tool=_tool(d["tool"], ctx.at("tool")) if d.get("tool") is not None else None,
        agent=_agent(d["agent"], ctx.at("agent")) if d.get("agent") is not None else None,
        skill=skill,
        workflow=workflow,
        usage=_usage(d.get("usage"), ctx.at("usage")),
    )


def _step(v: Any, ctx: _Ctx) -> Step:
    d = _map(v, ctx, _STEP_KEYS)
    kinds = [k for k in _STEP_KINDS if k in d]
    if len(kinds) != 1:
        raise ctx.fail(f"a step is exactly one of {', '.join(_STEP_KINDS)}; got {', '.join(kinds) or 'none'}")
    kind = kinds[0]
    val = d[kind]
    c = ctx.at(kind)
    fields: dict[str, Any] = {}
    if kind == "input":
        fields["input"] = _str(val, c)
    elif kind == "error":
        fields["error"] = _str(val, c)
    elif kind == "queued":
        qd = _map(val, c, ("text", "mode"))
        mode = _str(qd.get("mode"), c.at("mode"), "prompt")
        if mode not in ("prompt", "task-notification"):
            raise c.at("mode").fail(f"mode is prompt or task-notification, not {mode!r}")
        fields["queued"] = Queued(_str(qd.get("text"), c.at("text")), mode)
    elif kind == "inject":
        idict = _map(val, c, ("type", "text", "system_prompt", "tools"))
        if "type" not in idict:
            raise c.fail("an injection needs a type")
        fields["inject"] = Inject(
            _str(idict["type"], c.at("type")),
            None if idict.get("text") is None else _str(idict["text"], c.at("text")),
            None if idict.get("system_prompt") is None else _str(idict["system_prompt"], c.at("system_prompt")),
            _tool_schemas(idict.get("tools"), c.at("tools")),
        )
    elif kind == "call":
        fields["call"] = _call(val, c)
    elif kind == "result":
        rd = _map(val, c, ("of", "text", "after", "failed", "string", "lost"))
        if "of" not in rd:
            raise c.fail("a result names the tool it is `of`")
        fields["result"] = ResultStep(
            _str(rd["of"], c.at("of")), _str(rd.get("text"), c.at("text")), _dur(rd.get("after"), c.at("after")),
            _bool(rd["failed"], c.at("failed")) if "failed" in rd else None, _bool(rd.get("string"), c.at("string")),
            _bool(rd.get("lost"), c.at("lost")),
        )
    elif kind == "reset":
        rd = _map(val, c, ("summary",))
        fields["reset"] = Reset(_str(rd.get("summary"), c.at("summary")))
    elif kind == "replay":
        n = _int(val, c)
        if n < 1:
            raise c.fail("replay re-emits at least one record")
        fields["replay"] = n
    elif kind == "system":
        sd = _map(val, c, ("subtype", "fields"))
        if "subtype" not in sd:
            raise c.fail("a system record needs a subtype")
        f = sd.get("fields") or {}
        if not isinstance(f, dict):
            raise c.at("fields").fail("expected a mapping")
        fields["system"] = System(_str(sd["subtype"], c.at("subtype")), dict(f))
    return Step(
        kind=kind,
        after_ms=_dur(d.get("after"), ctx.at("after")),
        checkpoint=_str(d.get("checkpoint"), ctx.at("checkpoint")),
        lost=_bool(d.get("lost"), ctx.at("lost")),
        **fields,
    )


_SCENARIO_KEYS = ("session", "project", "title", "interval", "entrypoint", "provider_bodies", "system_prompt", "tools", "steps")


def scenario_from_dict(data: Any, name: str, path: str = "") -> Scenario:
    """Build a :class:`Scenario` from the YAML value ``data``. Raises ScenarioError naming ``path`` and the key."""
    ctx = _Ctx(path or name)
    d = _map(data, ctx, _SCENARIO_KEYS)
    steps = _steps(d.get("steps"), ctx.at("steps"))
    if not steps:
        raise ctx.fail("a scenario has at least one step")
    seen: set[str] = set()
    for i, s in enumerate(steps):
        if s.checkpoint:
            if s.checkpoint in seen or s.checkpoint == "final":
                raise ctx.at("steps").at(i).fail(f"checkpoint {s.checkpoint!r} is named twice (final is the end)")
            seen.add(s.checkpoint)
    interval = _dur(d.get("interval"), ctx.at("interval"))
    return Scenario(
        name=name,
        path=path,
        session=_str(d.get("session"), ctx.at("session")),
        project=_str(d.get("project"), ctx.at("project")),
        title=_str(d.get("title"), ctx.at("title")),
        interval_ms=1000 if interval is None else interval,
        entrypoint=_str(d.get("entrypoint"), ctx.at("entrypoint")),
        provider_bodies=_bool(d.get("provider_bodies"), ctx.at("provider_bodies")),
        system_prompt=_str(d.get("system_prompt"), ctx.at("system_prompt")),
        tools=_tool_schemas(d.get("tools"), ctx.at("tools")),
        steps=steps,
    )


def _load_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(str(path), f"cannot read: {exc.strerror or exc}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(str(path), f"not YAML: {exc}") from None


def scenario_name(path: str | Path) -> str:
    """``dir/NAME.yaml`` or ``dir/NAME.expect.yaml`` → ``NAME``."""
    n = Path(path).name
    for suffix in (".expect.yaml", ".yaml", ".yml"):
        if n.endswith(suffix):
            return n[: -len(suffix)]
    return n


def load_scenario(path: str | Path) -> Scenario:
    """Read ``NAME.yaml`` (licence header comments are ignored by YAML). Raises ScenarioError."""
    p = Path(path)
    return scenario_from_dict(_load_yaml(p), scenario_name(p), str(p))


# --------------------------------------------------------------------------- expectations


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


def _count_map(v: Any, ctx: _Ctx) -> dict:
    d = _map(v, ctx, tuple(v.keys()) if isinstance(v, dict) else ())
    return {str(k): _int(n, ctx.at(k)) for k, n in d.items()}


def _checkpoint(name: str, v: Any, ctx: _Ctx) -> Checkpoint:
    d = _map(v, ctx, _CHECKPOINT_KEYS)
    f: dict[str, Any] = {}
    for k in ("rounds",):
        if k in d:
            f[k] = _int(d[k], ctx.at(k))
    for k in ("written", "delta"):
        if k in d:
            f[k] = _bool(d[k], ctx.at(k))
    for k in ("kinds", "talks_on", "runs_in", "relations"):
        if k in d:
            f[k] = _count_map(d[k], ctx.at(k))
    if "unresolved" in d:
        f["unresolved"] = {k: _int(n, ctx.at("unresolved").at(k)) for k, n in _map(d["unresolved"], ctx.at("unresolved"), ("open", "resolved")).items()}
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
            nd = _map(nv, nc, ("kind", "stream", "refs", "revision", "absent", "attrs"))
            a = nd.get("attrs")
            if a is not None and not isinstance(a, dict):
                raise nc.at("attrs").fail("expected a mapping")
            nodes[str(nid)] = NodeExpect(
                kind=None if nd.get("kind") is None else _str(nd["kind"], nc.at("kind")),
                stream=None if nd.get("stream") is None else _str(nd["stream"], nc.at("stream")),
                refs=_int(nd["refs"], nc.at("refs")) if "refs" in nd else None,
                revision=_int(nd["revision"], nc.at("revision")) if "revision" in nd else None,
                absent=_bool(nd["absent"], nc.at("absent")) if "absent" in nd else None,
                attrs=a,
            )
        f["nodes"] = nodes
    if "session" in d:
        c = ctx.at("session")
        sd = _map(d["session"], c, ("from", "to"))
        f["session"] = {k: _dur(v2, c.at(k)) for k, v2 in sd.items()}
    if "view" in d:
        f["view"] = dict(_map(d["view"], ctx.at("view"), _VIEW_KEYS))
    if "verify" in d:
        vd = _map(d["verify"], ctx.at("verify"), ("problems",))
        f["verify"] = {k: _int(n, ctx.at("verify").at(k)) for k, n in vd.items()}
    if "lose" in d:
        c = ctx.at("lose")
        items = []
        for i, it in enumerate(_list(d["lose"], c)):
            ic = c.at(i)
            idd = _map(it, ic, ("stream", "kind", "nth"))
            items.append({"stream": _str(idd.get("stream"), ic.at("stream"), "main"), "kind": _str(idd.get("kind"), ic.at("kind"), "transcript"),
                          "nth": _int(idd["nth"], ic.at("nth")) if "nth" in idd else 1})
        f["lose"] = tuple(items)
    return Checkpoint(name=name, **f)


def expectation_from_dict(data: Any, name: str, path: str = "") -> Expectation:
    """Build an :class:`Expectation` from the YAML value ``data``. Raises ScenarioError naming ``path`` and the key."""
    ctx = _Ctx(path or name)
    d = _map(data, ctx, ("checkpoints", "properties", "collect", "parse", "push"))
    cps = {}
    c = ctx.at("checkpoints")
    raw = d.get("checkpoints") or {}
    if not isinstance(raw, dict):
        raise c.fail("expected a mapping")
    for k, v in raw.items():
        cps[str(k)] = _checkpoint(str(k), v, c.at(k))
    props = {}
    pc = ctx.at("properties")
    for k, v in _map(d.get("properties"), pc, PROPERTIES).items():
        props[k] = _bool(v, pc.at(k))
    coll = _map(d.get("collect"), ctx.at("collect"), ("max_delta_bytes",))
    parse = _map(d.get("parse"), ctx.at("parse"), ("max_round_bytes",))
    push = _map(d.get("push"), ctx.at("push"), ("kinds",))
    return Expectation(
        name=name,
        path=path,
        checkpoints=cps,
        properties=props,
        max_delta_bytes=_int(coll["max_delta_bytes"], ctx.at("collect").at("max_delta_bytes")) if "max_delta_bytes" in coll else None,
        max_round_bytes=_int(parse["max_round_bytes"], ctx.at("parse").at("max_round_bytes")) if "max_round_bytes" in parse else None,
        push_kinds=tuple(_str(k, ctx.at("push").at("kinds")) for k in _list(push.get("kinds"), ctx.at("push").at("kinds"))),
    )


def load_expectation(path: str | Path) -> Expectation:
    """Read ``NAME.expect.yaml``. Raises ScenarioError (unreadable, not YAML, unknown key)."""
    p = Path(path)
    return expectation_from_dict(_load_yaml(p), scenario_name(p), str(p))
