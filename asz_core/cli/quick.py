"""Run a command whose arguments are all plain options without building the Typer application (issue 22: start-up).

Typer coerces every option through a pydantic ``TypeAdapter`` built at run
time, and importing pydantic (with its plugin loader, which imports
:mod:`importlib.metadata`) costs about a fifth of a second before a command
runs: most of what ``asz view`` spent before it could listen. For the
commands of :data:`asz_core.cli.main.QUICK`, :func:`quick_kwargs` reads the
arguments straight from the command function's own ``typer.Option``
declarations when every argument is ``--name VALUE`` or ``--name=VALUE`` of an
option typed ``str``, ``int``, ``float`` or ``Path`` (optionally ``Optional``), ``--name`` alone of a ``bool``
option declared ``False`` with no ``--no-name``, or ``--name VALUE`` given any number of times of a ``list[Path]``
or ``list[str]`` option declared ``[]``, each declared with nothing Typer would check or call (no callback, environment
variable, prompt, range, parser or path check); ``--name VALUE`` given any number of times of an
``Optional[list[Path]]`` option declared ``None`` (None when not given, as Typer passes it); and one word not
starting with ``-`` for the command's one optional ``str`` argument declared ``None`` or with a word (``asz usage``'s
view, ``daily`` when none is given), if it has one. Anything else
(``--help``, an unknown or repeated-flag form, a value that is not a plain decimal for an ``int`` or ``float``, a value
starting with ``-``, ``--``, a second word) gives ``None`` and the command runs through Typer as before, which answers
with its own usage errors and help.
Same values, same exit codes: the function is called with exactly what Typer
would pass it.
"""

from __future__ import annotations

import re
import sys
import typing
from pathlib import Path
from typing import Any, Callable, Optional

__all__ = ["quick_kwargs", "read_options", "run_quick", "with_user_paths", "FLAG", "WORD"]

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
#: A ``bool`` option declared ``False`` with one ``--name`` (no ``/--no-name``): its presence sets it True, as in Click.
FLAG = object()
#: Option attributes that must keep their default for an option to be read here (Typer would act on any other value).
_PLAIN = {"callback": None, "envvar": None, "parser": None, "click_type": None, "min": None, "max": None, "exists": False,
          "resolve_path": False, "prompt": False, "is_flag": None, "flag_value": None, "count": False, "default_factory": None,
          "is_eager": False, "expose_value": True}
_CONVERT: dict[Any, Callable[[str], Any]] = {str: str, Path: Path, int: int, float: float, Optional[str]: str,
                                              Optional[Path]: Path, Optional[int]: int}
#: Options given any number of times, their values kept in order (a list, as Typer passes it).
_MANY: dict[Any, Callable[[str], Any]] = {list[Path]: Path, list[str]: str}
#: The same declared ``None``: a list when given, None when not (as Typer passes it).
_MANY_OR_NONE: dict[Any, Callable[[str], Any]] = {Optional[list[Path]]: Path, Optional[typing.List[Path]]: Path}
#: The key of :func:`_options`'s answer that names the command's one optional ``str`` argument (never an option name).
WORD = ""
#: The key of :func:`_options`'s answer that names the command's ``typer.Context`` parameter (no argument holds a NUL).
CONTEXT = "\0context"
#: A short name an option may have beside its long ones (``--limit``/``-n``), given as ``-n VALUE`` only.
_SHORT = re.compile(r"-[A-Za-z]")


def _nonempty(value: str) -> str:
    """A value of an option whose callback refuses one given empty (marked ``refuses_empty``:
    :func:`asz_core.cli.reading_common.given`, the filters' check): ``value``, ValueError for '' (Typer then reads the
    arguments, and its callback says so). Any other value the callback gives back as it is."""
    if not value:
        raise ValueError("given empty")
    return value


def _plain(info, callback: Any = None) -> bool:
    """Whether the option or argument ``info`` keeps every :data:`_PLAIN` attribute at its default, its callback
    ``callback`` (None, or the one :func:`_nonempty` stands for)."""
    return all(getattr(info, attr, value) == value for attr, value in {**_PLAIN, "callback": callback}.items())


def _options(func: Callable) -> dict[str, tuple[str, Callable[[str], Any]]] | None:
    """``{"--name": (parameter, converter)}`` for every parameter of ``func`` (``{"": (parameter, str)}`` for its one
    optional ``str`` argument, declared None or with a word), or None when one is neither a plain option nor that
    argument."""
    import inspect

    from typer.models import ArgumentInfo, Context, OptionInfo

    try:
        hints = typing.get_type_hints(func)
    except Exception:
        return None
    out: dict[str, tuple[str, Any]] = {}
    for name, p in inspect.signature(func).parameters.items():
        info, hint = p.default, hints.get(name)
        convert: Any = _CONVERT.get(hint)
        if hint is Context:
            out[CONTEXT] = (name, None)  # the command's context: its info_name the command typed (quick_kwargs)
            continue
        refuses = isinstance(info, OptionInfo) and getattr(info.callback, "refuses_empty", False) and hint is str
        if refuses:
            convert = _nonempty
        if hint is bool and isinstance(info, OptionInfo) and info.default is False:
            convert = FLAG
        elif hint in _MANY and isinstance(info, OptionInfo) and info.default == []:
            convert = (_MANY[hint],)  # a tuple: many values
        elif hint in _MANY_OR_NONE and isinstance(info, OptionInfo) and info.default is None:
            convert = (_MANY_OR_NONE[hint],)
        elif (isinstance(info, ArgumentInfo) and ((hint == Optional[str] and info.default is None)
                                                  or (hint is str and isinstance(info.default, str)))
              and WORD not in out and _plain(info)):
            out[WORD] = (name, str)  # the command's one optional word
            continue
        if not isinstance(info, OptionInfo) or convert is None:
            return None
        if not _plain(info, info.callback if refuses else None):
            return None
        decls = [d for d in (info.param_decls or ()) if d.startswith("--") and "/" not in d]
        short = [d for d in (info.param_decls or ()) if _SHORT.fullmatch(d)] if convert is not FLAG else []
        if not decls or len(decls) + len(short) != len(info.param_decls or ()):
            return None
        for d in decls + short:
            out[d] = (name, convert)
    return out


#: The annotations of a command parameter that names a path (an option or an argument): its value goes through
#: :func:`asz_core.config.user_path` before the command sees it.
_PATHS = (Path, Optional[Path], list[Path])


def with_user_paths(func: Callable) -> Callable:
    """``func`` (a command function) wrapped so each argument annotated ``Path``, ``Optional[Path]`` or ``list[Path]``
    reaches it with a leading ``~`` expanded (:func:`asz_core.config.user_path`): ``--root "~/x"`` is ``$HOME/x``
    in every command, whether Typer or :func:`run_quick` calls it. ``func`` itself when it takes no path. The wrapper
    keeps ``func``'s signature, annotations and help (``functools.wraps``), which is what Typer reads. A wrapper this
    made is given back as it is: a command group kept at module level is met again by each ``build_app``, and a chain
    of wrappers as long as the calls (a test process builds the app thousands of times) made ``inspect.signature``
    refuse it ("wrapper loop") past the recursion limit."""
    import functools

    if getattr(func, "asz_user_paths", False):
        return func
    try:
        names = [n for n, hint in typing.get_type_hints(func).items() if n != "return" and hint in _PATHS]
    except Exception:
        return func
    if not names:
        return func
    from ..config import user_path

    @functools.wraps(func)
    def expanded(*args: Any, **kwargs: Any) -> Any:
        for name in names:
            value = kwargs.get(name)
            if isinstance(value, list):
                kwargs[name] = [user_path(v) for v in value]
            elif value is not None:
                kwargs[name] = user_path(value)
        return func(*args, **kwargs)

    expanded.asz_user_paths = True  # type: ignore[attr-defined]
    return expanded


def quick_kwargs(func: Callable, args: list[str], name: str = "") -> dict[str, Any] | None:
    """The keyword arguments Typer would call ``func`` with for the command-line ``args``, or None to leave it to Typer.
    ``name``: the command as typed (``ls``), the ``info_name`` of the context a command taking one gets (without it,
    such a command is left to Typer)."""
    options = _options(func)
    given = None if options is None or (CONTEXT in options and not name) else read_options(options, args)
    if given is None:
        return None
    import inspect

    out = {p_name: list(p.default.default) if isinstance(p.default.default, list) else p.default.default
           for p_name, p in inspect.signature(func).parameters.items() if p_name != options.get(CONTEXT, ("",))[0]}
    out.update(given)
    if CONTEXT in options:
        import typer.core

        out[options[CONTEXT][0]] = typer.Context(typer.core.TyperCommand(name=name), info_name=name)
    return out


def read_options(options: dict[str, tuple[str, Any]], args: list[str]) -> dict[str, Any] | None:
    """The values ``args`` give, ``{parameter: value}`` (only those given), read by the table ``options``: ``{"--name":
    (parameter, converter)}``, the converter :data:`FLAG` for a flag, a 1-tuple ``(converter,)`` for an option given
    any number of times, and :data:`WORD` (``""``) for the command's one optional word; None when ``args`` hold
    anything else (the forms :mod:`this module <asz_core.cli.quick>` leaves to Typer). Imports nothing: what
    :func:`quick_kwargs` reads from a command's Typer declarations, and :mod:`asz_core.cli.verify_run`'s light start
    from its own table."""
    given: dict[str, Any] = {}
    i = 0
    while i < len(args):
        token = args[i]
        if not token.startswith("-") and WORD in options:
            if options[WORD][0] in given:
                return None  # a second word: Typer's usage error
            given[options[WORD][0]] = token
            i += 1
            continue
        if token in options and options[token][1] is FLAG:
            given[options[token][0]] = True
            i += 1
            continue
        if "=" in token and token.startswith("--"):
            flag, value = token.split("=", 1)
            i += 1
        elif i + 1 < len(args):
            flag, value = token, args[i + 1]
            i += 2
        else:
            return None
        if flag not in options or options[flag][1] is FLAG or (value.startswith("-") and value != "-"):
            return None
        name, convert = options[flag]
        if (convert is int and not _INT.fullmatch(value)) or (convert is float and not _FLOAT.fullmatch(value)):
            return None
        try:
            if isinstance(convert, tuple):
                given.setdefault(name, []).append(convert[0](value))
            else:
                given[name] = convert(value)  # a repeated option: the last wins, as in Click
        except ValueError:  # a value the option's callback refuses (_nonempty): Typer's answer
            return None
    return given


def run_quick(func: Callable, args: list[str], name: str = "") -> bool:
    """Run ``func`` with the options in ``args`` and exit as Typer would (``typer.Exit``'s code; ``Aborted!`` and 1 on
    ``typer.Abort`` or end of input; 130 on a Ctrl-C the command did not catch, raised as Typer raises it, so
    :func:`asz_core.cli.main.main` says it in one line); False, having run nothing, when the arguments are not all
    plain options (:func:`quick_kwargs`; ``name``: the command as typed, for one that takes its context)."""
    import typer

    kwargs = quick_kwargs(func, args, name)
    if kwargs is None:
        return False
    try:
        with_user_paths(func)(**kwargs)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt as exc:
        try:
            raise typer.Exit(130) from exc
        except typer.Exit as stop:
            sys.exit(stop.exit_code)
    except (typer.Abort, EOFError):
        typer.echo("Aborted!", err=True)
        sys.exit(1)
    sys.exit(0)
