"""``asz secrets``: the credentials the conversations of a root hold, found in the search index's texts before the root
is shared or pushed (docs/reading.md, "Credentials").

Split from :mod:`asz_core.cli.search_cmd`, which registers the command beside ``asz search``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import orjson
import typer

from ..view.rate_words import listed_title
from .reading_common import filter_option, CONFIG_HELP, ROOT_HELP, dialect_option, linked_said, make_filters, model_option, project_option, settings, tz_option, use_tz
from .search_cmd import kept_note, none_kept
from .search_index import asked, indexed_said

__all__ = ["secrets"]


def secrets(
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list of findings (conversation, title, kind, at, step, file, row, secret, masked, fingerprint, field: text, project or git_branch)."),
    project: str = project_option(),
    since: str = filter_option("--since", "Only texts at or after: YYYY-MM-DD or YYYY-MM (a whole month), in --tz; an RFC 3339 instant, 30m/12h/7d/2w back, or today/yesterday (a calendar day in --tz)."),
    until: str = filter_option("--until", "Only texts at or before (same forms; a date counts to its end, a month to its last day)."),
    tz: Optional[str] = tz_option(),
    model: str = model_option(),
    dialect: str = dialect_option(),
    root: Optional[Path] = typer.Option(None, "--root", help=ROOT_HELP),
    config: Optional[Path] = typer.Option(None, "--config", help=CONFIG_HELP),
) -> None:
    """Find credentials the conversations of a root hold (API keys, tokens, private keys), before it is shared or pushed.

    Every text the search index holds is read (prompts, replies, thinking, tool inputs and results, withheld records
    included): the index is brought up to date first, as asz search does, with its progress on stderr (the first time
    over a large history a minute or more: every conversation is indexed); and each conversation's project (its working
    directory) and git branch, as asz ls lists them, each finding there naming its field. Only forms fixed by their issuer are
    found (AWS access key ids, AWS secret access keys beside their name or key id, GitHub, GitLab, Anthropic,
    OpenAI, Slack, Google, Stripe live, Hugging Face and npm tokens, PEM private keys, JSON Web Tokens, the password
    of an address such as postgres://user:PASSWORD@host, a password given to its name or flag, the value of --secret,
    --token or --api-key, mysql's -p and curl's -u USER:PASSWORD, Azure keys and SAS signatures; docs/reading.md
    lists them), so a finding is very likely real
    and a credential of any other form is not found. An index SQLite finds damaged is said in a warning, deleted,
    built again and read again, as asz search does. No value is printed: each finding shows its first and last 4
    characters (a password: ***) and a fingerprint (12 hex digits of an HMAC-SHA256 under the root's own key,
    _export/mask.key: no guess can be tested against it) that is the same wherever the credential appears, as a masked export's manifest gives it,
    with its conversation, time, text kind, step, landed file and row (asz show ID prints the record). Exit 0 when
    nothing is found, 1 when something is, when the root is missing, or when --project/--model/--dialect/--since/--until
    keep no conversation (said on stderr as asz ls says it, ``asz secrets: no conversation matched --project P (of N
    in ROOT; …); nothing was scanned``, and nothing on stdout, not even --json's []: a gate stops, never reads a
    filter that matched nothing as clean), 2 on usage errors.
    """
    from ..reading.search import SearchError, index_path
    from ..reading.search_place import index_file
    from ..reading.secrets import PLACE_FIELDS, keyed_findings, scan, scan_places
    from ..reading.termtext import visible
    from ..view.zone import local_text

    zone, (r, hide) = use_tz("secrets", tz), settings("secrets", root, config)
    filters = make_filters("secrets", project, since, until, model, dialect, zone, r)
    indexed_said(r, False, as_json, "secrets")  # its progress and time, as asz search says them (trial 47d F2)
    none_kept("secrets", r, filters, {"--project": project, "--model": model, "--dialect": dialect, "--since": since,
                                       "--until": until}, tail="; nothing was scanned")
    unjudged: list[str] = []
    try:  # a damaged index is built again and read once more, as asz search's query does (session 43)
        found = asked(r, "secrets", lambda: scan(r, index_file(r, index_path(r)), filters, unjudged))
    except SearchError as exc:
        typer.echo(f"asz secrets: {exc}", err=True)
        raise typer.Exit(1)
    found, note = keyed_findings(r, found + scan_places(_rows(r, hide, filters, config)))  # a cwd's and a branch's (trial 37a F2)
    if note:
        typer.echo(f"asz secrets: {note}", err=True)
    kept_note("secrets", r, unjudged, filters, "listed")  # never left out silently: their project is not known (trial 25b F3)
    linked_said("secrets", r, "scanned", "note: ")  # a chain whose rounds folder is a link: never left out silently (review48)
    if as_json:
        from ..reading.termtext import json_visible  # U+202E printed as \u202e (trial 34c F9)

        sys.stdout.buffer.write(json_visible(orjson.dumps(found, option=orjson.OPT_INDENT_2)) + b"\n")
    else:
        from ..reading.ids import shown_conversation_ids

        short = shown_conversation_ids(r, {f["conversation"] for f in found})  # each can be given back (trial 20, F10)
        for f in found:
            when = local_text(f["at"], "%Y-%m-%d %H:%M") if f["at"] else "-"
            typer.echo(f"{short[f['conversation']]}  {when}  {f['kind']:<11}  {f['secret']}  {f['masked']}  "
                       f"(fingerprint {f['fingerprint']})  {visible(listed_title(f['title']) or '(untitled)')}")
            typer.echo(f"  {PLACE_FIELDS[f['field']]}" if f["field"] in PLACE_FIELDS else
                       f"  {visible(f['step'] or '-')}  {visible(f['file'])}:{f['row']}")
        from ..view.secret_forms import counted

        places, distinct = counted([f["fingerprint"] for f in found for _ in range(f.get("places", 1))])
        convs = len({f["conversation"] for f in found})
        typer.echo(f"{places:,} place(s) of {distinct:,} credential(s) in {convs:,} conversation(s)" if found
                   else "no credential of a known form found")
    if found:
        raise typer.Exit(1)


def _rows(r: Path, hide, filters, config: Optional[Path]) -> list[dict]:
    """The list rows ``asz ls`` shows, under its key (asz.yaml's prices: kept rows reused, not counted again unsaid
    under the shipped table's, trial 48d F3: 13.2 s) and its progress line, ``conversations: N of M …``."""
    from ..view.rows import list_conversations
    from .configured import config_prices
    from .conversations_cmd import listed_rows

    return listed_rows("secrets", r, hide, filters, list_conversations(r), config_prices(config, "asz secrets"))
