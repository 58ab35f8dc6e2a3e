"""Credentials of a known form in a text: found (:func:`find`), masked (:func:`masked`, :func:`redacted`) and masked in
every title a reader prints (:func:`shown_title`). ``asz secrets`` (:mod:`asz_core.reading.secrets`) scans a root with
them and ``asz export --redact`` masks what it writes with them.

Agents read ``.env`` files, print tokens in shell output and paste keys into prompts; once landed, that text is
evidence kept for months and sent on by ``asz push`` and ``asz export``. The forms found, their expressions and the
checks their values pass are :mod:`asz_core.view.secret_kinds`' (its table lists them).

A password standing in a text with no name before it (``my login is Tr0ub4dor&3``) is not found: no form tells it
from any other word. A value is never printed whole: :func:`masked` keeps its first 4 and last 4 characters (``AKIA…MPLE``), of a
password (and a token given to a name, Basic credentials) nothing (``postgres://admin:***@db.internal/prod``, as SQLAlchemy prints an address), and
:func:`fingerprint` the first 12 hex digits of its SHA-256, so two places of one credential are told apart from
another without showing it. The landed records are never changed: they are the evidence.
"""

from __future__ import annotations

import hashlib
import re

from .automaton import Automaton, either
from .secret_argv import argv_spans, with_extra
from .secret_entities import entities_read
from .secret_shell import shell_end
from .secret_guards import continued_joined, looks_bearer, looks_keyword_password, looks_openai, looks_password, looks_random, looks_webhook
from .secret_kinds import ESCAPED_BREAK, BY_MATCH as _BY_MATCH, GLUED as _GLUED, GUARDS as _GUARDS, HIDDEN as _HIDDEN
from .secret_kinds import KINDS, SPLIT as _SPLIT, STARTS as _STARTS

__all__ = ["KINDS", "LEFT_OUT", "Masker", "counted", "choosing", "chosen_now", "entities_read", "expression", "credentials", "found_in", "recording", "masked_cut", "find", "masked", "fingerprint", "looks_random", "looks_openai", "looks_webhook", "looks_password", "looks_keyword_password", "looks_bearer", "redacted", "masked_found", "shown_title", "shown_snippet", "PLACE_KEYS", "shown_places"]

#: The characters other than ASCII letters that ``re`` matches to an ASCII letter in any case (İ, ı, ſ, the Kelvin
#: sign): ``str.lower`` does not lower them to it, so a text holding one is searched the plain way (``rx.finditer``)
#: for the forms read in any case.
_FOLDS = ("\u0130", "\u0131", "\u017f", "\u212a")
_COMPILED = tuple((name, re.compile(rx), hints, *_STARTS[name]) for name, rx, hints in KINDS)
#: The forms tried only in a text holding one of their hints: those read in any case, and those whose hints are not
#: their start strings (a base64 token's: a text that decodes base64; a continued token's: a line continuation); a
#: form of no hints is tried wherever its starts stand.
_GATED = frozenset(name for name, _, hints, starts, any_case in _COMPILED
                   if hints and (any_case or set(hints) != set(starts)))


def _fewest(strings: set[str], lowered: set[str] = frozenset()) -> tuple[str, ...]:
    """``strings`` but those holding another of them or, lowered, one of ``lowered`` (a text holding such a string
    holds the other too: it says nothing more), sorted."""
    return tuple(sorted(s for s in strings if not any(o != s and o in s for o in strings)
                        and not any(o in s.lower() for o in lowered)))


#: The strings of :data:`_STARTS` read in any case, lowered, none holding another (``authorization``, ``password``,
#: ``secret``, …); and those read as written, none holding another nor, lowered, one read in any case (``sk-`` stands
#: for ``sk-ant-``, ``://`` for Slack's address, ``secret`` for ``AKIA``'s none): a text holding none of the first as
#: written and none of the second in any case holds no match of any form (session 41: ``asz export --format html``
#: of a talk of 100,003 steps asked :func:`find` of 400,013 short texts, 6 s of its 16 s CPU, each trying 18 forms).
#: Those read as written are looked for as written (session 42: ``SG.`` in any case is in every ``msg.``).
#: The forms whose start strings stand in most transcripts' texts without a match (``token`` in every ``tokens`` of a
#: call's usage): :func:`_may_hold` passes a text holding one of them on only when the form's own search finds a match
#: in it (session 42: the ``token`` start passed on every usage line, 25 % of the scan's CPU). A form read as written
#: and tried only where one of its hints stands (:data:`_GATED`) is looked for by its hints where they are fewer
#: (session 44: a base64 token's 17 start strings, a continued token's 18).
_SEARCHED = ("token",)
_ANY_CASE_START = _fewest({lit.lower() for _, any_case in _STARTS.values() for lit in any_case})
_WRITTEN_START = _fewest({lit for name, rx, hints, starts, _ in _COMPILED if name not in _SEARCHED
                          for lit in (hints if name in _GATED and len(hints) < len(starts) else starts)},
                         set(_ANY_CASE_START))
_SEARCHED_RX = tuple((rx, hints) for name, rx, hints, _, _ in _COMPILED if name in _SEARCHED)
#: :data:`_WRITTEN_START` and :data:`_ANY_CASE_START` looked for in one pass each (an Aho–Corasick automaton,
#: ``ahocorasick_rs``, through :class:`~asz_core.view.automaton.Automaton`: no thread is in its Rust code as Python
#: exits), not one string at a time: session 44's forms made them 38 and 9 strings, and a look at a text
#: for each cost more than the rest of :func:`_may_hold` (docs/performance.md, session 44).
_WRITTEN_AUTOMATON = Automaton(list(_WRITTEN_START))
_ANY_CASE_AUTOMATON = Automaton(list(_ANY_CASE_START))
#: Up to how many characters a text is first looked at as :func:`_may_hold` says (a longer one is searched at once:
#: lowering it whole costs more than the forms' own searches save).
_SHORT = 4096




def _starts(text: str, at: int) -> bool:
    """True when a credential may start at ``at``: not after a letter, digit or ``_``, except the ``n``, ``r`` or ``t``
    of a backslash escape (a JSON string's line break before it, as prose and JSON exports write one)."""
    if at == 0:
        return True
    c = text[at - 1]
    return not (c.isalnum() or c == "_") or (c in "nrt" and at >= 2 and text[at - 2] == "\\")


def _held(name: str, m: re.Match) -> list[tuple[int, int]]:
    """``(start, end)`` of each credential a match ``m`` of form ``name`` finds (its group ``value``, else the whole
    match; each value :data:`_SPLIT` gives of a form holding several), none when it holds none: a value must not
    follow a letter, digit or ``_`` (:func:`_starts`; a :data:`_GLUED` form's may) and must pass the form's guard
    (:data:`_GUARDS`; given the match too for the forms of :data:`_BY_MATCH`, whose name or flag decides); a command's
    value then read on to its shell word's end (:func:`~asz_core.view.secret_shell.shell_end`)."""
    spans = _SPLIT[name](m) if name in _SPLIT else [m.span("value" if "value" in m.re.groupindex else 0)]
    guard = _GUARDS.get(name)
    return [(a, shell_end(m, name, b)) for a, b in spans if (name in _GLUED or _starts(m.string, a)) and (
        guard is None or (guard(m.string[a:b], m) if name in _BY_MATCH else guard(m.string[a:b])))]


def find(text: str) -> list[tuple[str, int, int]]:
    """``(kind, start, end)`` of each credential in ``text`` (offsets in code points; the value alone where the form
    needs a name beside it), by start. Where two forms find overlapping values (``client_secret: GOCSPX-…`` is a
    ``google-oauth-client-secret`` and a ``password``), the form listed first in :data:`KINDS` (the issuer's own
    before a name's) keeps it: one credential, counted and masked once. A text holding HTML character references
    (an escaped page a tool read) is read as the characters they stand for (:func:`entities_read`; session 44:
    ``printf(&quot;Password is correct.&quot;)`` is no password, ``password=&quot;hunter22&quot;`` is ``hunter22``),
    each span then given over the references it was read from."""
    if len(text) <= _SHORT and not _may_hold(text):
        return []
    if "&" in text and (read := entities_read(text)) is not None:
        plain, source = read
        return [(kind, source(a)[0], source(b - 1)[1]) for kind, a, b in _find_written(plain)]
    return _find_written(text)


def _find_written(text: str) -> list[tuple[str, int, int]]:
    """:func:`find` of a text read as it is written."""
    out = []
    # held: each hint looked for once (the two AWS forms share theirs); seen: the places of each start string, looked
    # for once (forms share theirs); in a long text each set at once (:func:`_looked_once`)
    held, seen = ({}, {}) if len(text) <= _SHORT else _looked_once(text)
    low: list[str | None] = []  # the text lowered, once a form read in any case needs it (None: it holds a _FOLDS)
    for order, (name, rx, hints, starts, any_case) in enumerate(_COMPILED):
        # A form read only as written whose hints are its starts: its places are found or not, as its hints are.
        if name not in _GATED or any(held[h] if h in held else held.setdefault(h, h in text) for h in hints):
            for m in _matches(rx, text, starts, any_case, low, seen):
                out += [(order, name, *span) for span in _held(name, m)]
    if len(out) > 1:
        kept: list[tuple[int, str, int, int]] = []
        for f in sorted(out):  # the first form's values claim their span first
            if not any(f[2] < k[3] and k[2] < f[3] for k in kept):
                kept.append(f)
        out = kept
    return sorted(((name, a, b) for _, name, a, b in out), key=lambda f: f[1])


#: Every form's hints, and every start string read as written, each set looked for in one pass of an automaton in a
#: text longer than :data:`_SHORT` (:func:`_looked_once`).
_HINTS = tuple(sorted({h for _, _, hints, _, _ in _COMPILED for h in hints}))
_HINT_AUTOMATON = Automaton(list(_HINTS))
_AS_WRITTEN = tuple(sorted({lit for _, _, _, starts, _ in _COMPILED for lit in starts}))
_AS_WRITTEN_AUTOMATON = Automaton(list(_AS_WRITTEN))


def _looked_once(text: str) -> tuple[dict[str, bool], dict[tuple[str, bool], list[int]]]:
    """``(held, seen)`` of :func:`_find_written` for a long ``text``: whether each of :data:`_HINTS` stands in it, and
    the places (code points, ascending) of each start string read as written, keyed ``(string, False)`` as
    :func:`_matches` keeps them; each set found in one pass (review44: looked for one by one, the 64 hints and 61
    start strings cost most of the scan of the corpus's 266 long lines, docs/performance.md)."""
    found = {i for i, _, _ in _HINT_AUTOMATON.find(text, overlapping=True)}
    held = {h: i in found for i, h in enumerate(_HINTS)}
    seen: dict[tuple[str, bool], list[int]] = {(lit, False): [] for lit in _AS_WRITTEN}
    for i, at, _ in _AS_WRITTEN_AUTOMATON.find(text, overlapping=True):
        seen[_AS_WRITTEN[i], False].append(at)
    return held, seen


def _may_hold(text: str) -> bool:
    """False when no form's match can begin in ``text``: none of :data:`_WRITTEN_START` stands in it as written, none
    of :data:`_ANY_CASE_START` in any case (each set looked for in one pass: :data:`_WRITTEN_AUTOMATON`), it holds
    none of :data:`_FOLDS` (which ``re`` reads as an ASCII letter in any case, ``str.lower`` does not), and no form of
    :data:`_SEARCHED` finds a match in it."""
    if either(_WRITTEN_AUTOMATON, text, _ANY_CASE_AUTOMATON, text.lower()):
        return True
    if not text.isascii() and any(c in text for c in _FOLDS):
        return True
    return any(any(h in text for h in hints) and rx.search(text) for rx, hints in _SEARCHED_RX)


def _matches(rx: re.Pattern, text: str, starts: tuple[str, ...], any_case: tuple[str, ...], low: list,
             seen: dict | None = None):
    """The matches ``rx.finditer(text)`` gives, in order, found by trying ``rx`` only where one of ``starts`` (as
    written) or ``any_case`` (in any case, looked for in ``text.lower()``; kept in ``low`` for the other forms) stands
    (:data:`_STARTS`); the places of each string kept in ``seen`` for the other forms."""
    seen = {} if seen is None else seen
    if any_case and not low:
        low.append(None if not text.isascii() and any(c in text for c in _FOLDS) else text.lower())
    if any_case and low[0] is None:
        yield from rx.finditer(text)
        return
    places: set[int] = set()
    for lits, where, lowered in ((starts, text, False), (any_case, low[0] if any_case else text, True)):
        for lit in lits:
            if (lit, lowered) not in seen:
                got, at = [], where.find(lit)
                while at >= 0:
                    got.append(at)
                    at = where.find(lit, at + 1)
                seen[lit, lowered] = got
            places.update(seen[lit, lowered])
    end = 0
    for at in sorted(places):
        if at >= end and (m := rx.match(text, at)) is not None:
            end = m.end()
            yield m


def masked(value: str, kind: str = "") -> str:
    """``value`` with all but its first 4 and last 4 characters left out (``AKIA…MPLE``); a PEM line whole (it holds
    no key material); a password (``kind`` ``url-password``) as ``***``, nothing of it kept (a short one would be
    most of it); a password given to a name (``password``) alike."""
    if kind in _HIDDEN:
        return TYPED_TOO
    if value.startswith("-----"):
        return value
    return f"{value[:4]}…{value[-4:]}" if len(value) > 12 else f"{value[:2]}…"


#: What stands after a PEM private key's first line in place of its other lines (:func:`redacted`).
LEFT_OUT = "[private key left out]"
#: What a PEM private key's lines may hold after its first: base64, line breaks (real or escaped:
#: :data:`ESCAPED_BREAK`) and the ``Proc-Type: 4,ENCRYPTED`` / ``DEK-Info: AES-128-CBC,…`` header lines of an
#: encrypted one (RFC 1421).
_PEM_BODY = r"(?:[A-Za-z0-9+/=\s:,-]|" + ESCAPED_BREAK + ")"
#: After a PEM private key's first line: its lines up to its last (``-----END … PRIVATE KEY-----``), or, when the text
#: was cut before it, the run of such characters that follows, to the end of the text at most: nothing else (a word,
#: a quote, markup) is ever taken with it, so a cut key is masked to the end of its own text (trial 25b F1: it ran on
#: to the next key's end anywhere later in the written file).
_PEM_REST = re.compile(_PEM_BODY + r"{0,20000}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|" + _PEM_BODY + "*")
_PEM_SPACE = re.compile(r"\s|" + ESCAPED_BREAK)


def _masked_already(text: str, b: int) -> bool:
    """Whether the PEM first line ending at ``b`` is masked already: :data:`LEFT_OUT` follows it, whole, or cut by
    the end of the text or a ``…`` (a title or a heading masked, then cut to its length)."""
    k = 0
    while k < len(LEFT_OUT) and b + k < len(text) and text[b + k] == LEFT_OUT[k]:
        k += 1
    return k == len(LEFT_OUT) or (k > 0 and (b + k == len(text) or text[b + k] == "…"))


def _replacements(text: str, extra=()) -> list[tuple[int, int, str, str, str]]:
    """``(start, end, shown, fingerprint, kind)`` of each credential :func:`find` finds in ``text`` (and of ``extra``'s,
    found in the argument vector ``text`` is an item of: :func:`~asz_core.view.secret_argv.argv_spans`), by start, none
    overlapping (of two forms overlapping the first is kept): ``shown`` is its :func:`masked` form, or a PEM private
    key's first line then :data:`LEFT_OUT` in place of its lines up to its end (its fingerprint that of its lines
    without their line breaks, so the key reads as one however a text breaks them). A key already masked so (its
    first line followed by :data:`LEFT_OUT`) is no credential: masking a masked text changes and counts nothing."""
    out, at = [], 0
    for kind, a, b in with_extra(find(text), extra):
        if a < at:
            continue
        if kind == "private-key":
            if _masked_already(text, b):
                continue
            end = _PEM_REST.match(text, b).end()
            out.append((a, end, text[a:b] + LEFT_OUT, fingerprint(_PEM_SPACE.sub("", text[a:end])), kind))
        else:  # a continued token's fingerprint is the token's, however its text writes the continuations
            end = b
            value = continued_joined(text[a:b]) if kind == "continued-token" else text[a:b]
            out.append((a, b, masked(text[a:b], kind), fingerprint(value), kind))
        at = end
    if _CHOSEN is not None:  # masked as a copy's manifest says (asz_core.reading.export_forms)
        out = _CHOSEN(text, out)
    if _SEEN is not None and (out or TYPED_TOO in text):  # a typed *** too: the manifest tells it from a mask (render 12)
        _SEEN.append((text, out))
    return out


def credentials(text: str) -> list[tuple[str, str, str]]:
    """``(kind, shown, fingerprint)`` of each credential in ``text`` as the exports mask and count it
    (:func:`_replacements`), by start: a PEM private key is one credential of its lines, told from another key of its
    type by its :func:`fingerprint` (``shown`` its first line alone, which holds no key material); any other its
    :func:`masked` form. What ``asz secrets`` lists (:mod:`asz_core.reading.secrets`), so that one credential has
    one fingerprint in every reader."""
    return masked_found(text)[1]


#: What a password's mask shows (:func:`masked`) that a text can hold as typed too (Markdown's ``***``): a text holding
#: it is recorded (:class:`recording`) though it holds no credential, so the manifest tells a mask from a typed one.
TYPED_TOO = "***"
#: While :func:`recording`: each text a credential was found in, with what masks it (``(text, replacements)``).
_SEEN: list | None = None


#: While :class:`choosing`: ``chosen(text, cuts) -> cuts``, which of the credentials :func:`_replacements` found in a text
#: are masked (and which a form no longer takes, added): a copy's masking made again as its manifest says.
_CHOSEN = None


def expression(kind: str) -> re.Pattern | None:
    """Form ``kind``'s compiled expression (:data:`KINDS`), or None for a name no form of this asz has."""
    return next((rx for name, rx, *_ in _COMPILED if name == kind), None)


def chosen_now() -> bool:
    """True while :class:`choosing`: texts are masked as a copy's manifest says, not as this asz's forms mask them, so
    nothing masked meanwhile may be kept for another reader (the summary store neither reads nor writes then)."""
    return _CHOSEN is not None


class choosing:
    """``with choosing(chosen):`` every text is masked with ``chosen(text, cuts)``'s cuts in place of those the forms
    found (``cuts`` as :func:`_replacements` gives them: ``(start, end, shown, fingerprint, kind)``, by start; the
    cuts returned likewise, none overlapping): ``asz verify --export --root`` makes a copy again as the credential
    forms of the asz that made it masked it (:mod:`asz_core.reading.export_forms`). Not nested, not thread-safe."""

    def __init__(self, chosen):
        self.chosen = chosen

    def __enter__(self):
        global _CHOSEN
        _CHOSEN = self.chosen
        return self.chosen

    def __exit__(self, *exc) -> None:
        global _CHOSEN
        _CHOSEN = None


class recording:
    """``with recording() as seen:`` every text a credential is found in while it runs, as ``(text, [(start, end,
    shown, fingerprint, kind), …])``, and every text holding a typed ``***`` (a password's mask's shown text) with
    ``[]``: what the export manifest places its masks by
    (:mod:`asz_core.reading.export_manifest`). Not nested, not thread-safe: one export at a time."""

    def __enter__(self) -> list:
        global _SEEN
        _SEEN = []
        return _SEEN

    def __exit__(self, *exc) -> None:
        global _SEEN
        _SEEN = None


def redacted(text: str, extra=()) -> tuple[str, list[str]]:
    """``text`` with each credential :func:`find` finds (and ``extra``'s: :func:`_replacements`) replaced by its
    :func:`masked` form (a PEM private key's lines by ``[private key left out]`` after its first line), and the
    :func:`fingerprint` of each value replaced."""
    shown, found = masked_found(text, extra)
    return shown, [mark for _, _, mark in found]


def masked_found(text: str, extra=()) -> tuple[str, list[tuple[str, str, str]]]:
    """``(text masked, credentials)`` in one pass: ``text`` as :func:`redacted` masks it, and ``(kind, shown,
    fingerprint)`` of each credential it masked, as :func:`credentials` gives them (one per place). What the search
    index stores and keeps of a text (:func:`~asz_core.reading.search_hits.masked_index`: trial 38c F2)."""
    cuts = _replacements(text, extra)
    if not cuts:
        return text, []
    out, at = [], 0
    for a, b, shown, _, _ in cuts:
        out += [text[at:a], shown]
        at = b
    return "".join(out) + text[at:], [(kind, shown[:-len(LEFT_OUT)] if kind == "private-key" else shown, mark)
                                      for _, _, shown, mark, kind in cuts]


def masked_cut(text: str, cut, mask: bool = True, at=None, extra=()) -> tuple[str, list[str], list[str]]:
    """``text`` masked (:func:`redacted`) and only then cut (``cut``: the masked text -> its beginning, such as a
    tool call's line cut at 200 characters or the asz.view document's clip at 2,000 bytes), so a cut never leaves a
    credential's head whole (trial 25b F2); with the :func:`fingerprint` of each credential the cut text shows
    (written) and of each the cut took away, one per place. With ``mask`` False the text is cut as it is
    (``--no-redact``) and counted alike: a credential the cut goes through is written (in part), one credential
    with the fingerprint of its whole value, never a piece counted as another (small26). ``at(whole, i)``: where the
    cut text holds character ``i`` of the text given to ``cut`` (default ``i``; a cut that folds white space,
    :func:`~asz_core.view.placing.one_line`, gives :func:`~asz_core.view.placing.folded_at`); a credential is shown
    when its first character stands there."""
    out, pos, starts, marks = [], 0, [], []
    for a, b, shown, mark, _ in _replacements(text, extra):
        out.append(text[pos:a])
        starts.append(sum(map(len, out)))
        out.append(shown if mask else text[a:b])
        marks.append(mark)
        pos = b
    whole = "".join(out) + text[pos:]
    got = cut(whole)
    place = [(at(whole, x) if at else x) for x in starts]
    seen = [p < len(got) and got[p] == whole[x] for p, x in zip(place, starts)]
    return got, [m for m, s in zip(marks, seen) if s], [m for m, s in zip(marks, seen) if not s]


class Masker:
    """Credentials masked text by text, before each text is placed (``asz export --redact``, and ``--audit`` by
    default), never over a written file: a cut key is masked to the end of its own text, and no line break, quote or
    markup around a text is ever taken with it (trial 25b F1). With ``mask`` False the texts stay whole and the
    credentials they hold are only counted (``--no-redact``, or an export given neither flag: stderr says how many
    were written whole). ``gone``: the :func:`fingerprint` of each credential met, one per place."""

    def __init__(self, mask: bool, gone: list[str] | None = None):
        self.mask = mask
        self.gone: list[str] = [] if gone is None else gone

    def text(self, text: str, extra=()) -> str:
        """``text`` masked (:func:`redacted`, ``extra`` too; as it is when not masking), its credentials counted in
        ``gone``."""
        if not text or (not extra and len(text) <= _SHORT and not _may_hold(text) and TYPED_TOO not in text):
            return text  # no credential, nothing recorded (_replacements records a text holding a typed *** too)
        got, marks = redacted(text, extra)
        self.gone += marks
        return got if self.mask else text

    def tree(self, value, skip: frozenset[str] = frozenset()):
        """``value`` (JSON-like: dicts, lists, tuples, strings) with each string in it masked by :meth:`text`; a dict
        is changed in place (its type kept: a ``Step``), a dict's keys are not texts, and the values of the keys in
        ``skip`` are left as they are (an image's base64, a node of the document a step only points to). A dict or
        list met twice (shared) is masked and counted once. A list's strings are masked with what the list read as an
        argument vector gives each (:func:`~asz_core.view.secret_argv.argv_spans`: ``["--token", "VALUE"]``)."""
        seen: set[int] = set()

        def walk(v):
            if isinstance(v, str):
                return self.text(v)
            if isinstance(v, (dict, list)):
                if id(v) in seen:
                    return v
                seen.add(id(v))
                if isinstance(v, dict):
                    for k, x in v.items():
                        if k not in skip:
                            v[k] = walk(x)
                elif spans := argv_spans(v, find):
                    v[:] = [self.text(x, spans[i]) if i in spans else walk(x) for i, x in enumerate(v)]
                else:
                    v[:] = [walk(x) for x in v]
                return v
            if isinstance(v, tuple):
                return tuple(walk(x) for x in v)
            return v

        return walk(value)


def counted(marks: list[str]) -> tuple[int, int]:
    """``(places, credentials)`` of ``marks``, the :func:`fingerprint` of each place a credential stands (keyed or
    not, alike): a place is one occurrence of a credential in a text, what one mask covers (a value twice in one text
    is two places, in two texts two), and a credential one fingerprint however many places hold it. How every reader
    counts what it masked or wrote whole: ``asz export``'s stderr, ``asz secrets``' last line, ``asz conversation``
    (trial 44c F8: ``asz secrets`` said 180 places where the export masked 185, a value twice in one text counted
    once)."""
    return len(marks), len(set(marks))


def found_in(value) -> list[str]:
    """The :func:`fingerprint` of each credential the strings of ``value`` (JSON-like) hold, one per place; nothing
    is changed (what a part an export leaves out held: trial 25b F7). The same as ``Masker(False).tree(value)``
    gathers, in the same order, a shared dict or list counted once; its short texts are first looked at together
    (:func:`_shorts_clear`; session 43: the day's text export asked :meth:`Masker.text` of 600,000 short texts of the
    records it leaves out, a third of its CPU)."""
    texts, extra = _texts(value)
    keep = range(len(texts))
    short = [t for t in texts if len(t) <= _SHORT]
    if short and _shorts_clear(short):
        keep = [i for i, t in enumerate(texts) if len(t) > _SHORT or i in extra]
    counted = Masker(False)
    for i in keep:
        counted.text(texts[i], extra.get(i, ()))
    return counted.gone


def _texts(value) -> tuple[list[str], dict[int, list]]:
    """The strings of ``value`` (JSON-like) in the order :meth:`Masker.tree` meets them, a dict's values (never its
    keys) and a dict or list met twice once; and by the place of each string a list read as an argument vector gives
    credentials (:func:`~asz_core.view.secret_argv.argv_spans`), those."""
    out: list[str] = []
    extra: dict[int, list] = {}
    seen: set[int] = set()

    def walk(v) -> None:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, (dict, list)):
            if id(v) not in seen:
                seen.add(id(v))
                if isinstance(v, dict):
                    for x in v.values():
                        walk(x)
                elif spans := argv_spans(v, find):
                    for i, x in enumerate(v):
                        if i in spans:
                            extra[len(out)] = spans[i]
                        walk(x)
                else:
                    for x in v:
                        walk(x)
        elif isinstance(v, tuple):
            for x in v:
                walk(x)

    walk(value)
    return out, extra


def _shorts_clear(texts: list[str]) -> bool:
    """True when none of ``texts`` (each at most :data:`_SHORT` characters) holds a credential or a typed ``***``:
    none is one :func:`_may_hold` passes on. Their start strings are looked for once in the texts joined by NUL (a
    string found across two texts only sends them to be looked at one by one); a :data:`_SEARCHED` form's expression
    runs on each text holding one of its hints, as :func:`_may_hold` runs it."""
    joined = "\x00".join(texts)
    if TYPED_TOO in joined or either(_WRITTEN_AUTOMATON, joined, _ANY_CASE_AUTOMATON, joined.lower()):
        return False
    if not joined.isascii() and any(c in joined for c in _FOLDS):
        return False
    for rx, hints in _SEARCHED_RX:
        if any(h in joined for h in hints) and any(any(h in t for h in hints) and rx.search(t) for t in texts):
            return False
    return True


def shown_title(title: str) -> str:
    """``title`` as every reader prints it: each credential :func:`find` finds in it masked (:func:`redacted`), so a
    key typed into a first prompt, which names the conversation, is never listed, searched, exported or drawn whole.
    A prompt's title is masked before it is cut to its length (:func:`~asz_core.view.summary.short_title`), so no cut
    leaves a credential's head whole either. Display only: the landed records keep the text as it was written."""
    return redacted(title)[0] if title else title


#: The keys of a reader's row or summary that name where a conversation ran: its working directory (``project``, the
#: label it is listed under, the names it had before) and its git branch. A credential in a folder's or a branch's name
#: is masked in them as in a title, in every reader that masks titles (trial 37a F2: ``asz ls``, ``asz usage project``
#: and ``asz conversation`` printed a ``ghp_`` token in a cwd whole, while the exports masked it).
PLACE_KEYS = ("project", "projects", "project_label", "project_before", "git_branch")


def shown_places(row: dict) -> dict:
    """A copy of ``row`` (an ``asz ls`` or ``asz usage`` row, a document's ``summary``) with each credential in its
    :data:`PLACE_KEYS` values (a string, or a list of them) masked as :func:`shown_title` masks a title; ``row`` itself
    when none holds one. Display only: filters and groups read the values as recorded."""
    out = row
    for key in PLACE_KEYS:
        value = row.get(key)
        shown = shown_title(value) if isinstance(value, str) else [
            shown_title(v) if isinstance(v, str) else v for v in value] if isinstance(value, list) else value
        if shown != value:
            out = {**out, key: shown}
    return out


#: What a search snippet's window stands for at a cut end of it (FTS5's ``snippet()`` and the long-text window).
_CUT = "…"
#: The separator the search index puts between CJK characters (asz_core.reading.search_text.CJK_SEP), not in a snippet.
CJK_SEPARATOR = "\x01"
#: How far each side of a snippet :func:`_whole_ends` reads for a credential it cuts: more than a PEM key spans
#: (:data:`_PEM_REST` takes at most 20,000 characters after its first line).
_REACH = 21_000


def _whole_ends(text: str, spans: list[list[int]], whole: str) -> tuple[str, list[list[int]]]:
    """``(text, spans)`` of a snippet ``text`` taken from ``whole`` (the text as the index holds it), with each end
    that cuts through a credential moved out to take it whole (a window starting in a PEM key's body printed the
    key; one starting after a token's ``ghp_`` printed the rest), so :func:`_replacements` knows it and masks it;
    as given when no credential is cut or the snippet is not found in ``whole`` (CJK separators not counted). Only
    :data:`_REACH` characters each side of the snippet are read for credentials (a PEM key spans fewer)."""
    whole = whole.replace(CJK_SEPARATOR, "")
    head = text.startswith(_CUT) and not whole.startswith(_CUT)
    tail = text.endswith(_CUT) and not whole.endswith(_CUT) and len(text) > head
    core = text[head:len(text) - tail]
    at = whole.find(core) if core else -1
    if at < 0:
        return text, spans
    base = max(at - _REACH, 0)
    lo, hi = at, at + len(core)
    for a, b, *_ in _replacements(whole[base:hi + _REACH]):
        a, b = a + base, b + base
        lo, hi = (a if a < lo < b else lo), (b if a < hi < b else hi)
    if (lo, hi) == (at, at + len(core)):
        return text, spans
    before = _CUT if lo > 0 else ""
    shift = len(before) + (at - lo) - head
    return before + whole[lo:hi] + (_CUT if hi < len(whole) else ""), [[x + shift, y + shift] for x, y in spans]


def shown_snippet(text: str, spans: list[list[int]], whole: str | None = None) -> tuple[str, list[list[int]]]:
    """A search hit's snippet as every reader prints it (``asz search``, its ``--json``, the page's results):
    ``text`` with each credential masked as in :func:`shown_title` (:func:`redacted`), and ``spans`` (the matches,
    ``[start, end)`` in code points of ``text``) moved to the masked text; a match that falls in a credential marks
    its masked form. With ``whole``, the text the snippet was cut from, a credential an end of the snippet cuts
    through is taken whole first, then masked (:func:`_whole_ends`: a window starting in a PEM key's body printed
    it all). The conversation's own text is not masked (it is the evidence: ``asz export --redact``)."""
    if whole:
        text, spans = _whole_ends(text, spans, whole)
    cuts = _replacements(text) if text else []
    if not cuts:
        return text, spans
    out, at, starts = [], 0, []  # starts: (old start, new start, old end, new end) of each replacement
    for a, b, shown, _, _ in cuts:
        out.append(text[at:a])
        new_a = sum(map(len, out))
        out.append(shown)
        starts.append((a, new_a, b, new_a + len(shown)))
        at = b

    def moved(x: int, end: bool) -> int:
        shift = 0
        for a, new_a, b, new_b in starts:
            if x <= a:
                break
            if x < b or (end and x == b):  # inside a credential: its masked form's start or end
                return new_b if end else new_a
            shift = new_b - b
        return x + shift

    return "".join(out) + text[at:], [[moved(s, False), moved(e, True)] for s, e in spans]


def fingerprint(value: str) -> str:
    """The first 12 hex digits of ``value``'s SHA-256 (UTF-8): the same credential has the same one everywhere."""
    return hashlib.sha256(value.encode()).hexdigest()[:12]
