"""Where a reader draws what the asz.view document holds apart from the talks' trees, one rule for the page and the
exports (docs/view.md, "The page"; docs/reading.md, ``asz export``).

- A ``loose`` node (a compaction's boundary and summary, context injected between talks: under no talk) is drawn in
  place, in record order: in the talk of its stream that opened last at or before it, one before every talk of its
  stream at the head of the stream's first talk (:func:`loose_talks`); the page puts it among the talk's children,
  or a run's, before the first whose records come after it (:func:`loose_places`).
- A subagent's ``agent.output`` whose text is, whole, the text of the talk's message steps of the same record before
  it (its last message, which the output repeats) is drawn as one line naming them (:func:`repeats`).
- A call that started a child stream (one ``exact_unique`` ``opened_by`` step) whose result is, whole, the text of an
  ``agent.output`` of that stream, or that text and a newline and more (Claude Code's ``agentId: …`` and ``<usage>``
  lines), gave back the subagent's report, which the child's talk draws: the call's result names it instead of
  repeating it, and shows what follows it (:func:`reports`). Such a call whose input holds, whole, what the child's first talk shows as
  asked gave the subagent its prompt, which the talk draws at its head: the call's input names it (:func:`asks`).
- A shell call's input (:data:`SHELL_TOOLS`) reads as its command, its description and its other keys
  (:func:`shell_input`); its result that is the runtime's result object with an empty ``stdout`` and ``stderr``
  (Claude Code's ``toolUseResult`` when Bash printed nothing) reads ``(no output)`` and the other keys
  (:func:`quiet_result`), never the object's JSON. Any other tool's input reads as its fields (:func:`input_fields`):
  its path first, each text pair (``old_string``/``new_string``, Kiro's ``old_str``/``new_str`` and
  ``originalContent``/``modifiedContent``) together, a long or multi-line text as a block, the rest as facts.
- A subagent's talk whose own records hold no opening prompt (Claude Code 2.0.x's ``agent-<id>.jsonl`` opens with the
  subagent's reply) opens with what the call that started it asked, as its adapter reads that call (:func:`call_prompts`).
- A talk with no person's input whose label is the text of an injection the runtime did not flag ``injected`` (the
  opening prompt of a child written in its parent's file: Claude Code's old sidechains) shows that step as what the
  talk was asked (:func:`asked_steps`), as a talk's ``prompt`` is shown.
- A child stream no call started that its adapter names the compaction agent (label ``compaction``, ``named_by``
  ``stream``: Claude Code's ``agent-acompact-<id>.jsonl``) is the compaction whose boundary is the first one drawn after
  its last record (:func:`compactions`): its ``spawn_of_child`` entry is shown as placed, not as unresolved.
- Which of the document's ``unresolved`` entries are still open, placed, or resolved by a later round
  (:func:`unresolved_split`) is said once, here: ``asz conversation``'s ``(N still open)``, the page's Unresolved tab
  and the exports read it (trial 30d F3: the tab said 0 where ``asz conversation`` said 1 still open).

Positions compare only inside one stream: (stream, seq, row, block) of a node's first reference (:func:`position`).
Nothing here changes the document; the page reads it from ``/api/c/{id}/headings``.
"""

from __future__ import annotations

import json
from typing import Callable, Iterable, Iterator, Sequence

from ..flow.tool_names import SHELL_TOOLS  # the page reads this list too (:func:`page_rules`)

__all__ = ["BLOCK_CHARS", "INPUT_FIELDS", "PAIRS", "PATH_KEYS", "PATH_SUFFIX", "SHELL_TOOLS", "asked_steps", "asks", "folded_at",
           "call_prompts", "call_summary", "compactions", "fact_text", "gists", "is_path_key", "input_fields", "input_gist", "loose_places", "one_line", "loose_talks", "page_reading",
           "page_rules", "position", "quiet_result", "repeats", "reports", "shell_input", "unresolved_split", "unresolved_words",
           "walk", "whole_of"]


def _object(text: str) -> dict | None:
    try:
        v = json.loads(text)
    except ValueError:
        return None
    return v if isinstance(v, dict) else None


def fact_text(v) -> str:
    """A fact's value as the readers show it: a string as written, any other value as its compact JSON."""
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, separators=(",", ":"))


_fact = fact_text


def shell_input(name: str, text: str) -> tuple[str, str | None, list[tuple[str, str]]] | None:
    """``(command, description or None, [(key, value)…])`` of a :data:`SHELL_TOOLS` call's input ``text`` (a JSON
    object with a string ``command``; other values as their JSON), else None (another tool, clipped, not JSON)."""
    v = _object(text) if name in SHELL_TOOLS else None
    if v is None or not isinstance(v.get("command"), str):
        return None
    said = v.get("description") if isinstance(v.get("description"), str) else None
    return v["command"], said, [(k, _fact(x)) for k, x in v.items() if k != "command" and not (k == "description" and said is not None)]


#: The keys whose value sums a tool call's input up, first found first (:func:`input_gist`; the page's row of a call
#: reads the same list, :func:`page_rules`): ``file`` is Kiro IDE's path (its ``create``).
INPUT_FIELDS = ("command", "file_path", "notebook_path", "path", "file", "pattern", "url", "query", "description", "prompt",
                "skill", "subject")


def input_gist(data, limit: int) -> tuple[str, bool]:
    """``(text, cut)``: a tool call's input ``data`` (decoded JSON) in one line of at most ``limit`` characters: the
    first :data:`INPUT_FIELDS` key holding a non-blank string, else a flat object (each value a string, number, true,
    false or null) as ``key: value`` pairs, ``task_id: be613ab, block: true, timeout: 120000`` (a string as written,
    the others as JSON writes them; trial 22a, F16), an empty one as ``(no input)``, else the input as JSON; white
    space runs read as one space; a longer text is cut to ``limit - 1`` characters and ``…`` (``cut`` True). The
    audit prose's ``input`` and an HTML export's tool line (docs/reading.md)."""
    import orjson

    text = ""
    if isinstance(data, dict):
        text = next((data[k] for k in INPUT_FIELDS if isinstance(data.get(k), str) and data[k].strip()), "")
        if not text and all(v is None or isinstance(v, (str, int, float, bool)) for v in data.values()):
            text = ", ".join(f"{k}: {v if isinstance(v, str) else orjson.dumps(v).decode()}" for k, v in data.items()) \
                or "(no input)"
    if not text and data is not None:
        text = orjson.dumps(data, default=str).decode("utf-8")
    return one_line(text, limit)


def call_summary(dialect: str, name: str, data, limit: int, pairs: tuple | None = None) -> tuple[str, bool]:
    """``(text, cut)``: what a tool call ``name`` with input ``data`` (decoded JSON) acts on, in one line of at most
    ``limit`` characters: the adapter's own summary when the adapter of ``dialect`` gives one
    (:func:`~asz_core.view.titles.call_gist`: Kiro's ``write`` reads ``create /w/notes.md``, a ``grep`` its pattern),
    else, when ``pairs`` is given (an edit's text pairs, :data:`PAIRS`), a todo list's or an edit's one line
    (:func:`~asz_core.view.tool_drawn.drawn_gist`: ``4 todos: 1 completed, …``, ``/w/a.py (-3 +5)``), else
    :func:`input_gist`. The one rule of every reader that sums a call up: the audit prose's ``tool_call`` line,
    an HTML export's tool line, the page's row of a call (``gists`` of :func:`page_reading`; docs/reading.md)."""
    from .titles import call_gist

    said = call_gist(dialect, name, data) if dialect else ""
    if not said and pairs is not None:
        from .tool_drawn import drawn_gist

        said = drawn_gist(data, pairs) or ""
    return one_line(said, limit) if said else input_gist(data, limit)


def gists(doc: dict, dialect: str) -> dict[str, str]:
    """``{step id: summary}`` of each ``tool`` or ``agent.call`` step of ``doc`` (an asz.view document) whose input
    the adapter of ``dialect`` sums up itself (:func:`call_summary`, no limit: the page cuts its row); a step it
    leaves to the readers' rule, or whose input is clipped or not JSON, is not listed (the page reads its fields)."""
    from ..plugins.adapter import Adapter
    from ..plugins.manager import adapter_for_dialect
    from .titles import call_gist

    out: dict[str, str] = {}
    adapter = adapter_for_dialect(dialect) if dialect else None
    if adapter is None or type(adapter).call_gist is Adapter.call_gist:  # says nothing of any call: no input read
        return out
    for n in walk([*(doc.get("talks") or ()), *(doc.get("loose") or ())]):
        if n.get("kind") not in ("tool", "agent.call") or not isinstance(n.get("text"), str):
            continue
        try:
            data = json.loads(n["text"])
        except ValueError:
            continue
        said = call_gist(dialect, n.get("name") or "", data)
        if said:
            out[n["id"]] = one_line(said, len(said))[0]
    return out


def one_line(text: str, limit: int) -> tuple[str, bool]:
    """``(text, cut)``: ``text`` with white space runs read as one space, at most ``limit`` characters: a longer text
    is cut to ``limit - 1`` characters and ``…`` (``cut`` True)."""
    text = " ".join(text.split())
    return (text, False) if len(text) <= limit else (text[:limit - 1] + "…", True)


def folded_at(text: str, i: int) -> int:
    """Where :func:`one_line`'s text holds character ``i`` of ``text`` (a character that is not white space): after
    the words before it joined by single spaces, and one more when white space stands just before it."""
    words = text[:i].split()
    return len(" ".join(words)) + (1 if words and text[i - 1].isspace() else 0)


#: The text pairs an editing call's input holds, drawn together; the first is also each MultiEdit edit's.
PAIRS = (("old_string", "new_string"), ("old_str", "new_str"), ("originalContent", "modifiedContent"))
#: The keys read as a path, and the ending that makes one (``file_path``, ``notebook_path``): read first.
PATH_KEYS, PATH_SUFFIX = ("path", "file"), "_path"
#: A string value longer than this many characters (and not a path) is drawn as a block, as one with a line break is.
BLOCK_CHARS = 100


def is_path_key(key: str) -> bool:
    """Whether an input's ``key`` is read as a path (:data:`PATH_KEYS`, ``*_path``): drawn first."""
    return key in PATH_KEYS or key.endswith(PATH_SUFFIX)


_is_path = is_path_key


def page_rules() -> dict:
    """The field view's lists and limits as the page's script reads them (app.js ``RULES``, written into the script as
    the server serves it, :data:`asz_core.view.page.APP_JS`): ``shell_tools`` (:data:`SHELL_TOOLS`, sorted),
    ``pairs`` (:data:`PAIRS`), ``edit_pair`` (a MultiEdit edit's), ``path_keys`` and ``path_suffix``, ``block_chars``,
    ``input_fields`` (:data:`INPUT_FIELDS`, in order: a call's row reads its first non-blank one, as :func:`input_gist`);
    one source for :func:`shell_input`, :func:`quiet_result`, :func:`input_fields`, :func:`input_gist` and the page."""
    return {"shell_tools": sorted(SHELL_TOOLS), "pairs": [list(p) for p in PAIRS], "edit_pair": list(PAIRS[0]),
            "path_keys": list(PATH_KEYS), "path_suffix": PATH_SUFFIX, "block_chars": BLOCK_CHARS,
            "input_fields": list(INPUT_FIELDS)}


def input_fields(text: str) -> tuple[list[tuple[str, str]], list[tuple]] | None:
    """``(facts, items)`` of a tool call's input ``text`` that is a JSON object, else None (clipped, not JSON): the page's
    field view (docs/view.md, "Tool inputs"). Keys are read path first (``path``, ``*_path``, ``file``), then in the
    input's order: a text pair (:data:`PAIRS`) is one item ``("pair", "", (key, text), (key, text))``, each MultiEdit
    edit ``("pair", "edit 1 of 3", …)``; a string with a line break, or longer than 100 characters and not a path, is
    ``("block", key, text)``; any other value is a fact ``(key, its text or JSON)``."""
    v = _object(text)
    if v is None:
        return None
    pair = next((p for p in PAIRS if isinstance(v.get(p[0]), str) and isinstance(v.get(p[1]), str)), None)
    facts: list[tuple[str, str]] = []
    items: list[tuple] = []
    for k in sorted(v, key=lambda k: not _is_path(k)):
        x = v[k]
        if pair and k == pair[0]:
            items.append(("pair", "", (k, x), (pair[1], v[pair[1]])))
        elif pair and k == pair[1]:
            continue
        elif k == "edits" and isinstance(x, list):
            for j, e in enumerate(x, 1):
                note = f"edit {j} of {len(x)}" + (" · replace_all" if isinstance(e, dict) and e.get("replace_all") else "")
                if isinstance(e, dict):
                    items.append(("pair", note, *((key, str(e.get(key))) for key in PAIRS[0])))
                else:
                    items.append(("block", note, _fact(e)))
        elif isinstance(x, str) and ("\n" in x or (len(x) > BLOCK_CHARS and not _is_path(k))):
            items.append(("block", k, x))
        else:
            facts.append((k, _fact(x)))
    return facts, items


def quiet_result(name: str, text: str) -> list[tuple[str, str]] | None:
    """``[(key, value)…]`` of a :data:`SHELL_TOOLS` call's result ``text`` that is a JSON object whose ``stdout`` is ''
    and ``stderr`` '' or absent (what it holds besides: ``interrupted``, ``isImage``, ``noOutputExpected``), else None."""
    v = _object(text) if name in SHELL_TOOLS else None
    if v is None or v.get("stdout") != "" or v.get("stderr", "") != "":
        return None
    return [(k, _fact(x)) for k, x in v.items() if k not in ("stdout", "stderr")]


def walk(nodes: Iterable[dict]) -> Iterator[dict]:
    """Every node of ``nodes`` and under them, in document order (a node before its children). One generator with a
    stack of the levels open, not one generator a level that each node passes up through (half the time)."""
    stack = [iter(nodes)]
    while stack:
        for n in stack[-1]:
            if isinstance(n, dict):
                yield n
                children = n.get("children")
                if children:
                    stack.append(iter(children))
                    break
        else:
            stack.pop()


def _first_ref(n: dict) -> dict:
    r = n.get("ref") or ((n.get("refs") or [None])[0])
    return r if isinstance(r, dict) else {}


def position(n: dict) -> tuple:
    """Where node ``n`` stands in its stream: (stream, seq, row, block) of its first reference, block -1 for none."""
    r = _first_ref(n)
    b = r.get("block")
    return (n.get("stream") or "", r.get("seq") or 0, r.get("row") or 0, b if isinstance(b, int) else -1)


def loose_talks(doc: dict) -> dict[str, str]:
    """``{loose node id: talk id}``: the talk each ``loose`` node of ``doc`` is drawn in (module docstring); a node
    whose stream has no talk is not listed (drawn apart: the exports' ``Outside any talk``, the page's Loose tab)."""
    talks = [t for t in doc.get("talks") or () if isinstance(t, dict)]
    out: dict[str, str] = {}
    for n in doc.get("loose") or ():
        if not isinstance(n, dict) or not n.get("id"):
            continue
        at = position(n)
        mine = [t for t in talks if (t.get("stream") or "") == at[0]]
        if mine:
            before = [t for t in mine if position(t) <= at]
            out[n["id"]] = (before[-1] if before else mine[0])["id"]
    return out


def _span(n: dict, stream: str, seen: dict) -> tuple | None:
    """The first and last position of the records of ``n`` and its subtree in ``stream`` (None when none), kept in
    ``seen`` by (node id, stream) so that each subtree is walked once however many loose nodes are placed."""
    key = (n.get("id"), stream)
    if key not in seen:
        got = [position(n)] if (n.get("stream") or "") == stream and _first_ref(n) else []
        for c in n.get("children") or ():
            sub = _span(c, stream, seen) if isinstance(c, dict) else None
            got += list(sub) if sub else []
        seen[key] = (min(got), max(got)) if got else None
    return seen[key]


def loose_places(doc: dict) -> dict[str, dict]:
    """``{loose node id: {"talk", "parent", "before"}}``: where the page draws each ``loose`` node :func:`loose_talks`
    puts in a talk: among the children of ``parent`` (the talk, or a run of it whose records hold the node's
    position between them), before the child ``before``, the first whose records come after it (null: at the end)."""
    talks = {t["id"]: t for t in doc.get("talks") or () if isinstance(t, dict) and t.get("id")}
    loose = {n["id"]: n for n in doc.get("loose") or () if isinstance(n, dict) and n.get("id")}
    out: dict[str, dict] = {}
    seen: dict = {}
    for nid, tid in loose_talks(doc).items():
        at = position(loose[nid])
        parent, before = talks[tid], None
        kids = list(parent.get("children") or ())
        while kids:
            inside = None
            for c in kids:
                span = _span(c, at[0], seen)
                if span is None or span[1] < at:
                    continue
                if span[0] > at:
                    before = c["id"]
                    break
                if c.get("kind") == "run" and c.get("children"):  # it happened inside this run: among its children
                    inside = c
                    break
            if inside is None:
                break
            parent, kids = inside, list(inside["children"])
        out[nid] = {"talk": tid, "parent": parent["id"], "before": before}
    return out


def repeats(items: Sequence[tuple[tuple, str, str, str | None]]) -> dict[str, list[str]]:
    """``{agent.output id: [message ids]}`` from one talk's ``(position, kind, id, text)`` items in drawing order
    (``text`` whole, None when withheld): each ``agent.output`` whose text is, whole, the texts of the talk's
    ``message.assistant`` items of the same record before it joined by newlines (trial 16b, F5); any other output is
    drawn as it is, so none is lost."""
    out: dict[str, list[str]] = {}
    for i, (at, kind, sid, text) in enumerate(items):
        if kind != "agent.output" or not text:
            continue
        said = [(oid, t) for a, k, oid, t in items[:i] if a[:3] == at[:3] and k == "message.assistant" and t is not None]
        if said and "\n".join(t for _, t in said) == text:
            out[sid] = [oid for oid, _ in said]
    return out


def compactions(doc: dict) -> dict[str, str]:
    """``{stream name: boundary id}``: for each child stream of ``doc`` that no step opened (empty ``opened_by``) and
    whose label its adapter read from its name as ``compaction`` (Claude Code's compaction agent, ``acompact-<id>``),
    the first ``epoch.boundary`` of another stream at or after the end of its talks (their latest ``to``, unix ms),
    each boundary given to one stream at most; a stream with no talk or no such boundary is not listed (module
    docstring). The document's ``unresolved`` list is not changed: the page shows such an entry as placed."""
    bounds = sorted(((n.get("at") or 0, n["id"], n.get("stream") or "") for n in walk([*(doc.get("talks") or ()), *(doc.get("loose") or ())])
                     if n.get("kind") == "epoch.boundary" and n.get("id") and isinstance(n.get("at"), int)),
                    key=lambda b: b[0])  # at one time, in the document's order (stable), never by id
    ends: dict[str, int] = {}
    for t in doc.get("talks") or ():
        if isinstance(t, dict) and isinstance(t.get("to"), int):
            ends[t.get("stream") or ""] = max(ends.get(t.get("stream") or "", 0), t["to"])
    out: dict[str, str] = {}
    for st in sorted((s for s in doc.get("streams") or () if isinstance(s, dict)), key=lambda s: ends.get(s.get("name") or "", 0)):
        name = st.get("name") or ""
        if st.get("role") != "child" or st.get("opened_by") or st.get("label") != "compaction" or st.get("named_by") != "stream" or name not in ends:
            continue
        got = next((bid for at, bid, stream in bounds if at >= ends[name] and stream != name and bid not in out.values()), None)
        if got is not None:
            out[name] = got
    return out


def unresolved_split(doc: dict) -> dict[str, list[str]]:
    """The ids of the document's ``unresolved`` entries, in its order, as every reader tells them: ``placed``, a
    compaction agent's ``spawn_of_child`` entry (its stream is in :func:`compactions`: drawn as the compaction it made,
    which no call starts); ``open``, every other entry whose ``state`` is ``open`` (still open); ``resolved``, those a
    later round resolved (``resolved``, or ``terminal``). ``asz conversation``'s ``N unresolved (S still open)`` counts
    ``open`` in S and names the others; the page's Unresolved tab counts ``open`` (``/headings``' ``unresolved``)
    and lists the others apart; the exports list ``open`` and ``resolved`` (trial 30d F3: 8463c716's compaction agent
    made the page say 0 where ``asz conversation`` said 1 still open). ``summary.unresolved`` stays the document's
    count of open entries, placed ones among them."""
    placed_streams = compactions(doc)
    out: dict[str, list[str]] = {"open": [], "placed": [], "resolved": []}
    for u in doc.get("unresolved") or ():
        if not isinstance(u, dict) or not isinstance(u.get("id"), str):
            continue
        if u.get("kind") == "spawn_of_child" and isinstance(u.get("ref"), str) and u["ref"] in placed_streams:
            out["placed"].append(u["id"])
        else:
            out["open" if u.get("state") == "open" else "resolved"].append(u["id"])
    return out


def unresolved_words(doc: dict) -> str:
    """``N unresolved (S still open)`` of ``asz conversation``'s entities line (origin-digest §8.1), S the entries
    :func:`unresolved_split` counts open, then the others named: ``; 1 placed: a compaction agent's stream, which no
    call starts, drawn as the compaction it made``, ``; 2 resolved by a later round`` (each only when not 0)."""
    unres = unresolved_split(doc)
    return (f"{len(doc.get('unresolved') or ())} unresolved ({len(unres['open'])} still open)"
            + (f"; {len(unres['placed'])} placed: a compaction agent's stream, which no call starts, drawn as the "
               "compaction it made" if unres["placed"] else "")
            + (f"; {len(unres['resolved'])} resolved by a later round" if unres["resolved"] else ""))


def asked_steps(doc: dict, withheld: Callable[[dict], bool] = lambda n: n.get("state") == "omitted",
                ordered: bool = True) -> dict[str, str]:
    """:func:`~asz_core.view.subagent_heads.asked_steps`: ``{talk id: step id}`` of what each talk was asked."""
    from .subagent_heads import asked_steps as asked

    return asked(doc, withheld, ordered)


def call_prompts(doc: dict, dialect: str, record: Callable[[dict], dict | None],
                 removed: Callable[[dict], str] | None = None) -> dict[str, dict]:
    """``{talk id: {"text", "from"}}`` for the first talk of each child stream of ``doc`` that shows no prompt of its
    own (no ``prompt``, no person's input, no :func:`asked_steps` step) and that one step starts by an ``exact_unique``
    relation (its ``opened_by``): ``text`` is what that step's landed ``call`` part asked (read through ``record``, a
    ``ref`` dict -> the landed record or None; :func:`~asz_core.view.titles.child_prompt`, the adapter of
    ``dialect``), whole; ``from`` is the step's id. A withheld record gives no call part, so nothing. With
    ``removed`` (a part -> its marker, :func:`asz_core.reading.export_steps.part_marker`), a call part whose input
    retention took gives that marker, ``[removed by retention: N bytes]`` (the audit form's line stays, trial 27b F2)."""
    from .titles import child_prompt

    talks = {t["id"]: t for t in doc.get("talks") or () if isinstance(t, dict) and t.get("id")}
    nodes = {n["id"]: n for n in walk(talks.values()) if n.get("id")}
    asked = asked_steps(doc)
    out: dict[str, dict] = {}
    for st in doc.get("streams") or ():
        talk = talks.get(st.get("talk") or "")
        exact = [o for o in st.get("opened_by") or () if isinstance(o, dict) and o.get("quality") == "exact_unique"]
        if talk is None or talk.get("prompt") or talk["id"] in asked or len(exact) != 1 or not talk.get("child") \
                or any(n.get("kind") == "message.external" for n in walk(talk.get("children") or ())):
            continue
        step = nodes.get(exact[0].get("step"))
        part = _call_part(step, record)
        text = child_prompt(dialect, st.get("name") or "", part) if part is not None else ""
        if not text and removed is not None and part is not None and part.get("state") == "removed":
            text = removed(part)
        if text:
            out[talk["id"]] = {"text": text, "from": step["id"]}
    return out


def _call_part(step: dict | None, record: Callable[[dict], dict | None]) -> dict | None:
    """The landed ``call`` part that step ``step``'s first reference names, read through ``record``; None when there is
    none (no step, a withheld or missing record, another kind of part)."""
    ref = _first_ref(step) if step is not None else {}
    rec = record(ref) if ref else None
    parts = rec.get("parts") if isinstance(rec, dict) else None
    block = ref.get("block")
    part = parts[block] if isinstance(parts, list) and isinstance(block, int) and 0 <= block < len(parts) else None
    return part if isinstance(part, dict) and part.get("k") == "call" else None


def _talk_prompt(talk: dict, record: Callable[[dict], dict | None], like: str) -> str | None:
    """The ``prompt`` of ``talk`` whole: the document's, or, when it is the start of ``like`` (the document clipped
    it), the text parts of the record its ``ref`` names joined by newlines (as the document joins them); None when
    it has none."""
    text = talk.get("prompt")
    if not isinstance(text, str) or not text or text == like or not like.startswith(text):
        return text or None
    rec = record(talk["ref"]) if isinstance(talk.get("ref"), dict) else None
    parts = rec.get("parts") if isinstance(rec, dict) else None
    return "\n".join(p["text"] for p in parts if isinstance(p, dict) and p.get("k") == "text" and p.get("text")) \
        if isinstance(parts, list) else text


def asks(doc: dict, dialect: str, record: Callable[[dict], dict | None], prompts: dict | None = None) -> dict[str, dict]:
    """``{call step id: {"talk", "key", "input"}}`` for each call that started a child stream of ``doc`` (its one
    ``exact_unique`` ``opened_by`` step) whose input's ``key`` holds, whole, what the child's first talk ``talk`` shows
    as what it was asked: its ``prompt`` (read whole through ``record``), what :func:`call_prompts` gives it
    (``prompts``, its answer when the caller has it), or its :func:`asked_steps` injection. The subagent's prompt is
    drawn once, in its talk; the call's input names it there instead of drawing it again (module docstring), its
    other fields drawn from ``input`` (the call's input whole, in its order, ``key``'s value null), which the
    document may have clipped."""
    from .titles import child_prompt

    talks = {t["id"]: t for t in doc.get("talks") or () if isinstance(t, dict) and t.get("id")}
    nodes = {n["id"]: n for n in walk(talks.values()) if n.get("id")}
    prompts = call_prompts(doc, dialect, record) if prompts is None else prompts
    asked = asked_steps(doc)
    out: dict[str, dict] = {}
    for st in doc.get("streams") or ():
        talk = talks.get(st.get("talk") or "")
        exact = [o for o in st.get("opened_by") or () if isinstance(o, dict) and o.get("quality") == "exact_unique"]
        step = nodes.get(exact[0].get("step")) if len(exact) == 1 and talk is not None else None
        part = _call_part(step, record)
        text = child_prompt(dialect, st.get("name") or "", part) if part is not None else ""
        data = part.get("data") if part is not None else None
        if not text or not isinstance(data, dict):
            continue
        tid = talk["id"]
        shown = prompts[tid]["text"] if tid in prompts else _talk_prompt(talk, record, text) if talk.get("prompt") \
            else _whole(nodes[asked[tid]], record) if asked.get(tid) in nodes else None
        key = next((k for k, v in data.items() if v == text), None)
        if shown == text and key is not None:
            out[step["id"]] = {"talk": tid, "key": key, "input": {**data, key: None}}
    return out


def _whole(n: dict, record: Callable[[dict], dict | None]) -> str | None:
    """The text of step ``n`` whole: the document's when it is not clipped (``bytes`` no more than its own), else the
    text parts its ``ref`` names in the record ``record`` gives (its ``block``, else every text part, joined by
    newlines); None when it is withheld (state omitted)."""
    if n.get("state") == "omitted":
        return None
    text = n.get("text") if isinstance(n.get("text"), str) else ""
    size = n.get("bytes")
    if not isinstance(size, int) or size <= len(text.encode("utf-8", "surrogatepass")):
        return text
    ref = _first_ref(n)
    rec = record(ref) if ref else None
    parts = rec.get("parts") if isinstance(rec, dict) else None
    if not isinstance(parts, list):
        return text
    block = ref.get("block")
    parts = parts[block:block + 1] if isinstance(block, int) else parts
    return "\n".join(p["text"] for p in parts if isinstance(p, dict) and p.get("k") in ("text", "reasoning", "result")
                     and isinstance(p.get("text"), str)) or text


def whole_of(n: dict, key: str, record: Callable[[dict], dict | None]) -> str | None:
    """Node ``n``'s ``result`` or ``text`` whole (a tool's input: its landed call part's data, as the document writes it), for the page's credential count."""
    import orjson
    data = (_call_part(n, record) or {}).get("data") if key == "text" and n.get("kind") in ("tool", "agent.call") else None
    return _whole_result(n, record) if key == "result" else _whole(n, record) if data is None else orjson.dumps(data).decode()


def _whole_result(n: dict, record: Callable[[dict], dict | None]) -> str | None:
    """The result of tool step ``n`` whole: the document's when it is not clipped (``result_bytes`` no more than its
    own), else the text of the part its second reference names (its ``block``, else the record's first result part) in
    the record ``record`` gives; None when it is withheld or has none."""
    if n.get("result_state") == "omitted" or not isinstance(n.get("result"), str):
        return None
    text, size = n["result"], n.get("result_bytes")
    if not isinstance(size, int) or size <= len(text.encode("utf-8", "surrogatepass")):
        return text
    refs = n.get("refs") or ()
    ref = refs[1] if len(refs) > 1 and isinstance(refs[1], dict) else None
    rec = record(ref) if ref else None
    parts = rec.get("parts") if isinstance(rec, dict) else None
    if not isinstance(parts, list):
        return None
    block = ref.get("block")
    part = parts[block] if isinstance(block, int) and 0 <= block < len(parts) else next(
        (p for p in parts if isinstance(p, dict) and p.get("k") == "result"), None)
    return part.get("text") if isinstance(part, dict) and isinstance(part.get("text"), str) else None


def reports(doc: dict, record: Callable[[dict], dict | None]) -> dict[str, dict]:
    """``{step id: {"output", "talk", "rest"}}`` for each call that started a child stream of ``doc`` (its one
    ``exact_unique`` ``opened_by`` step) whose result, whole (read through ``record`` when clipped), is the whole text
    of an ``agent.output`` step of that stream (``output``, in the talk ``talk``), alone or followed by a newline and
    ``rest`` (the text after that newline, '' when none): the subagent's report, which its talk draws, given back as
    the call's result (module docstring). A withheld result or output gives nothing."""
    nodes = {n["id"]: n for n in walk(doc.get("talks") or ()) if n.get("id")}
    outputs: dict[str, list[dict]] = {}
    for t in doc.get("talks") or ():
        for n in walk((t or {}).get("children") or ()):
            if n.get("kind") == "agent.output":
                outputs.setdefault(n.get("stream") or "", []).append({"node": n, "talk": t["id"]})
    out: dict[str, dict] = {}
    for st in doc.get("streams") or ():
        exact = [o for o in st.get("opened_by") or () if isinstance(o, dict) and o.get("quality") == "exact_unique"]
        step = nodes.get(exact[0].get("step")) if len(exact) == 1 else None
        result = _whole_result(step, record) if step is not None else None
        if not result:
            continue
        for got in outputs.get(st.get("name") or "", ()):
            text = _whole(got["node"], record)
            if text and text.strip() and (result == text or result.startswith(text + "\n")):
                out[step["id"]] = {"output": got["node"]["id"], "talk": got["talk"], "rest": result[len(text) + 1:]}
                break
    return out


def page_reading(doc: dict, dialect: str, record: Callable[[dict], dict | None]) -> dict:
    """What ``/api/c/{id}/headings`` adds for the page (docs/view.md): ``places`` (:func:`loose_places`), ``repeats``
    (:func:`repeats` of each talk's message and output steps, texts whole through ``record``, a ``ref`` dict -> the
    landed record as the record endpoint serves it, or None), ``asked`` (:func:`asked_steps`), ``prompts``
    (:func:`call_prompts`) and ``lines``: the
    adapter's short form of the record of each step standing for a runtime's own record
    (:data:`~asz_core.view.titles.SHORT_FORM_KINDS`, :func:`~asz_core.view.titles.record_line`: Claude Code's
    compaction boundary ``auto, 167,731 tokens before``, a stop hook summary ``stop hooks: 1 ran, 0 errors``), as the
    exports label it, ``compactions`` (:func:`compactions`) and
    ``reports`` (:func:`reports`), ``asks`` (:func:`asks`), ``gists`` (:func:`gists`), ``unresolved``
    (:func:`unresolved_split`) and ``drawn``: each todo list, edit and file written as the page draws it
    (:func:`~asz_core.view.tool_drawn.page_drawn`, the exports' reading: a clipped input read whole from its record)."""
    from .titles import SHORT_FORM_KINDS, record_line
    from .tool_drawn import page_drawn

    prompts = call_prompts(doc, dialect, record)
    same: dict[str, list[str]] = {}
    for t in doc.get("talks") or ():
        steps = [n for n in walk((t or {}).get("children") or ()) if n.get("kind") in ("message.assistant", "agent.output")]
        outputs = {position(n)[:3] for n in steps if n.get("kind") == "agent.output"}
        same.update(repeats([(position(n), n["kind"], n["id"], _whole(n, record)) for n in steps if position(n)[:3] in outputs]))
    lines, tools = {}, []
    for n in walk([*(doc.get("talks") or ()), *(doc.get("loose") or ())]):
        if n.get("kind") in ("tool", "agent.call"):
            tools.append(n)
        if n.get("kind") in SHORT_FORM_KINDS and n.get("state") != "omitted" and _first_ref(n):
            line = record_line(record(_first_ref(n)), dialect)
            if line:
                lines[n["id"]] = line
    return {"places": loose_places(doc), "repeats": same, "asked": asked_steps(doc), "lines": lines,
            "prompts": prompts, "compactions": compactions(doc), "reports": reports(doc, record),
            "asks": asks(doc, dialect, record, prompts), "gists": gists(doc, dialect), "unresolved": unresolved_split(doc),
            "drawn": page_drawn(tools, lambda n: (_call_part(n, record) or {}).get("data"))}
