"""``asz sources``'s table (:func:`asz_core.cli.collect_cmd.sources`; docs/cli.md): one line per source of each
adapter's sessions, then what is said of them (skipped entries, torn tails, errors, conflicts, erased sessions, sources
gone)."""

from __future__ import annotations

from pathlib import Path

import typer

__all__ = ["sources_table", "num"]


def sources_table(out: list[dict], storage: Path, gone: list[dict]) -> None:
    """``asz sources``'s table: per adapter of ``out`` (:func:`~asz_core.collect.survey.survey`) its sources and lines,
    then a ``gone:`` line per source of ``gone`` (:func:`asz_core.cli.collect_cmd.sources_gone`)."""
    from ..collect.folders import NO_DEFAULT
    from ..collect.src_text import shown
    from ..storage.cursor import dated_reason
    from ..termsafe import one_line  # a source's name can hold an OSC or a newline (trial 27c F4)

    noted: set[tuple[str, str]] = set()  # an adapter's note (Discovery.notes) two adapters give is said once
    for a in out:
        n_src = sum(len(s["sources"]) for s in a["sessions"])
        typer.echo(f"{a['adapter']} from {' and '.join(a.get('source_roots') or [a['source_root']])} into {storage}: "
                   f"{len(a['sessions'])} session(s), {n_src} source(s)")
        if a.get("missing") and len(a["missing"]) == len(a.get("source_roots") or ()):  # a default folder: a note
            typer.echo(f"note: {' and '.join(a['missing'])}: {NO_DEFAULT.format(adapter=a['adapter'])}")
        for p in a.get("missing", ()) if len(a.get("missing") or ()) < len(a.get("source_roots") or ()) else ():
            typer.echo(f"note: {p}: no such source folder for adapter {a['adapter']}; its other source folders are listed")
        wide = max([38, *(len(sess["session"]) + 2 for sess in a["sessions"])])  # a prefixed id (trial 43b F9: toyrun-<uuid>)
        typer.echo(f"{'SESSION':<{wide}} {'KIND':<18} {'MODE':<8} {'SIZE':>12} {'LANDED':>12} {'UNREAD':>12} {'STATE':<12} SRC")
        for sess in a["sessions"]:
            for s in sess["sources"]:
                typer.echo(f"{sess['session']:<{wide}} {s['kind']:<18} {s['mode']:<8} {num(s['size']):>12} {num(s['landed']):>12} "
                           f"{num(s['unread']):>12} {s['state']:<12} {shown(s['src'])}")
        for sess in a["sessions"]:
            if sess.get("erased"):
                typer.echo(one_line(f"erased: {sess['session']}: {sess['erased']}; delete the source, or move it out of "
                                    "the collected folders"))
        for n in a.get("notes", ()):
            if (n["path"], n["message"]) not in noted:
                noted.add((n["path"], n["message"]))
                typer.echo(one_line(f"note: {n['path']}: {n['message']}"))
        for e in a.get("skipped_entries", ()):
            typer.echo(f"skipped: {shown(e['path'])}: {e['reason']}")  # bytes not UTF-8 as \\xNN, never \ufffd
        for line in a.get("torn_tails", ()):
            typer.echo(one_line(line))
        for e in a["errors"]:
            typer.echo(one_line(f"error: {e['path']}: {e['message']}"), err=True)
        for e in [*a.get("conflicts", ()), *(s for sess in a["sessions"] for s in sess["sources"] if s.get("next") or s.get("other_adapter"))]:
            why = dated_reason(e["reason"], e["since"], e["size"]) if "since" in e else e["reason"]  # the size now, dated
            typer.echo(one_line(f"conflict: {e['path']}: {'; '.join(x for x in (why, e.get('next')) if x)}"), err=True)
    from ..view.conflicts import gone_line

    for g in gone:
        typer.echo(one_line(f"gone: {g['session']}: {gone_line(g)}"))


def num(v) -> str:
    """A size in bytes as printed: ``-`` when not known (None)."""
    return "-" if v is None else str(v)
