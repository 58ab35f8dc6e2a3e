"""``asz conversation ID --step STEP``: a hit of ``asz search`` read in its context, from the terminal (trial 42b F6).

The talk holding the step is printed as the Markdown export draws a talk (:func:`~asz_core.reading.export_talk.talk_markdown`:
each step's head line with its id, the texts whole, tool calls with their input and result, each model call's
tokens), credentials masked as the md export masks them, the step's head line beginning with ``▶``; under a short
head naming the conversation and where the talk stands among its talks (docs/reading.md, Reading a hit in its talk).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

__all__ = ["print_step", "step_command", "open_command", "open_line", "opened"]


def step_command(conversation: str, step: str, where: list[str]) -> str:
    """The command that prints ``step`` of ``conversation`` in its talk: ``asz conversation ID --step STEP`` then
    ``where`` (``[flag, value, …]``: the ``--root``, ``--config`` and ``--tz`` given), each word quoted for a POSIX
    shell (:func:`~asz_core.termsafe.shell_word`); what ``asz search`` prints under each hit."""
    from ..termsafe import shell_word

    return " ".join(map(shell_word, ["asz", "conversation", conversation, "--step", step, *where]))


def opened(given: list[str]) -> list[str]:
    """Of ``given`` (the options as :func:`~asz_core.cli.search_cmd.again` takes them), the ``--root``, ``--config``
    and ``--tz`` given: what the command that opens a hit in its talk takes too (:func:`open_line`)."""
    return _pairs(given, ("--root", "--config", "--tz"))


def _pairs(given: list[str], flags: tuple[str, ...]) -> list[str]:
    """Of ``given`` (``[flag, value, …]``), the pairs whose flag is one of ``flags``, in their order."""
    return [x for i in range(0, len(given) - 1, 2) if given[i] in flags for x in given[i:i + 2]]


def open_command(short: str, hit: dict, where: list[str]) -> str:
    """The command that opens ``hit`` from the terminal: ``asz conversation ID --step STEP [--root R]…``, its talk with
    its step marked (:func:`step_command`; ``short``: the conversation as the hit names it, ``where``: :func:`opened`;
    trial 42b F6); for a hit no step cites that names its record's place (an ``undescribed`` record's kept bytes,
    trial 47c F2), ``asz show SESSION FILE:ROW [--root R] [--config C]``, which prints that record and its bytes (the
    session the file's folder); '' for neither. What ``asz search --json`` gives as a hit's ``open``."""
    from ..termsafe import shell_word

    if hit.get("step"):
        return step_command(short, hit["step"], where)
    file, row = hit.get("file"), hit.get("row")
    if not (isinstance(file, str) and "/" in file and isinstance(row, int)):
        return ""
    shown = _pairs(where, ("--root", "--config"))  # asz show takes no --tz
    return " ".join(map(shell_word, ["asz", "show", file.split("/", 1)[0], f"{file}:{row}", *shown]))


def open_line(short: str, hit: dict, where: list[str]) -> str:
    """``open: COMMAND``: :func:`open_command` as ``asz search`` prints it under a hit; '' for a hit it cannot open."""
    from ..reading.termtext import visible

    return f"open: {visible(opens)}" if (opens := open_command(short, hit, where)) else ""


def _nodes(doc: dict) -> dict[str, dict]:
    """``{node id: node}`` of every node of ``doc`` (its talks and what lies under them, and its loose nodes)."""
    from ..view.placing import walk

    return {n["id"]: n for part in ("talks", "loose") for n in walk(doc.get(part) or ()) if isinstance(n.get("id"), str)}


def _holds(t: dict, step: str) -> bool:
    """Whether the drawn talk ``t`` (:func:`~asz_core.reading.export_steps.steps`) is ``step`` or draws it: as a step, its
    prompt, or a model call placed at one of its steps."""
    ids = [s["id"] for s in t["steps"]] + [c["id"] for s in t["steps"] for c in s.get("calls") or ()]
    return (t["talk"] or {}).get("id") == step or step in ids or (t["prompt"] or {}).get("id") == step


def _talk_of(doc: dict, step: str) -> str:
    """The id of the talk of ``doc`` under which the node ``step`` lies, '' when none does (a loose node)."""
    from ..view.placing import walk

    for talk in doc.get("talks") or ():
        if any(n.get("id") == step for n in walk([talk])):
            return talk["id"]
    return ""


def print_step(r: Path, doc: dict, step: str, prices) -> None:
    """Print the talk of ``doc`` (a conversation's asz.view document in root ``r``) holding ``step`` (a step's node id
    as ``asz search`` prints it, a model call's ``call/…``, a talk's id, or a sub-agent's ``prompt/…``), the step
    marked; thinking is drawn when the step is a thinking step. A node the md form does not draw (a kind it leaves out)
    prints its talk, and stderr says the node is not drawn and how ``asz show`` prints its records. Exit 1, nothing
    printed, when no node or drawn step of the conversation has that id: ``asz conversation: no step 'STEP' in
    conversation ID; asz conversation ID --json lists the ids of its nodes``."""
    from ..reading.export import doc_dialect, drawn_steps
    from ..reading.export_talk import talk_markdown
    from ..reading.termtext import md_line
    from ..termsafe import shell_word
    from ..view.secret_forms import Masker

    cid, node = doc["conversation"], _nodes(doc).get(step)
    kind = (node or {}).get("kind", "")
    talks = drawn_steps(r, doc, kind == "thinking", doc_dialect(r, doc), Masker(True))
    mark, ref = step, (node or {}).get("ref") or {}
    at = next((i for i, t in enumerate(talks) if _holds(t, step)), None)
    said = "the talk itself" if at is not None and step == (talks[at]["talk"] or {}).get("id") else "its head line begins with ▶"
    if at is None and ref:  # a sub-agent's run: drawn as the prompt its talk was asked, the record it cites
        alias = f"prompt/{ref.get('seq')}/{ref.get('row')}"
        if (at := next((i for i, t in enumerate(talks) if (t["prompt"] or {}).get("id") == alias), None)) is not None:
            mark, said = alias, f"drawn as {alias}, what its talk was asked (the record it cites), whose head line begins with ▶"
    if at is None and node is not None:  # a node the md form leaves out: its talk, and what prints it
        talk = _talk_of(doc, step)
        at = next((i for i, t in enumerate(talks) if talk and (t["talk"] or {}).get("id") == talk), None)
        session = (doc.get("sessions") or [cid])[0]
        said = (f"a {kind} node, not drawn as a step: asz show {shell_word(session)} {shell_word(step)} --root "
                f"{shell_word(r)} prints its records")
        typer.echo(f"asz conversation: {step}: {said}", err=True)
    if at is None:
        if node is None:
            typer.echo(f"asz conversation: no step {step!r} in conversation {cid}; asz conversation {shell_word(cid)} "
                       "--json lists the ids of its nodes", err=True)
        raise typer.Exit(1)
    title, numbered = (doc.get("summary") or {}).get("title") or "(untitled)", sum(t["talk"] is not None for t in talks)
    where = (f"talk {sum(t['talk'] is not None for t in talks[:at + 1])} of {numbered}" if talks[at]["talk"] is not None
             else "the steps of a stream under no talk")
    head = [f"# {md_line(title)}", "", f"- conversation: `{cid}`", f"- step `{md_line(step)}`, in {where}: {said}"]
    sys.stdout.write("\n".join(head + talk_markdown(talks[at], headings_of(talks)[at], prices, mark)) + "\n")


def headings_of(talks: list[dict]) -> list[str]:
    """Each drawn talk's heading as the md export writes it after ``## `` (``Talk 2: …``)."""
    from ..reading.export_nav import navigated

    return navigated([], "", talks)
