"""``asz verify``'s work, without Typer: what :func:`asz_core.cli.verify_cmd.verify` (the Typer command, its options'
declarations and help) runs, and what the ``asz`` console script runs straight away for the forms a user and a cron
job give (:func:`light`: ``asz verify [SESSION] [--root R] [--json] [--jobs N]``), before Typer loads (issue 22: the
command's start against SHA-256 of the same files). Origin-digest §8.1; seed 000, Record.

Every line goes through :func:`asz_core.cli.echo.echo` (``typer.echo``'s bytes) and every exit is a ``SystemExit``,
so both ways of starting print the same bytes and exit with the same codes: 0 whole and contiguous, 1 problems found,
2 usage (a missing path, root or session; an empty folder given as the root; a file that is not ``.sd``/``.sk``; a bad
configuration file; a negative ``--jobs``), 130 on Ctrl-C.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, NoReturn, Optional

from ..collect.workers import jobs_from_option
from ..config import user_path
from ..storage.layout import DEFAULT_ROOT
from .echo import echo
from .quick import FLAG, WORD, read_options, with_user_paths
from ..termsafe import shell_word


def _root_from_config(config: Optional[Path]) -> str:
    """``storage.root`` from ``config`` (or ``./asz.yaml``); ``./data`` when no configuration says otherwise."""
    try:
        from ..config import load_config
    except ImportError:  # pragma: no cover - the configuration module is optional here
        if config is not None:
            raise _usage("--config: configuration files are not supported by this build")
        return DEFAULT_ROOT
    try:
        return load_config(config).root
    except ValueError as exc:  # ConfigError names the file and key
        raise _usage(f"configuration: {exc}") from None


def _is_session(root: Optional[Path], cfg_root: str, name: str) -> bool:
    """True when ``name`` is a session directory of the root (``--root``, else ``cfg_root``). Never raises."""
    from ..storage.layout import session_dir

    try:
        return session_dir(Path(root) if root is not None else Path(cfg_root), name).is_dir()
    except ValueError:  # not usable as a session id
        return False


def root_hint(where: str) -> str:
    """:func:`asz_core.cli.reading_common.root_hint`, imported only when a root is missing (that module loads the
    readers, which verify does not otherwise need: issue 22, the command's start)."""
    from .reading_common import root_hint as hint

    return hint(where)


def _usage(message: str) -> SystemExit:
    echo(f"asz verify: {message}", err=True)
    return SystemExit(2)


def run(target: Optional[str] = None, root: Optional[Path] = None, config: Optional[Path] = None, as_json: bool = False,
        deep: bool = False, figures: bool = False, receipts: Optional[List[Path]] = None, export: Optional[Path] = None,
        manifest: Optional[Path] = None, sha256: str = "", jobs: int = 0) -> NoReturn:
    """``asz verify`` with the values of its options (:func:`asz_core.cli.verify_cmd.verify` declares them and their
    help): prints the report (``--json``: one JSON object) and, on stderr, a note when the root holds entries open to
    more users than the umask allows (:func:`asz_core.storage.modes.modes_note`: a root an older asz made, with the
    ``chmod`` that closes it), and exits 0 whole, 1 problems, 2 usage (said on stderr as ``asz verify: …``), 130 on Ctrl-C during the check (said with how far it got). ``jobs``: processes checking the
    landed files (0 one per CPU, 1 this process only; a negative one is a usage error). Paths reach it with ``~``
    expanded (:func:`asz_core.cli.quick.with_user_paths`)."""
    try:
        workers = jobs_from_option(jobs)
    except ValueError as exc:
        raise _usage(str(exc)) from None
    if export is not None or manifest is not None or sha256:
        _export_only(export, manifest, sha256, root, config, as_json, others=target is not None or bool(receipts) or figures or deep,
                     jobs=workers)
    target = None if target is None else user_path(target)  # a PATH given as "~/…" (a session id never starts with ~)
    cfg_root = _root_from_config(config)  # a bad configuration file is a usage error (exit 2) whatever the target
    if target is not None and target.endswith(".sf"):
        raise _usage(f"{target} is a Session Flow round, not Session Data: rounds are checked with the root they belong to (asz verify --root DIR)")
    if target is not None and not target.endswith((".sd", ".sk")) and Path(target).is_file() and not _is_session(root, cfg_root, target):
        raise _usage(f"{target} is not a Session Data file (.sd) or skeleton (.sk): give one landed file, "
                     "a session id, or the root as --root DIR")
    if target is not None and target.endswith((".sd", ".sk")):
        report = _one_file(target, figures, bool(receipts), deep)
    else:
        where = str(root) if root is not None else cfg_root
        if not Path(where).is_dir():
            raise _usage(f"no storage root at {where} {root_hint(where)}")  # as every reader says it (exit 2 here)
        if target is not None and not _is_session(root, cfg_root, target) and not Path(target).exists():
            target = _prefixed(where, target)
        try:
            report, walked = _verify_with_bar(where, target, deep, _receipts(receipts) if receipts else None, workers)
        except FileNotFoundError as exc:
            hint = f" ({target} is a directory: give it as --root {shell_word(target)})" if target and Path(target).is_dir() else ""
            raise _usage(f"{exc}{hint}") from None
        _add_figures(report, where, target, config, figures)
        from ..storage.modes import modes_note  # a root an older asz left open to others: said once (trial 34c F5)
        from ..verify.clean import linescan

        # the session and chain folders as the workers walked them; the rest walked in C where it was built
        if note := modes_note(where, walked, linescan.open_below if linescan is not None else None):
            echo(note, err=True)
    if as_json:
        echo(json.dumps(report.as_dict(), ensure_ascii=False))
    else:
        for line in report.lines():
            echo(line)
    raise SystemExit(0 if report.ok else 1)


def _prefixed(where: str, target: str) -> str:
    """The session id ``target`` (a unique prefix of one) names in root ``where``; ``target`` itself when none does
    (verify then names the missing session); a usage error (exit 2) naming the matches when several do."""
    from ..reading.ids import AmbiguousId, UnknownId, session_id

    try:
        return session_id(where, target)
    except AmbiguousId as exc:
        raise _usage(str(exc)) from None
    except UnknownId:
        return target


def _export_only(export: Optional[Path], manifest: Optional[Path], sha256: str, root: Optional[Path],
                 config: Optional[Path], as_json: bool, others: bool, jobs: int = 1) -> None:
    """``--export FILE`` (with ``--manifest``/``--sha256``): check that masked copy (:func:`_check_export`, which
    exits); a usage error (exit 2) for ``--manifest``/``--sha256`` without it, or with a SESSION, PATH, --receipts,
    --figures or --deep (``others``)."""
    if export is None:
        raise _usage("--manifest and --sha256 go with --export FILE (a copy asz export --redact wrote)")
    if others:
        raise _usage("--export checks one masked copy (with --root, against that root); give no SESSION, PATH, "
                     "--receipts, --figures or --deep with it")
    _check_export(export, manifest, sha256, root, config, as_json, jobs)


def _one_file(target: str, figures: bool, receipts: bool, deep: bool):
    """The report of one landed ``.sd``/``.sk`` file checked on its own (:func:`asz_core.verify.walk.verify_file`); a
    usage error (exit 2) for --figures or --receipts with it, or a file that is not there."""
    from ..verify.walk import verify_file

    if figures:
        raise _usage("--figures checks the figures of a root's conversations (asz verify --figures --root DIR), not of one file")
    if not Path(target).is_file():
        raise _usage(f"{target}: no such file")
    if receipts:
        raise _usage("--receipts holds a root to what pushing hosts say it accepted (asz verify --root DIR --receipts HOST), not one file")
    report = verify_file(target, deep=deep)
    if deep and target.endswith((".sd", ".sk")):  # its records' flags held to their adapter's declared rules (trial 25a F7)
        from ..verify.flag_rules import files_section

        flags = files_section([target])
        if flags is not None:
            report.sections.append(flags)
    return report


def _receipts(given: List[Path]) -> list:
    """``(shown, PushState)`` for each ``--receipts`` value: a host's root (its ``push.state``) or a state file
    (``push.state`` copied, or a kept endpoint's ``_export/endpoints/<endpoint>.state``). Raises a usage error (exit
    2) for one that is missing, holds no push.state, or does not read as one (docs/push.md)."""
    from ..export.state import ENDPOINTS, STATE_NAME, PushState

    out = []
    for g in given:
        path = Path(user_path(str(g)))
        if path.is_dir():
            if not (path / STATE_NAME).is_file():
                raise _usage(f"--receipts {g}: no {STATE_NAME} in this folder: give a host's root that pushed, the "
                             f"copy of its {STATE_NAME}, or a state it keeps for another endpoint ({ENDPOINTS}/*.state)")
            path = path / STATE_NAME
        elif not path.is_file():
            raise _usage(f"--receipts {g}: no such file or folder")
        try:
            state = PushState.load_file(path)
        except (ValueError, OSError) as exc:
            raise _usage(f"--receipts {g}: {exc}") from None
        if not state.endpoint and not state.pushed:
            raise _usage(f"--receipts {g}: {path} holds no receipt (no endpoint, no pushed line): not a push.state")
        out.append((str(path), state, _kept_beside(path), _due(path.parent, state) if path.parent == Path(
            user_path(str(g))) else None, _host_of(path)))
    return out


def _host_of(path: Path) -> Optional[Path]:
    """The host's root a receipts file belongs to (``HOST/push.state``, ``HOST/_export/endpoints/*.state``) when that
    folder is a root (its ``_sessions.list``): verify reads its ``_erased.list`` (docs/verify.md); None for a copy."""
    from ..export.state import ENDPOINTS, STATE_NAME
    from ..storage.session_list import SESSION_LIST

    host = path.parent if path.name == STATE_NAME else path.parents[2] if path.parent.parts[-2:] == ENDPOINTS.parts else None
    return host if host is not None and (host / SESSION_LIST).is_file() else None


def _due(host: Path, state) -> list[str]:
    """The landed files and rounds of the host's root ``host`` (in push order, :func:`~asz_core.export.wire.outbox`)
    that its receipts ``state`` hold no ``pushed`` line of: due for its next push to that endpoint (trial 32c F6: a
    host whose every push was refused read "0 file(s) the receiver accepted … 0 missing" and nothing more)."""
    from ..export.wire import outbox

    try:
        return [f.rel for f in outbox(host) if f.rel not in state.pushed]
    except OSError:
        return []


def _kept_beside(path: Path) -> list:
    """``(shown, PushState)`` of the receipts the same host keeps of its other endpoints: beside ``HOST/push.state``,
    each ``HOST/_export/endpoints/*.state``; beside a kept state, ``HOST/push.state`` and the other kept ones. What
    verify names when ``path``'s receipts are another receiver's (docs/verify.md). One that does not read is left out."""
    from ..export.state import ENDPOINTS, STATE_NAME, PushState

    host = path.parent if path.name == STATE_NAME else path.parents[2] if path.parent.parts[-2:] == ENDPOINTS.parts else None
    if host is None:  # a copy: kept beside nothing
        return []
    out = []
    for other in [host / STATE_NAME, *sorted((host / ENDPOINTS).glob("*.state"))]:
        if other.is_file() and other.resolve() != path.resolve():
            try:
                out.append((str(other), PushState.load_file(other)))
            except (ValueError, OSError):
                continue
    return out


def _add_figures(report, where: str, target: Optional[str], config: Optional[Path], figures: bool) -> None:
    """Append to ``report`` the figures counted again (``figures``), else the line of the cached entries not counted."""
    if figures:
        report.sections.append(_figures_with_bar(where, target, config))
        return
    from ..reading.figures import cache_unchecked

    unchecked = cache_unchecked(where, target)
    if unchecked is not None:
        report.sections.append(unchecked)


def _verify_with_bar(where: str, target: Optional[str], deep: bool, receipts: Optional[list] = None,
                     jobs: Optional[int] = None):
    """:func:`asz_core.verify.walk.verify` under a progress bar over sessions then chains (a terminal only), then
    :func:`asz_core.view.executions_check.arguments_section` (the MCP execution records held against the transcript's
    input) and, with ``deep``, :func:`asz_core.verify.flag_rules.flags_section` (record flags no declared rule sets);
    Ctrl-C says how far it got and exits 130 (verify changes nothing). The root's sessions and chains are listed once
    for all of them (:func:`asz_core.storage.layout.listings_held`). Returns the report and what the workers told of
    the modes under the session and chain folders they checked (:attr:`~asz_core.flow.verify_chain.Seen.open_below`,
    for :func:`asz_core.storage.modes.modes_note`)."""
    from ..storage.layout import listings_held

    with listings_held():
        return _verify_listed(where, target, deep, receipts, jobs)


def _verify_listed(where: str, target: Optional[str], deep: bool, receipts: Optional[list], jobs: Optional[int]):
    """:func:`_verify_with_bar`'s work."""
    from ..flow.chain import conversation_dirs
    from ..flow.verify_chain import Seen
    from ..reading.progress import Bar
    from ..storage.layout import session_dirs
    from ..verify.walk import verify

    if target is None:
        sessions, chains = len(session_dirs(Path(where))), len(conversation_dirs(Path(where)))
    else:
        sessions, chains = 1, 1
    bar = Bar("verify", sessions + chains, unit="session(s) and chain(s)")
    try:
        with bar:
            seen = Seen()  # what the chain checks list and read, read again by no check after them
            unheld: set[str] = set()  # landed files the landed check read whole and found no MCP call's name in
            report = verify(where, target, jobs=jobs, deep=deep, step=lambda name, n: bar.advance(name[:8], n), receipts=receipts,
                            seen=seen, unheld=unheld)
        from ..view.executions_check import arguments_section, named_files  # the view room reads a document's executions

        # execution records whose arguments differ: warnings (trial 23a, F8); a file the landed check passed is not hashed again
        arguments = arguments_section(where, target, named_files(report.problems), seen, unheld)
        if arguments is not None:
            report.sections.append(arguments)
        from ..verify.untimed import untimed_section  # records whose time does not read: warnings (trial 30a F8)

        if (untimed := untimed_section(where, target, seen.marked)) is not None:  # an index read without its mark: not again
            report.sections.append(untimed)
        if deep:  # records flagged by no rule their adapter declares, landed before collect refused them (trial 25a F7)
            from ..verify.flag_rules import flags_section

            flags = flags_section(where, target)
            if flags is not None:
                report.sections.append(flags)
        return report, seen.open_below
    except KeyboardInterrupt:  # said once the bar is gone (on its line it was cut or wiped)
        checked = min(bar.done, sessions)
        echo(f"asz verify: interrupted after checking {checked} of {sessions} session(s) and "
                   f"{bar.done - checked} of {chains} chain(s); nothing was changed, no verdict", err=True)
        raise SystemExit(130)


def _figures_with_bar(where: str, target: Optional[str], config: Optional[Path]):
    """:func:`asz_core.reading.figures.check_figures` under a progress bar (a terminal only); Ctrl-C exits 130."""
    from ..reading.progress import Bar
    from ..reading.figures import check_figures
    from ..view.rows import list_conversations
    from .configured import config_prices

    prices = config_prices(config, "asz verify")
    bar = Bar("figures", 1 if target else len(list_conversations(Path(where))), unit="conversation(s)")
    try:
        with bar:
            return check_figures(where, prices, step=lambda cid: bar.advance(cid[:8], 1), only=target, stage=bar.stage)
    except KeyboardInterrupt:
        echo(f"asz verify: interrupted after counting the figures of {bar.done} conversation(s) again; "
                   "what differed so far was removed from the cache, no verdict", err=True)
        raise SystemExit(130)


def _check_export(copy: Path, manifest: Optional[Path], given: str, root: Optional[Path], config: Optional[Path],
                  as_json: bool, jobs: int = 1) -> None:
    """``asz verify --export FILE``: the masked copy against its manifest, and with ``--root`` against the root
    (:mod:`asz_core.reading.export_manifest`). Prints ``ok: …`` lines, then one line per problem naming its place,
    or ``the copy checks``; exit 0 checked, 1 problems, 2 usage (no copy, no manifest, no root, a manifest that
    does not read). A folder a folder export wrote (``--out DIR/``): :func:`~asz_core.cli.verify_folder.check_folder`."""
    from ..reading.export_manifest import manifest_path

    copy = Path(user_path(str(copy)))
    if copy.is_dir() and manifest is None:  # a folder export: its export.manifest.json (trial 31b F2)
        from .verify_folder import check_folder

        if root is not None and not Path(root).is_dir():
            raise _usage(f"no storage root at {root} {root_hint(str(root))}")
        check_folder(copy, given, root, config, as_json, _usage, jobs)
        return
    where = Path(user_path(str(manifest))) if manifest is not None else manifest_path(copy)
    if not copy.is_file():
        raise _usage(f"--export {copy}: no such file")
    if root is not None and not Path(root).is_dir():
        raise _usage(f"no storage root at {root} {root_hint(str(root))}")
    if not where.is_file():
        said_unmanifested(copy, where, manifest is not None, root, config, as_json)
    said, problems = export_results(copy, where, given, root, config)
    gone = [x for x in said if not_checkable(x)]  # said apart, never "ok" (trial 27b F3)
    said = [x for x in said if x not in gone]
    unchecked = "" if root is not None else (
        "not checked: that each text outside the masks is the landed one and each mask stands over a credential: "
        "the root's holder checks it (asz verify --export FILE --root ROOT)")
    said_export({"export": str(copy), "manifest": str(where), "against_root": root is not None}, said, unchecked, gone,
                problems, f"{copy.name}: ", "the copy", as_json)


def not_checkable(line: str) -> bool:
    """Whether ``line``, one of :func:`export_results`' said lines, is said apart as not checkable, never as ``ok:``:
    what retention removed (trial 27b F3), or a drawing no render this asz draws gives
    (:data:`~asz_core.reading.export_render.NOT_REPRODUCED`, :func:`unreproduced`)."""
    return "not checkable: removed by retention" in line or unreproduced(line)


def unreproduced(line: str) -> bool:
    """Whether ``line`` (a said line, bare or after a folder's ``FILE: ``) says a copy's drawing cannot be reproduced
    (:data:`~asz_core.reading.export_render.NOT_REPRODUCED`): the copy is unproven, exit 2, never counted as checked."""
    from ..reading.export_render import NOT_REPRODUCED

    return NOT_REPRODUCED in line


def said_unmanifested(copy: Path, where: Path, given: bool, root: Optional[Path], config: Optional[Path],
                      as_json: bool) -> NoReturn:
    """A copy with no manifest at ``where`` (``given``: named by ``--manifest``): without ``root`` a usage error
    (exit 2) saying which asz wrote none and what the holder of the root can check; with it, the copy made again from
    the root at each render this asz draws (:mod:`asz_core.cli.verify_unmanifested`; trial 37c F2): exit 0 when one
    gives its bytes, else exit 2 saying why it cannot be proved."""
    from .verify_folder import NO_MANIFEST_WAY
    from .verify_unmanifested import NO_MANIFEST_BEFORE, unmanifested_results

    lead = (f"no manifest at {where}" + ("" if given else
            ": asz export writes FILE.manifest.json beside each copy it writes to a file, masked or not (--out FILE of "
            "one conversation or of several as one md, prose or text stream, each file of --out DIR/), but "
            f"{NO_MANIFEST_BEFORE} (give --manifest FILE when it was moved)"))
    if root is None:
        raise _usage(f"{lead}; without a manifest only the root's holder can check such a copy, by making it again "
                     f"from the root (asz verify --export {copy} --root ROOT); else {NO_MANIFEST_WAY}")
    said, unchecked, refusal = unmanifested_results(copy, Path(root), config)
    if refusal is not None:
        raise _usage(f"{lead}; against the root {root}: {refusal}. To have a copy that checks, export the conversation "
                     "again with this asz (asz export ID --out FILE writes its FILE.manifest.json) and check that")
    said_export({"export": str(copy), "manifest": None, "against_root": True}, said, unchecked[0], [], [],
                f"{copy.name}: ", "the copy", as_json)


def said_export(head: dict, said: list[str], unchecked: str, gone: list[str], problems: list[str], prefix: str,
                what: str, as_json: bool) -> NoReturn:
    """Print what ``asz verify --export`` found of a copy or a folder (``what``) and exit 0 (it checks), 1 (problems)
    or 2 (no problem, but a copy's drawing no asz render reproduces: unproven, as a copy without a manifest): with
    ``as_json`` one object, ``head`` then ``ok``, ``checked``, ``not_checked``, ``not_checkable``, ``problems``,
    ``notes``; else ``ok:`` lines, the not checked and not checkable lines, the ``note:`` lines of ``said``, each
    problem after ``prefix``, then ``WHAT checks …`` or ``N problem(s)``."""
    unproven = not problems and any(unreproduced(x) for x in gone)
    notes = [x for x in said if x.startswith("note: ")]  # said as they are, never ok: (asz_core.reading.export_forms)
    said = [x for x in said if x not in notes]
    if as_json:
        echo(json.dumps({**head, "ok": not problems and not unproven, "checked": said, "not_checked": unchecked,
                         "not_checkable": gone, "problems": problems, "notes": notes}, ensure_ascii=False))
    else:
        for line in said:
            echo(f"ok: {line}")
        for line in [unchecked] * bool(unchecked) + gone + notes:
            echo(line)
        for line in problems:
            echo(f"{prefix}{line}")
        against = "against the root" if head.get("against_root") else "against its manifest"
        echo(f"{len(problems)} problem(s)" if problems else
             f"{what} is unproven: its evidence checks {against}, its drawing cannot be reproduced (not checkable, above)"
             if unproven else f"{what} checks {against}"
             + (" but for what retention removed (not checkable, above)" if gone else ""))
    raise SystemExit(1 if problems else 2 if unproven else 0)


def export_results(copy: Path, where: Path, given: str, root: Optional[Path], config: Optional[Path],
                   docs=None) -> tuple[list[str], list[str]]:
    """One copy against its manifest ``where``, and with ``root`` against the root: ``(said, problems)``
    (:func:`~asz_core.reading.export_manifest.check_copy`, :func:`~asz_core.reading.export_manifest.check_against_root`).
    ``docs``: the asz.view document builder (:class:`~asz_core.reading.export_docs.SharedDocs`; a folder's check shares
    one across its copies). Raises
    a usage error (exit 2) for a manifest that does not read."""
    from ..reading.export_manifest import check_against_root, check_copy, read_manifest

    try:
        body = read_manifest(where)
    except ValueError as exc:
        raise _usage(str(exc)) from None
    data, raw = copy.read_bytes(), where.read_bytes()
    said, problems = check_copy(data, body, raw, given)
    if root is not None:
        from ..reading.export_erased import erased_problems
        from ..reading.export_render import check_drawn
        from ..reading.export_docs import SharedDocs
        from .export_made import made_again

        docs = docs or SharedDocs()  # each document built once: the copy made again keeps what the check reads
        made, hide = body.get("made") or {}, list((body.get("made") or {}).get("hide") or [])
        more, wrong = [], erased_problems(root, body)  # asz erase took it: said as erased, never as changed
        try:
            if not wrong:
                from ..reading.export_title import check_titled, pinned

                cids = tuple(f"{c.get('conversation')}:" for c in body.get("conversations") or ())
                from ..reading.export_forms import as_masked

                key = _mask_key(root)
                with docs.keeping():
                    more, wrong = as_masked(data, body, key, lambda: check_titled(root, body, lambda pins: check_drawn(
                        lambda r, before: check_against_root(
                            data, {**body, "render": r, "cents_before": before},
                            lambda cid: pinned(pins, cid, lambda: docs(root, cid, hide)),
                            lambda cid: pinned(pins, cid, lambda: made_again(root, cid, made, config)), key),
                        body.get("render"), lambda problem: problem.startswith(cids))))  # each title as the export
                    # found it (43a F3), masked as the forms that made it masked it (session 43)
        except (LookupError, ValueError, OSError, RuntimeError) as exc:  # a conversation the root lacks, no usable round (ViewError)
            more, wrong = [], [f"root {root}: cannot make the copy again: {exc}"]
        said, problems = said + more, problems + wrong
    return said, problems


def _mask_key(root: Path) -> Optional[bytes]:
    """``root``'s mask key (:mod:`asz_core.storage.mask_key`), never made here: None when it has none or it does not
    read (the manifest's keyed mask digests are then said as not compared, trial 37a F1)."""
    from ..storage.mask_key import mask_key

    try:
        return mask_key(root, make=False)
    except OSError:
        return None


#: The forms :func:`light` runs (read by :func:`asz_core.cli.quick.read_options`): ``--root R``, ``--json``,
#: ``--jobs N`` and one word (a session id, its prefix, or a file's path), each as Typer reads them.
LIGHT_OPTIONS: dict = {"--root": ("root", Path), "--json": ("as_json", FLAG), "--jobs": ("jobs", int), WORD: ("target", str)}


def light(args: list[str]) -> None:
    """``asz verify ARGS`` without Typer (issue 22: the command's start), when ``args`` are only the forms of
    :data:`LIGHT_OPTIONS`: :func:`run` under :func:`asz_core.cli.entry.run_command`, as the Typer application runs it
    (the same output, stderr and exit code: ``tests/verify/test_verify_light.py``); it exits. Returns, having run
    nothing, for any other form (``--help``, ``--deep``, ``--config``, ``--``, a value starting with ``-``, …): the
    Typer application then reads it as it always did."""
    given = read_options(LIGHT_OPTIONS, args)
    if given is None:
        return
    from .entry import run_command

    run_command(lambda: _run_light(given))


def _run_light(given: dict) -> None:
    """:func:`run` with ``given`` as :func:`asz_core.cli.quick.run_quick` calls a command: paths through
    :func:`~asz_core.cli.quick.with_user_paths`; a Ctrl-C it did not catch said in one line and exit 130, as Typer
    turns it (:func:`asz_core.cli.entry.uncaught_interrupt`)."""
    try:
        with_user_paths(run)(**given)
    except KeyboardInterrupt:
        from .entry import say_interrupted

        say_interrupted()
        raise SystemExit(130)
