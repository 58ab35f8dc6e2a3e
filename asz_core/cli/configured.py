"""``asz.yaml`` read for a reading command, and the price table it gives: split from :mod:`asz_core.cli.view_cmd`, which
imports the document builder and its renderings, so ``asz ls`` and ``asz verify --figures`` price their rows without
loading them (issue 22, each command's start)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

__all__ = ["config_prices", "configuration"]


def config_prices(config: Optional[Path], cmd: str):
    """The price table with ``asz.yaml``'s ``prices`` applied (the file ``--config`` names, else ./asz.yaml), its
    ``config_name`` that file as given; exit 2 on a bad file."""
    from ..view.prices import price_table

    return price_table(configuration(config, cmd).prices, config)


def configuration(config: Optional[Path], cmd: str):
    """``asz.yaml`` read (the file ``--config`` names, else ./asz.yaml); exit 2 on a bad file, said as ``CMD: why``."""
    from ..config import ConfigError, load_config

    try:
        return load_config(config)
    except ConfigError as exc:
        typer.echo(f"{cmd}: {exc}", err=True)
        raise typer.Exit(2)
