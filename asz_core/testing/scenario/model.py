"""The scenario language as typed data (origin-digest §9.1).

A scenario is ``NAME.yaml`` (what happened, in the model's words) beside
``NAME.expect.yaml`` (what the landed and parsed result must hold). Both are
read with PyYAML and turned into the attrs classes below; a key the language
does not have is refused with :class:`~.fields.ScenarioError` naming the file
and the key path, never ignored. This module holds the scenario itself; the
field readers are in :mod:`.fields`, the expectation file in :mod:`.expect`.

Durations are written Go style (``1s``, ``100ms``, ``1000s``, ``+11.1s``)
and held as integer milliseconds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from .fields import Where, load_yaml, read_bool, read_dur, read_int, read_list, read_map, read_str, scenario_name

__all__ = [
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
    "load_scenario",
    "scenario_from_dict",
]


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


def _usage(v: Any, ctx: Where) -> Usage:
    d = read_map(v, ctx, ("in", "out", "cache_read", "cache_write"))
    return Usage(
        in_=read_int(d["in"], ctx.at("in")) if "in" in d else None,
        out=read_int(d["out"], ctx.at("out")) if "out" in d else None,
        cache_read=read_int(d["cache_read"], ctx.at("cache_read")) if "cache_read" in d else None,
        cache_write=read_int(d["cache_write"], ctx.at("cache_write")) if "cache_write" in d else None,
    )


def _tool_schemas(v: Any, ctx: Where) -> tuple[ToolSchema, ...]:
    out = []
    for i, item in enumerate(read_list(v, ctx)):
        c = ctx.at(i)
        d = read_map(item, c, ("name", "description", "input_schema"))
        if "name" not in d:
            raise c.fail("a tool needs a name")
        out.append(ToolSchema(read_str(d["name"], c.at("name")), read_str(d.get("description"), c.at("description")), d.get("input_schema")))
    return tuple(out)


def _tool_result(v: Any, ctx: Where) -> ToolResult | None:
    if v is None:
        return None
    if not isinstance(v, dict):
        return ToolResult(text=read_str(v, ctx))
    d = read_map(v, ctx, ("text", "after", "lost", "string", "failed"))
    return ToolResult(
        text=read_str(d.get("text"), ctx.at("text")),
        after_ms=read_dur(d.get("after"), ctx.at("after")),
        lost=read_bool(d.get("lost"), ctx.at("lost")),
        string=read_bool(d.get("string"), ctx.at("string")),
        failed=read_bool(d["failed"], ctx.at("failed")) if "failed" in d else None,
    )


def _tool(v: Any, ctx: Where) -> Tool:
    d = read_map(v, ctx, ("id", "name", "input", "result", "changes", "execution"))
    if "name" not in d:
        raise ctx.fail("a tool needs a name")
    changes = []
    for i, c in enumerate(read_list(d.get("changes"), ctx.at("changes"))):
        cc = ctx.at("changes").at(i)
        cd = read_map(c, cc, ("path", "before", "after"))
        if "path" not in cd:
            raise cc.fail("a change needs a path")
        changes.append(Change(read_str(cd["path"], cc.at("path")), cd.get("before"), cd.get("after")))
    execution = None
    if d.get("execution") is not None:
        ec = ctx.at("execution")
        ed = read_map(d["execution"], ec, ("server", "source", "duration"))
        execution = Execution(read_str(ed.get("server"), ec.at("server")), read_str(ed.get("source"), ec.at("source")),
                              read_dur(ed.get("duration"), ec.at("duration")))
    inp = d.get("input")
    return Tool(
        name=read_str(d["name"], ctx.at("name")),
        id=read_str(d.get("id"), ctx.at("id")),
        input={} if inp is None else inp,
        result=_tool_result(d.get("result"), ctx.at("result")),
        changes=tuple(changes),
        execution=execution,
    )


def _steps(v: Any, ctx: Where) -> tuple[Step, ...]:
    return tuple(_step(item, ctx.at(i)) for i, item in enumerate(read_list(v, ctx)))


def _agent(v: Any, ctx: Where) -> Agent:
    d = read_map(v, ctx, ("name", "prompt", "after", "system_prompt", "tools", "steps", "notify", "lost"))
    if "name" not in d:
        raise ctx.fail("an agent needs a name")
    return Agent(
        name=read_str(d["name"], ctx.at("name")),
        prompt=read_str(d.get("prompt"), ctx.at("prompt")),
        after_ms=read_dur(d.get("after"), ctx.at("after")),
        steps=_steps(d.get("steps"), ctx.at("steps")),
        notify=read_bool(d.get("notify"), ctx.at("notify")),
        lost=read_bool(d.get("lost"), ctx.at("lost")),
        system_prompt=read_str(d.get("system_prompt"), ctx.at("system_prompt")),
        tools=_tool_schemas(d.get("tools"), ctx.at("tools")),
    )


def _call(v: Any, ctx: Where) -> Call:
    d = read_map(v, ctx, ("thinking", "text", "tool", "agent", "skill", "workflow", "usage"))
    actions = [k for k in ("tool", "agent", "skill", "workflow") if d.get(k) is not None]
    if len(actions) > 1:
        raise ctx.fail(f"a call holds at most one of tool, agent, skill, workflow; got {', '.join(actions)}")
    skill = workflow = None
    if d.get("skill") is not None:
        sc = ctx.at("skill")
        sd = read_map(d["skill"], sc, ("name", "agent", "steps"))
        if "name" not in sd:
            raise sc.fail("a skill needs a name")
        skill = Skill(read_str(sd["name"], sc.at("name")), read_str(sd.get("agent"), sc.at("agent")), _steps(sd.get("steps"), sc.at("steps")))
    if d.get("workflow") is not None:
        wc = ctx.at("workflow")
        wd = read_map(d["workflow"], wc, ("name", "script_project", "children"))
        if "name" not in wd:
            raise wc.fail("a workflow needs a name")
        children = []
        for i, ch in enumerate(read_list(wd.get("children"), wc.at("children"))):
            cc = wc.at("children").at(i)
            cd = read_map(ch, cc, ("name", "prompt", "steps"))
            if "name" not in cd:
                raise cc.fail("a workflow child needs a name")
            children.append(WorkflowChild(read_str(cd["name"], cc.at("name")), read_str(cd.get("prompt"), cc.at("prompt")), _steps(cd.get("steps"), cc.at("steps"))))
        workflow = Workflow(read_str(wd["name"], wc.at("name")), read_str(wd.get("script_project"), wc.at("script_project")), tuple(children))
    thinking = d.get("thinking")
    return Call(
        thinking=None if thinking is None else read_str(thinking, ctx.at("thinking")),
        text=None if d.get("text") is None else read_str(d["text"], ctx.at("text")),
        tool=_tool(d["tool"], ctx.at("tool")) if d.get("tool") is not None else None,
        agent=_agent(d["agent"], ctx.at("agent")) if d.get("agent") is not None else None,
        skill=skill,
        workflow=workflow,
        usage=_usage(d.get("usage"), ctx.at("usage")),
    )


def _step(v: Any, ctx: Where) -> Step:
    d = read_map(v, ctx, _STEP_KEYS)
    kinds = [k for k in _STEP_KINDS if k in d]
    if len(kinds) != 1:
        raise ctx.fail(f"a step is exactly one of {', '.join(_STEP_KINDS)}; got {', '.join(kinds) or 'none'}")
    kind = kinds[0]
    val = d[kind]
    c = ctx.at(kind)
    fields: dict[str, Any] = {}
    if kind == "input":
        fields["input"] = read_str(val, c)
    elif kind == "error":
        fields["error"] = read_str(val, c)
    elif kind == "queued":
        qd = read_map(val, c, ("text", "mode"))
        mode = read_str(qd.get("mode"), c.at("mode"), "prompt")
        if mode not in ("prompt", "task-notification"):
            raise c.at("mode").fail(f"mode is prompt or task-notification, not {mode!r}")
        fields["queued"] = Queued(read_str(qd.get("text"), c.at("text")), mode)
    elif kind == "inject":
        idict = read_map(val, c, ("type", "text", "system_prompt", "tools"))
        if "type" not in idict:
            raise c.fail("an injection needs a type")
        fields["inject"] = Inject(
            read_str(idict["type"], c.at("type")),
            None if idict.get("text") is None else read_str(idict["text"], c.at("text")),
            None if idict.get("system_prompt") is None else read_str(idict["system_prompt"], c.at("system_prompt")),
            _tool_schemas(idict.get("tools"), c.at("tools")),
        )
    elif kind == "call":
        fields["call"] = _call(val, c)
    elif kind == "result":
        rd = read_map(val, c, ("of", "text", "after", "failed", "string", "lost"))
        if "of" not in rd:
            raise c.fail("a result names the tool it is `of`")
        fields["result"] = ResultStep(
            read_str(rd["of"], c.at("of")), read_str(rd.get("text"), c.at("text")), read_dur(rd.get("after"), c.at("after")),
            read_bool(rd["failed"], c.at("failed")) if "failed" in rd else None, read_bool(rd.get("string"), c.at("string")),
            read_bool(rd.get("lost"), c.at("lost")),
        )
    elif kind == "reset":
        rd = read_map(val, c, ("summary",))
        fields["reset"] = Reset(read_str(rd.get("summary"), c.at("summary")))
    elif kind == "replay":
        n = read_int(val, c)
        if n < 1:
            raise c.fail("replay re-emits at least one record")
        fields["replay"] = n
    elif kind == "system":
        sd = read_map(val, c, ("subtype", "fields"))
        if "subtype" not in sd:
            raise c.fail("a system record needs a subtype")
        f = sd.get("fields") or {}
        if not isinstance(f, dict):
            raise c.at("fields").fail("expected a mapping")
        fields["system"] = System(read_str(sd["subtype"], c.at("subtype")), dict(f))
    return Step(
        kind=kind,
        after_ms=read_dur(d.get("after"), ctx.at("after")),
        checkpoint=read_str(d.get("checkpoint"), ctx.at("checkpoint")),
        lost=read_bool(d.get("lost"), ctx.at("lost")),
        **fields,
    )


_SCENARIO_KEYS = ("session", "project", "title", "interval", "entrypoint", "provider_bodies", "system_prompt", "tools", "steps")


def scenario_from_dict(data: Any, name: str, path: str = "") -> Scenario:
    """Build a :class:`Scenario` from the YAML value ``data``. Raises ScenarioError naming ``path`` and the key."""
    ctx = Where(path or name)
    d = read_map(data, ctx, _SCENARIO_KEYS)
    steps = _steps(d.get("steps"), ctx.at("steps"))
    if not steps:
        raise ctx.fail("a scenario has at least one step")
    seen: set[str] = set()
    for i, s in enumerate(steps):
        if s.checkpoint:
            if s.checkpoint in seen or s.checkpoint == "final":
                raise ctx.at("steps").at(i).fail(f"checkpoint {s.checkpoint!r} is named twice (final is the end)")
            seen.add(s.checkpoint)
    interval = read_dur(d.get("interval"), ctx.at("interval"))
    return Scenario(
        name=name,
        path=path,
        session=read_str(d.get("session"), ctx.at("session")),
        project=read_str(d.get("project"), ctx.at("project")),
        title=read_str(d.get("title"), ctx.at("title")),
        interval_ms=1000 if interval is None else interval,
        entrypoint=read_str(d.get("entrypoint"), ctx.at("entrypoint")),
        provider_bodies=read_bool(d.get("provider_bodies"), ctx.at("provider_bodies")),
        system_prompt=read_str(d.get("system_prompt"), ctx.at("system_prompt")),
        tools=_tool_schemas(d.get("tools"), ctx.at("tools")),
        steps=steps,
    )


def load_scenario(path: str | Path) -> Scenario:
    """Read ``NAME.yaml`` (licence header comments are ignored by YAML). Raises ScenarioError."""
    p = Path(path)
    return scenario_from_dict(load_yaml(p), scenario_name(p), str(p))
