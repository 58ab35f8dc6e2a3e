"""``asz scenario build`` and ``asz scenario check``: the original's scenario language (origin-digest §9.1, §9.2).

Exit codes: 0 done (check: every non-skipped expectation and property
holds); 1 a difference (check) or a build that could not finish; 2 usage
(bad option, unreadable scenario, a key the language does not have).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

__all__ = ["register", "scenario_build", "scenario_check"]

app = typer.Typer(help="Build and check scenarios (the original's conformance suite).", no_args_is_help=True)


def _usage(message: str) -> typer.Exit:
    typer.echo(f"asz scenario: {message}", err=True)
    return typer.Exit(2)


def _formats(value: str) -> tuple[str, ...]:
    from ..testing.scenario.build import FORMATS

    if value == "all":
        return FORMATS
    if value not in FORMATS:
        raise _usage(f"--format is one of {', '.join(FORMATS)} or all, not {value!r}")
    return (value,)


@app.command("build", options_metavar="--format FORMAT --out DIR [OPTIONS]")
def scenario_build(
    file: Path = typer.Argument(..., help="The scenario, NAME.yaml."),
    fmt: str = typer.Option(..., "--format", help="claude-code (real Claude Code files through the real adapter) or sd (mock dialect landed directly)."),
    out: Path = typer.Option(..., "--out", help="The storage root to write; must be new or empty."),
    at: str = typer.Option("", "--at", help="Time of the first step, RFC 3339 (default 2026-01-01T00:00:00Z)."),
    checkpoints: bool = typer.Option(False, "--checkpoints", help="Land and parse at every checkpoint (as check does) instead of once."),
) -> None:
    """Write a scenario as a storage root: land (sd) or collect (claude-code), then parse.

    By default the whole scenario lands in one pass and one parse, as the
    original built the format pages' example; ``--checkpoints`` lands and
    parses at every checkpoint. For claude-code the Claude Code files are
    under OUT/_source/projects. Prints one line per stage: name, landed
    files, rounds. See docs/scenario.md. Exit 0 done, 1 the build
    failed, 2 usage.
    """
    from ..testing.scenario.build import DEFAULT_AT, build, parse_at
    from ..testing.scenario.expect import load_expectation
    from ..testing.scenario.fields import ScenarioError, scenario_name
    from ..testing.scenario.model import load_scenario

    (f,) = _formats(fmt)
    try:
        parse_at(at or DEFAULT_AT)
        sc = load_scenario(file)
        exp = file.parent / f"{scenario_name(file)}.expect.yaml"
        ex = load_expectation(exp) if exp.exists() else None
    except (ScenarioError, ValueError) as exc:
        raise _usage(str(exc)) from None
    try:
        b = build(sc, f, out, at=at or DEFAULT_AT, expect=ex, stepwise=checkpoints)
    except FileExistsError as exc:
        raise _usage(str(exc)) from None
    except Exception as exc:
        typer.echo(f"asz scenario build: {type(exc).__name__}: {exc}", err=True)
        raise typer.Exit(1) from None
    failed = False
    for s in b.snapshots:
        typer.echo(f"{s.name}\tlanded {s.landed}\trounds {len(s.round_files)} (+{s.written})" + (f"\t{s.problem}" if s.problem else ""))
        failed = failed or bool(s.problem)
    typer.echo(f"session {b.plan.session} in {out}")
    raise typer.Exit(1 if failed else 0)


@app.command("check")
def scenario_check(
    files: list[Path] = typer.Argument(..., help="Scenario files (NAME.yaml or NAME.expect.yaml), or a directory of them."),
    fmt: str = typer.Option("all", "--format", help="claude-code, sd or all."),
    out: Optional[Path] = typer.Option(None, "--out", help="Keep the builds under OUT/<scenario>/<format> (default: a temporary directory)."),
    at: str = typer.Option("", "--at", help="Time of the first step, RFC 3339 (default 2026-01-01T00:00:00Z)."),
    no_properties: bool = typer.Option(False, "--no-properties", help="Check the checkpoints only."),
) -> None:
    """Build each scenario at every checkpoint and compare it with NAME.expect.yaml and the §9.1 properties.

    Prints ``skipped: …`` for every expectation or property that needs a later
    issue (with the reason), ``FAIL …`` for every difference, and a summary line
    per scenario. Exit 0 only when everything checked holds, 1 otherwise, 2 usage.
    """
    from ..testing.scenario.build import DEFAULT_AT, parse_at
    from ..testing.scenario.check import check_files, check_scenario
    from ..testing.scenario.expect import load_expectation
    from ..testing.scenario.fields import ScenarioError, scenario_name
    from ..testing.scenario.model import load_scenario

    formats = _formats(fmt)
    try:
        parse_at(at or DEFAULT_AT)
    except ValueError as exc:
        raise _usage(str(exc)) from None
    paths: list[Path] = []
    for f in files:
        if f.is_dir():
            names = sorted({scenario_name(p) for p in f.glob("*.yaml")})
            paths += [f / f"{n}.yaml" for n in names]
        else:
            paths.append(f)
    if not paths:
        raise _usage("no scenario files given")
    ok = True
    for p in paths:
        name = scenario_name(p)
        target = None if out is None else out / name
        try:
            if no_properties:
                sc = load_scenario(p.parent / f"{name}.yaml")
                exp = p.parent / f"{name}.expect.yaml"
                from ..testing.scenario.expect import Expectation

                ex = load_expectation(exp) if exp.exists() else Expectation(name)
                res = check_scenario(sc, ex, formats=formats, at=at or DEFAULT_AT, out=target, properties=False)
            else:
                res = check_files(p.parent / f"{name}.yaml", formats=formats, at=at or DEFAULT_AT, out=target)
        except (ScenarioError, FileNotFoundError) as exc:
            raise _usage(str(exc)) from None
        for line in res.lines():
            typer.echo(line)
        ok = ok and res.ok
    raise typer.Exit(0 if ok else 1)


def register(root: typer.Typer) -> None:
    """Add the ``scenario`` command group (``build``, ``check``) to ``root``."""
    root.add_typer(app, name="scenario")
