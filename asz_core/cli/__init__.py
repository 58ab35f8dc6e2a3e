"""The ``asz`` command line (Typer). One module per command group; :mod:`.main` assembles them."""
