"""``asz adapters list`` and ``asz glossary``: what is installed and what each dialect calls things.

Spec: origin-digest §5 (adapters) and §6 (glossaries); house-style lessons 6-7.
"""

from __future__ import annotations

import orjson
import typer

from ..plugins import VOCABULARY, get_plugin_manager

adapters_app = typer.Typer(help="Installed adapters (built-in and third-party).", no_args_is_help=True)


@adapters_app.command("list")
def list_adapters(
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list instead of a table."),
) -> None:
    """List every adapter found through the ``asz`` entry-point group.

    Columns: name, distribution, version (the distribution's), writes (the
    ``adapter`` value it writes into the header of every file it lands, e.g.
    ``claude-code-local/0.3.0``: the version a landed file, ``asz usage``'s
    ``?`` line and the docs name; '' when not loaded), dialects, kinds, status
    (ok, blocked, failed: reason; a failed row's reason whole under the table). A plugin that fails to load (it raises on import, a hook
    name is misspelled, its adapter's name is taken, its command hook raises)
    is listed as failed and the command still exits 0.
    """
    reg = get_plugin_manager()
    reg.register_commands(typer.Typer())  # into a scratch application: only to list a command hook that fails
    rows = [e.as_dict() for e in reg.entries]
    if as_json:
        typer.echo(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, pad_edge=False)
    for col in ("NAME", "DISTRIBUTION", "VERSION", "WRITES", "DIALECTS", "KINDS", "STATUS"):
        table.add_column(col)
    failed = [r for r in rows if r["status"].startswith("failed")]
    for r in rows:
        table.add_row(r["name"], r["distribution"], r["version"], r["writes"] or "-", ",".join(r["dialects"]),
                      ",".join(r["kinds"]), "failed (below)" if r in failed else r["status"])
    Console(width=200).print(table)
    for r in failed:  # whole, under the table: a column cut the file and line where it raised (trial 43b F7)
        typer.echo(f"{r['name']} ({r['distribution']}): {r['status']}")


def glossary(
    dialect: str = typer.Argument("", help="Dialect, e.g. kiro/1, or the name of an installed adapter that speaks one dialect (kiro). Default: claude-code/1, then a line naming the other installed dialects (with --json: every installed dialect)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: {dialects, glossaries: [{dialect, adapter, terms, flags}, ...]}; with DIALECT, {dialect, dialects, adapter, terms, flags}."),
) -> None:
    """Print a dialect's glossary (model name -> native name, where, note) and its flag mapping.

    DIALECT may name an installed adapter that speaks one dialect instead (kiro: kiro/1). Exit 2 when no installed
    adapter speaks DIALECT.
    """
    reg = get_plugin_manager()
    dialects = reg.dialects()
    if dialect and dialect not in dialects:
        named = reg.adapters().get(dialect)
        if named is not None and len(named.dialects) == 1:
            dialect = named.dialects[0]
    shown = dialect or (reg.default_dialect() if not as_json else "")  # as /api/glossary (trial 17, F17)
    wanted = [shown] if shown else dialects
    out = []
    for d in wanted:
        try:
            adapter = reg.by_dialect(d)
        except KeyError as exc:
            typer.echo(f"asz glossary: {exc.args[0]}; installed: {', '.join(dialects) or 'none'}", err=True)
            raise typer.Exit(2)
        terms = adapter.glossary(d)
        flags = adapter.flag_map(d)
        out.append(
            {
                "dialect": d,
                "adapter": adapter.name,
                "terms": {t.unified: {"native": t.native, "where": t.where, "note": t.note} for t in terms},
                "flags": {f.flag: f.rule for f in flags},
            }
        )
    if as_json:
        payload = {"dialects": dialects, "glossaries": out}
        if dialect:
            payload = {"dialect": dialect, "dialects": dialects, **{k: v for k, v in out[0].items() if k != "dialect"}}
        typer.echo(orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode())
        return
    for g in out:
        named = sum(1 for t in g["terms"].values() if t["native"])
        typer.echo(f"{g['dialect']} (adapter {g['adapter']}): {len(g['terms'])} terms: {named} named, {len(g['terms']) - named} derived")
        typer.echo("")
        typer.echo(f"{'TERM':<24} {'NATIVE':<44} WHERE / NOTE")
        for name in VOCABULARY:
            t = g["terms"].get(name)
            if t is None:
                typer.echo(f"{name:<24} {'(missing)':<44}")
                continue
            info = t["where"] + (" — " if t["where"] and t["note"] else "") + t["note"]
            typer.echo(f"{name:<24} {t['native'] or '(derived)':<44} {info}")
        extra = [k for k in g["terms"] if k not in VOCABULARY]
        for name in extra:
            t = g["terms"][name]
            typer.echo(f"{name:<24} {t['native'] or '(derived)':<44} {t['where']} {t['note']}")
        typer.echo("")
        typer.echo("FLAG                 RULE")
        for flag, rule in g["flags"].items():
            typer.echo(f"{flag:<20} {rule}")
        typer.echo("")
    others = [d for d in dialects if d != shown]
    if not dialect and not as_json and others:
        typer.echo(f"other dialects: {', '.join(others)} (asz glossary DIALECT prints one)")


def register(app: typer.Typer) -> None:
    """Add ``adapters`` and ``glossary`` to ``app``."""
    app.add_typer(adapters_app, name="adapters")
    app.command("glossary")(glossary)
