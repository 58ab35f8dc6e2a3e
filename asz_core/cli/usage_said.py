"""What ``asz usage`` says when its filters match nothing (docs/reading.md: every reader says it on stderr and exits
1): --project/--model/--instance/--dialect that keep no call, a --since/--until window that holds none."""

from __future__ import annotations

from pathlib import Path

import typer

__all__ = ["matched_nothing", "say_problems", "nothing_line", "copies_line"]


def matched_nothing(counted: list, rows: list[dict], left_out: list[dict], given: dict[str, str], window: tuple) -> bool:
    """True when the filters match nothing: ``given`` (--project/--model/--instance/--dialect by name) keep no call
    of ``counted``, or the ``window`` (``(since, until)`` unix ms, None each when not given) holds none: no row (a
    call counted or held back in it) and no call it cannot place (``left_out``, :func:`~asz_core.cli.usage_cmd.no_time_line`),
    as the same window matches nothing in asz ls and asz export (trial 26b F2: a table of zeros, exit 0)."""
    return (not counted and any(given.values())) or (window != (None, None) and not rows and not left_out)


def copies_line(counted: list, window: tuple) -> str:
    """When a ``window`` (``(since, until)`` unix ms) holds no row, what it holds all the same: the model calls made in it
    that are copies of calls counted under a copy made outside it (a session copied under a new id and moved in time;
    :func:`~asz_core.view.usage_once.once_in`, trial 48d F2), so an empty window is not read as one where nothing ran;
    '' when none."""
    from ..view.usage_report import in_report

    n = sum(1 for c in in_report(counted, *window) if c.credits is None and not c.held) if window != (None, None) else 0
    return (f"{n:,} model call(s) made in the window are copies of calls two conversations hold, counted under a copy "
            "made outside it, so in no row of it, as the report without --since/--until places them (asz usage session "
            "with the window gives each conversation's own figure)") if n else ""


def say_problems(problems: list[str], unmatched: bool, storage: Path, given: dict[str, str], projects: dict | None = None,
                 also: str = "") -> bool:
    """Each problem line of the conversations read (held back, unreadable), on stderr as ``asz usage: LINE``, then,
    when ``unmatched`` (the filters, ``given`` by name, match no call of a root with conversations: a root with none
    yet is no filter's fault, exit 0 with no line, as asz ls lists none), :func:`nothing_line`'s line (``projects``:
    every project the root's calls name) and ``also`` (:func:`copies_line`, when not ''); returns ``unmatched``."""
    for line in [*problems, nothing_line(storage, given, projects), *([also] if also else [])] if unmatched else problems:
        typer.echo(f"asz usage: {line}", err=True)
    return unmatched


def nothing_line(storage: Path, given: dict[str, str], projects: dict | None = None) -> str:
    """The line for a --project/--model/--instance/--dialect that no counted call matches (trial 17c: a mistyped filter read as
    no usage), or a --since/--until window that holds none (trial 26b F2); ``given``: option name -> value as typed.
    With a --project no call of ``projects`` (every project the root's calls name, each with its conversations' calls)
    matches, how asz names projects and those of the sessions read from a folder of that name, else the nearest ones (:func:`~asz_core.cli.usage_projects.project_hint`; trial 48a F6: ccusage's folder name matched
    nothing and nothing said why)."""
    from .usage_projects import project_hint

    said = " and ".join(f"--{k} {v!r}" for k, v in given.items() if v)
    where = " and instances (asz ls --json: senders)" if given.get("instance") else ""
    where += " and dialects (asz ls --json: dialect)" if given.get("dialect") else ""
    where += ", and each conversation's LAST ACTIVITY" if given.get("since") or given.get("until") else ""
    hint = project_hint(projects, given["project"], storage) if given.get("project") and projects else ""
    hint = f"; {hint}" if hint else ""
    return f"no model call in {storage} matches {said} (asz ls lists the projects and models{where}{hint})"
