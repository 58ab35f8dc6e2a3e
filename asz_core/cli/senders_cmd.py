"""``asz senders``: the instances that sent to a receiving root, when each last sent, and which expected ones were
quiet in a window, for a morning run to alert on (trial 27b F8; docs/push.md, "Alerting on a host that did not send").

Exit codes: 0 every expected instance was seen in the window (a request taken: files or a pass's probe; or none is expected), 1 one or more were quiet
(or the root does not exist, or holds no sender record while instances are expected), 2 usage.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..storage.senders import instance_word
from ..termsafe import line_value
from .reading_common import CONFIG_HELP, ROOT_HELP, settings, time_range, tz_option, use_tz


def _when(ms: Optional[int]) -> str:
    """Unix ms as ``2026-12-02 23:10:05`` in the reader's zone (``--tz``), ``never`` for None."""
    from ..view.zone import local_text

    return local_text(ms, "%Y-%m-%d %H:%M:%S") if ms is not None else "never"


def senders(
    expect: list[str] = typer.Option([], "--expect", metavar="NAME[,NAME…]", help="An instance that should have sent: its service.instance.id (export.otlp.instance_id) or its token's credential name, exactly; commas or the option again for several (given, it replaces the configuration's receive.expect list). One that sent no landed file in the window (or never, without one) is quiet: exit 1."),
    since: str = typer.Option("", "--since", help="The window the receiver's requests are counted in (an instance none of whose requests was taken in it is quiet; IN WINDOW counts its landed files received in it): YYYY-MM-DD or YYYY-MM (a whole month), in --tz; an RFC 3339 instant, 30m/12h/7d/2w back, or today/yesterday."),
    until: str = typer.Option("", "--until", help="… and until (same forms; a date counts to its end, a month to its last day)."),
    tz: Optional[str] = tz_option(),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON object: window, instances (instance, credentials, files, sessions, first_received, last_received, in_window, last_seen, seen_in_window, refused, roots, two_roots, expected, quiet), unverified_lines, quiet (the expected instances that were quiet), expected_from (--expect, receive.expect, or null when none is expected)."),
    root: Optional[Path] = typer.Option(None, "--root", help=ROOT_HELP),
    config: Optional[Path] = typer.Option(None, "--config", help=CONFIG_HELP),
) -> None:
    """The instances that sent files to this receiving root (asz receive's sender record, _received/), and which expected ones were quiet.

    One row per sending instance: INSTANCE (service.instance.id), CREDENTIAL
    (the token file's names its requests carried), FILES (landed files it
    sent), IN WINDOW (of them, received inside --since/--until), LAST RECEIVED
    (in --tz), LAST SEEN (its last request the receiver took: files, or a
    push pass's probe with nothing due; _received/seen.list) and, for one the
    receiver took no request of in the window, 'quiet since LAST SEEN'; one
    whose requests were refused since it was last seen says 'refused: token
    does not match (last …)'. --expect names the instances that should have
    sent (else the configuration's receive.expect list, so a morning run need
    not repeat them); one not seen in the window (never, without a window: a
    wrong token too) gets a row and a stderr line (asz senders: quiet: …) and
    the exit is 1. A sender line that does not verify names no one: counted
    apart (asz verify names it). Two storage roots sending under one
    instance id (each push names its root, asz.root.id) are said in the row
    and in a note under the table: one root after the other (a root re-made)
    or two machines. Exit 0 none quiet, 1 an expected instance
    quiet or no storage root, 2 usage.
    """
    from ..reading.senders_seen import activity, expected_rows, quiet

    zone = use_tz("senders", tz)
    window = time_range("senders", since, until, zone) if since or until else None
    r, _ = settings("senders", root, config)
    names = [n.strip() for one in expect for n in one.split(",") if n.strip()]
    source = "--expect" if names else None
    if not names:  # the flag wins; without it, the receiving root's list (asz.yaml receive.expect)
        from ..config import load_config

        names = list(load_config(config).receive_expect)  # read once already by settings: it loads
        source = "receive.expect" if names else None
    rows, unverified = activity(r, window)
    rows = expected_rows(rows, names, window is not None)
    silent = quiet(rows)
    if as_json:
        from ..reading.prose_audit import instant

        shown = [{**{k: v for k, v in row.items() if k not in ("last_received_ms", "last_seen_ms")},
                  "refused": _refused_json(row["refused"])} for row in rows]
        typer.echo(json.dumps({"window": [instant(window[0]), instant(window[1])] if window else None,
                               "instances": shown, "unverified_lines": unverified,
                               "quiet": [row["instance"] for row in silent], "expected_from": source}, indent=2))
    else:
        _table(rows, window, unverified)
    span = _span(window)
    for row in silent:
        last, seen = row["last_received_ms"], row["last_seen_ms"]
        typer.echo(f"asz senders: quiet: {_who(row['instance'])} sent no landed file {span}"
                   + (f" (quiet since {_when(last)}, its last file received)" if last is not None and seen == last
                      else f" (quiet since {_when(seen)}, its last request taken)" if seen is not None
                      else " (it never sent to this root)")
                   + (f"; {_refused_text(row['refused'])}" if _refused_since(row) else ""), err=True)
    if silent:
        raise typer.Exit(1)


def _who(instance: Optional[str]) -> str:
    """An instance id as the senders' readers write it (:func:`~asz_core.storage.senders.instance_word`), ``(no
    instance id)`` for none."""
    return instance_word(instance) if isinstance(instance, str) else "(no instance id)"


def _refused_json(refused: Optional[dict]) -> Optional[dict]:
    """The ``refused`` key of a row in ``--json``: None, or ``{"why", "last", "requests"}``."""
    return {k: refused[k] for k in ("why", "last", "requests")} if refused else None


def _refused_since(row: dict) -> bool:
    """True when ``row``'s last refused request came after its last request taken (or it was never taken)."""
    r = row.get("refused")
    return bool(r) and (row["last_seen_ms"] is None or r["ms"] > row["last_seen_ms"])


def _refused_text(refused: dict) -> str:
    """``refused: token does not match (last 2026-12-05 17:54:15, 3 request(s))`` in the reader's zone."""
    from ..storage.seen_list import SHORT_WHY

    why = SHORT_WHY.get(refused["why"], refused["why"])
    return f"refused: {why} (last {_when(refused['ms'])}, {refused['requests']:,} request(s))"


def _span(window) -> str:
    """``in the window 2026-12-02 00:00:00 .. 2026-12-02 23:59:59 (UTC)`` or ``to this root`` without one."""
    if window is None:
        return "to this root"
    from ..view.zone import zone_name

    lo = _when(window[0]) if window[0] is not None else "…"
    hi = _when(window[1]) if window[1] is not None else "…"
    return f"in the window {lo} .. {hi} ({zone_name()})"


def _table(rows: list[dict], window, unverified: int) -> None:
    """The rows as a table on stdout (``--expect``'s rows marked ``expected``), then a note on unverified lines. Each
    cell one line (:func:`~asz_core.termsafe.line_value`), an instance id and a credential as every reader writes them
    (:func:`~asz_core.storage.senders.instance_word`: quoted when it holds a parenthesis, a line break, a control)."""
    from ..view.zone import zone_name

    if not rows:
        typer.echo("no sender record in this root (_received/ holds none): nothing was received here")
    else:
        head = ["INSTANCE", "CREDENTIAL", "FILES", "IN WINDOW", f"LAST RECEIVED ({zone_name()})",
                f"LAST SEEN ({zone_name()})", ""]
        lines = []
        for row in rows:
            said = []
            if _refused_since(row):
                said.append(_refused_text(row["refused"]))
            if row["quiet"] and row["last_seen_ms"] is not None:
                said.append(f"quiet since {_when(row['last_seen_ms'])}")
            elif row["quiet"] and not row["refused"]:
                said.append("never sent")
            if row.get("two_roots"):  # two roots under one name (trial 34b F3): the note below says them
                said.append(f"{len(row['roots'])} roots since {row['two_roots']['since']}")
            if row["expected"]:
                said.append("expected")
            lines.append([_who(row["instance"]), ", ".join(instance_word(c) for c in row["credentials"]) or "-",
                          f"{row['files']:,}", f"{row['in_window']:,}" if row["in_window"] is not None else "-",
                          _when(row["last_received_ms"]), _when(row["last_seen_ms"]), "; ".join(said)])
        lines = [[line_value(c) for c in line] for line in lines]  # an instance id is the sender's own word (trial 34c F3)
        widths = [max(len(x[i]) for x in [head, *lines]) for i in range(len(head))]
        for line in [head, *lines]:
            typer.echo("  ".join(c.rjust(w) if i in (2, 3) else c.ljust(w) for i, (c, w) in enumerate(zip(line, widths))).rstrip())
    if unverified:
        typer.echo(f"{unverified:,} sender line(s) do not verify: they name no instance here (asz verify names each)")
    for row in rows:
        if row.get("two_roots"):
            from ..storage.sender_roots import two_roots_line

            typer.echo("note: " + line_value(two_roots_line({**row["two_roots"], "roots": row["roots"]},
                                                            _who(row["instance"]))))


def register(app: typer.Typer) -> None:
    """Add ``senders`` to ``app``."""
    app.command("senders")(senders)
