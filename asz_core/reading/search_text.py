"""The text side of full-text search: what the index stores, what a query asks, how a snippet's matches are told.

Three things, each one pure function over strings, shared by the index
(:mod:`asz_core.reading.search`), ``asz search`` and ``/api/search``:

**CJK text** (Han, kana, Hangul, bopomofo; :data:`CJK_CLASS`). SQLite's
``unicode61`` tokenizer makes one token of a run of letters, and these scripts
write no space between words, so ``日本`` would never find ``日本語``. The
index therefore stores such text with :data:`CJK_SEP` (U+0001, a separator to
the tokenizer, never kept in indexed text) before, between and after the
characters of each CJK run (:func:`index_form`): every CJK character is one
token. A query's CJK words are cut the same way into phrases of characters
(:func:`query_terms`), so ``日本`` is the phrase ``日 本`` and finds ``日本語``
wherever the two characters stand together; ``日本*`` finds the same. Text
without a CJK character is stored and matched exactly as before.

**Emoji** (:data:`EMOJI_CLASS`) are cut the same way, each one token, and the index declares them token characters
(``unicode61``'s ``tokenchars``, :data:`EMOJI_CHARS`), where they were separators and could not be searched for:
``✅`` finds the texts holding it, ``🚀 deploy`` those holding both (house26).

**Snippets.** FTS5's ``snippet()`` is asked to mark matches with
:data:`SNIP_START` and :data:`SNIP_END` (U+0002, U+0003, never kept in indexed
text either). :func:`snippet_spans` turns its answer into the text as it
stands in the record (the CJK separators taken out, ``«`` and ``»`` the
text's own) and the matched spans: ``[start, end)`` offsets in Unicode code
points (characters, not UTF-16 units or bytes) into that text, in order,
touching spans joined. :func:`marked` gives the older form, the text with each
span between ``«`` and ``»`` (:data:`MARK_START`, :data:`MARK_END`), which
cannot tell a marker from a guillemet the text holds; :func:`escaped` gives a
form that can: the spans between ``«`` and ``»``, and a ``«`` or ``»`` of the
text itself written ``\\«``, ``\\»``, a backslash as it is (``asz search``'s
plain output, docs/reading.md).
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from .termtext import plain

__all__ = ["KINDS", "iter_kinds", "CJK_CLASS", "EMOJI_CLASS", "EMOJI_CHARS", "TOKENIZE", "CJK_SEP", "SNIP_START", "SNIP_END", "MARK_START", "MARK_END", "index_form", "query_terms", "parse_query", "group_texts", "OPERATORS",
           "snippet_spans", "marked", "exclusions", "kept_query", "quoted_or", "escaped", "unescaped", "one_line", "has_cjk", "cjk_window", "cut_window", "QueryError", "fts_query",
           "NOT_INDEXED"]

#: The characters each indexed as one token (a regular expression character class): Hangul Jamo; CJK symbols and
#: punctuation, Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK strokes, Katakana extensions,
#: enclosed and compatibility CJK, CJK Unified Ideographs and extension A (U+3005-U+9FFF, one range: few ranges keep
#: the scan fast); Hangul Jamo extensions and syllables; CJK compatibility ideographs; half-width Katakana and Hangul;
#: ideograph extensions B-H. A symbol among them is a separator to the tokenizer whether or not it is cut out.
CJK_CLASS = "[\u1100-\u11ff\u3005-\u9fff\ua960-\ud7ff\uf900-\ufaff\uff66-\uffdc\U00020000-\U0003134f]"
#: The emoji each indexed as one token (a regular expression character class; house26): watch and hourglass,
#: keyboard, eject, the media controls and clocks of U+23E9-U+23FA, the Miscellaneous Symbols and the Dingbats
#: (U+2600-U+27BF: ☀, ⚠, ✅, ❌, ✓ with them), the arrows, squares, star and circle of U+2B05-U+2B55, and every block of
#: U+1F000-U+1FAFF (mahjong and cards, enclosed letters, regional indicators, pictographs, emoticons, transport,
#: supplemental symbols, skin tones). ``unicode61`` makes them separators (its tables are Unicode 6.1's, and symbols
#: are no token characters there): the index declares them token characters (:data:`EMOJI_CHARS`, its
#: ``tokenchars``) and stores each one apart, as a CJK character (:func:`index_form`). A variation selector or a
#: zero-width joiner beside them stays a separator: ``❤️`` is found by ``❤``, ``👍🏽`` by ``👍`` and by ``👍🏽``.
EMOJI_CLASS = "[\u231a\u231b\u2328\u23cf\u23e9-\u23f3\u23f8-\u23fa\u2600-\u27bf\u2b05-\u2b07\u2b1b\u2b1c\u2b50\u2b55\U0001f000-\U0001faff]"
#: Every character of :data:`EMOJI_CLASS`, as the index's ``tokenchars`` lists them (no quote among them).
EMOJI_CHARS = "".join(chr(c) for a, b in ((0x231A, 0x231B), (0x2328, 0x2328), (0x23CF, 0x23CF), (0x23E9, 0x23F3),
                                           (0x23F8, 0x23FA), (0x2600, 0x27BF), (0x2B05, 0x2B07), (0x2B1B, 0x2B1C),
                                           (0x2B50, 0x2B50), (0x2B55, 0x2B55), (0x1F000, 0x1FAFF)) for c in range(a, b + 1))
#: The tokenizer of the index (and of :mod:`~asz_core.reading.search_snippet`'s windows, so a long text's snippet
#: marks what the index matched): ``unicode61``, diacritics folded, with ``_`` and :data:`EMOJI_CHARS` token
#: characters. ``_`` is kept inside a word (schema 34, trial 42b F1): ``foo_bar``, ``__init__`` and
#: ``_tokenizer`` are each one word, found whole (``tokenizer`` does not find ``_tokenizer``), their first parts by a
#: prefix (``snake*`` finds ``snake_case_name``).
TOKENIZE = "unicode61 remove_diacritics 2 tokenchars '_" + EMOJI_CHARS + "'"
#: Stored between a CJK character and the letter or digit beside it (a separator to ``unicode61``).
CJK_SEP = "\x01"
#: What FTS5's ``snippet()`` is asked to put around a match.
SNIP_START, SNIP_END = "\x02", "\x03"
#: How the older ``snippet`` key (and ``asz search``'s plain output) marks a match.
MARK_START, MARK_END = "\u00ab", "\u00bb"

_HAS_CJK = re.compile(CJK_CLASS)
#: A run of characters each stored as one token: CJK characters and emoji.
_ONE_CLASS = CJK_CLASS[:-1] + EMOJI_CLASS[1:]
_HAS_ONE = re.compile(_ONE_CLASS)
_CJK_RUN = re.compile(_ONE_CLASS + "+")
#: A thing of a query: ``-?"a phrase"`` (a ``\\"`` inside it is a quote of the phrase, so a command's escaped quotes
#: paste whole: trial 30a F4), or a run of non-space.
_WORD = re.compile(r'(-?)"((?:[^"\\]|\\.)*)"|(\S+)')
#: The query's operators (upper case, standing alone: :func:`parse_query`).
OPERATORS = ("OR", "AND", "NOT")
_TOKEN = re.compile(r"(?:\w|" + EMOJI_CLASS + r")+\*?", re.UNICODE)
#: What may follow the ``-`` of a thing to leave out: a plain word or prefix (``-server``, ``-draft*``).
_PLAIN = re.compile(r"(?:\w|" + EMOJI_CLASS + r")+\*?", re.UNICODE)


def _minus(bare: str) -> bool:
    """Whether the unquoted thing ``bare`` leaves out what follows its ``-``: a plain word or prefix (``-server``,
    ``-rf``, ``-draft*``). A thing starting with ``--`` (``--noinput``), or whose rest is not a plain word (``-1.5``,
    ``-/tmp/x``, ``-foo.bar``), is searched for as its words: what a person pasting a command line means by it
    (trial 30a F4; docs/reading.md)."""
    return bare.startswith("-") and not bare.startswith("--") and _PLAIN.fullmatch(bare, 1) is not None




def _cut_run(m: re.Match) -> str:
    return CJK_SEP + CJK_SEP.join(m.group()) + CJK_SEP


def index_form(text: str) -> str:
    """``text`` as the index stores it: terminal formatting taken out (:func:`~asz_core.reading.termtext.plain`: in
    ``\\x1b[1mContext`` the colour's ``1m`` made the word ``1mcontext``, so ``Context`` missed it; trial 16, F6), the
    three control characters above made spaces, and :data:`CJK_SEP` put before, between and after the characters of
    each run of CJK characters. Unchanged when it holds none of them (an ASCII text with no ESC is passed at once)."""
    if "\x1b" in text:
        text = plain(text)
    if CJK_SEP in text or SNIP_START in text or SNIP_END in text:
        text = text.replace(CJK_SEP, " ").replace(SNIP_START, " ").replace(SNIP_END, " ")
    return text if text.isascii() else _CJK_RUN.sub(_cut_run, text)


def _phrase(words: Iterable[str]) -> str:
    """One FTS5 string of ``words``; a CJK word becomes its characters (and the non-CJK runs beside them)."""
    out = []
    for w in words:
        out.append(" ".join(_CJK_RUN.sub(lambda m: " " + " ".join(m.group()) + " ", w).split()) if _HAS_ONE.search(w) else w)
    return '"' + " ".join(out) + '"'


def query_terms(text: str) -> list[str]:
    """The FTS5 terms a hit of a person's query holds (:func:`parse_query`; not those it leaves out): ``"a phrase"``
    one term, every other word (``\\w+``) one, a trailing ``*`` kept as a prefix; nothing else of the query reaches
    SQLite. Empty when it holds no word to find. Raises :class:`QueryError` (``OR`` misplaced)."""
    return [t for group in parse_query(text)[0] for alt in group for t in alt]


def _words(text: str) -> list[str]:
    """The words of ``text`` the index can hold (:data:`_TOKEN`: letters, digits and ``_``, as :data:`TOKENIZE`
    keeps them, so ``foo_bar`` is one word, as the index holds it), a run of ``_`` alone left out: no word to find
    (trial 24b F4: ``_`` found 0 hits, ``%`` was refused; both are refused, :data:`NOT_INDEXED`)."""
    return [w for w in _TOKEN.findall(text) if w.strip("_*")]


#: Why a query of symbols alone finds nothing: what the refusal says (:func:`fts_query`).
NOT_INDEXED = ("the index keeps words, runs of letters, digits and '_' (CJK characters and emoji each one); "
               "punctuation, other symbols and a run of '_' alone are no words to find, so a query of them alone has "
               "nothing to find (docs/reading.md)")


def _terms(quoted: str | None, bare: str, whole: bool) -> list[str]:
    if quoted is not None:
        words = [w.rstrip("*") for w in _words(quoted)]
        return [_phrase(words)] if words else []
    words = _words(bare)
    if whole and len(words) > 1:  # -foo.bar leaves out the phrase foo bar
        return [_phrase(w.rstrip("*") for w in words)]
    return [_phrase([w.rstrip("*")]) + ("*" if w.endswith("*") else "") for w in words]


#: The most terms a query may hold (words, phrases and prefixes, to find or to leave out; trial 27c F2: 1,000 ORs
#: took 6.6 s, 3,000 did not answer): past it :func:`parse_query` refuses the query (``asz search`` exit 2,
#: ``/api/search`` 400).
MAX_TERMS = 64


def parse_query(text: str) -> tuple[list[list[list[str]]], list[str]]:
    """``(groups, left_out)`` of a person's query: a hit holds every group (AND); a group is satisfied by any of its
    alternatives (``a OR b``), an alternative by all of its terms (a word like ``hello.sh`` gives two); ``left_out``
    are the terms of ``-word``, ``-"a phrase"``, ``-prefix*`` and ``NOT word``: a hit holds none of them. The
    operators (:data:`OPERATORS`) are upper case words standing alone: ``OR`` between two things to find, ``AND``
    between two things (what words side by side mean anyway), ``NOT`` before a thing to leave out. Raises
    :class:`QueryError` for an operator with nothing it can join (first or last, two together, ``OR`` beside a
    thing left out); ``"OR"`` in quotes, or ``or``, is the word."""
    groups, left_out, _ = _parsed(text)
    return groups, left_out


def exclusions(text: str) -> list[tuple[str, str]]:
    """``(as written, FTS5 term)`` of each thing ``text`` leaves out (:func:`parse_query`: ``-rf``, ``-"a b"``,
    ``NOT word``), in order: what a note names when they left out every text the rest matched (trial 30a F4). Raises
    :class:`QueryError` as :func:`parse_query` does."""
    _, left_out, written = _parsed(text)
    return list(zip(written, left_out))


def _parsed(text: str) -> tuple[list[list[list[str]]], list[str], list[str]]:
    """:func:`parse_query`'s ``(groups, left_out)`` and each left-out thing as written (one term each)."""
    groups: list[list[list[str]]] = []
    left_out: list[str] = []
    written: list[str] = []
    op = ""  # the operator just read
    last = ""  # what the last thing read was: "find", "out" or ""

    def misplaced(word: str) -> QueryError:
        return QueryError(f"{text!r}: {word} has nothing to join there (a OR b, a AND b, a NOT b, a -b); to find the "
                          f"word itself write it in lower case or as \"{word}\"")

    for m in _WORD.finditer(text):
        minus, quoted, bare = m.group(1), m.group(2), m.group(3) or ""
        if bare in OPERATORS:
            if op or (bare == "OR" and last != "find") or (bare == "AND" and not last):
                raise misplaced(op or bare)
            op = bare
            continue
        if quoted is None and _minus(bare):
            minus, bare = "-", bare[1:]
        terms = _terms(quoted, bare, bool(minus) or op == "NOT")
        if not terms:
            continue
        if minus or op == "NOT":
            if op == "OR":
                raise misplaced("OR")
            left_out.extend(terms)
            written.extend([f"-{quoted_or(quoted, bare)}" if minus else f"NOT {quoted_or(quoted, bare)}"] * len(terms))
            last = "out"
        else:
            if op == "OR":
                groups[-1].append(terms)
            else:
                groups.append([terms])
            last = "find"
        op = ""
    if op:
        raise misplaced(op)
    if (n := sum(len(t) for g in groups for t in g) + len(left_out)) > MAX_TERMS:
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise QueryError(f"{shown!r}: {n} terms, over the {MAX_TERMS} a query may hold (its cost grows faster than "
                         "its length: docs/reading.md)")
    return groups, left_out, written


def quoted_or(quoted: str | None, bare: str) -> str:
    """A thing of a query as written: ``"a phrase"`` or the bare word."""
    return f'"{quoted}"' if quoted is not None else bare


def group_texts(text: str) -> list[str]:
    """The query of each group of ``text`` (:func:`parse_query`), written as a person writes it, each followed by every
    thing ``text`` leaves out: ``hypothesis testing -draft`` gives ``hypothesis -draft`` and ``testing -draft``,
    ``a OR b "c d"`` gives ``a OR b`` and ``"c d"``. A conversation holds ``text`` between its texts when each of
    these finds a text of it (``asz search --conversations``, :mod:`asz_core.reading.search_convs`). Raises
    :class:`QueryError` as :func:`parse_query` does."""
    parse_query(text)
    groups: list[list[str]] = []
    left_out: list[str] = []
    op = ""
    for m in _WORD.finditer(text):
        minus, quoted, bare = m.group(1), m.group(2), m.group(3) or ""
        if bare in OPERATORS:
            op = bare
            continue
        if quoted is None and _minus(bare):
            minus, bare = "-", bare[1:]
        if not _terms(quoted, bare, bool(minus) or op == "NOT"):
            continue
        word = quoted_or(quoted, bare)
        if minus or op == "NOT":
            left_out.append(("-" if minus else "NOT ") + word)  # -foo.bar is searched for: NOT foo.bar stays out
        elif op == "OR":
            groups[-1] += ["OR", word]
        else:
            groups.append([word])
        op = ""
    return [" ".join(g + left_out) for g in groups]


def snippet_spans(raw: str) -> tuple[str, list[list[int]]]:
    """``(text, spans)`` of a snippet FTS5 marked with :data:`SNIP_START` / :data:`SNIP_END` (module docstring):
    ``spans`` are ``[start, end)`` code point offsets into ``text``, in order, touching ones joined."""
    text: list[str] = []
    spans: list[list[int]] = []
    n = 0
    start = -1
    for piece in re.split("([\x01\x02\x03])", raw):
        if piece == SNIP_START:
            start = n
        elif piece == SNIP_END:
            if start >= 0 and n > start:
                if spans and spans[-1][1] == start:
                    spans[-1][1] = n
                else:
                    spans.append([start, n])
            start = -1
        elif piece and piece != CJK_SEP:
            text.append(piece)
            n += len(piece)
    return "".join(text), spans


def marked(text: str, spans: list[list[int]]) -> str:
    """``text`` with each span between :data:`MARK_START` and :data:`MARK_END` (the older ``snippet`` form: a
    guillemet the text holds looks like a marker there; :func:`escaped` tells them apart)."""
    out: list[str] = []
    at = 0
    for a, b in spans:
        out += [text[at:a], MARK_START, text[a:b], MARK_END]
        at = b
    out.append(text[at:])
    return "".join(out)


def escaped(text: str, spans: list[list[int]]) -> str:
    """The unambiguous plain form: matches between ``«`` and ``»``; a ``«`` or ``»`` of the text itself has a ``\\``
    before it, and every other character, a backslash included, stands for itself (``C:\\dir\\«x»``: trial 36c F7,
    the doubled backslash of render 14 and before beside a match, ``C:\\dir\\\\«x»``, showed a path the text does
    not hold). :func:`unescaped` reads it back, as the spans never hold a ``\\``, ``«`` or ``»`` (a match is a run of
    FTS5 tokens: letters, digits, the emoji)."""
    bounds: dict[int, str] = {}
    for a, b in spans:
        bounds[a] = bounds.get(a, "") + MARK_START
        bounds[b] = MARK_END + bounds.get(b, "")
    out: list[str] = []
    for i, c in enumerate(text):
        out += [bounds.get(i, ""), "\\" + c if c in (MARK_START, MARK_END) else c]
    out.append(bounds.get(len(text), ""))
    return "".join(out)


#: In an :func:`escaped` string: a backslash then a match (a ``\\«`` followed by a match's characters and its
#: unescaped ``»``: the text's own ``«`` could be followed by no unescaped ``»`` there, which ends a match), a
#: guillemet of the text, or a marker.
_ESCAPED = re.compile("\\\\\u00ab([^\\\\\u00ab\u00bb]+)\u00bb|\\\\([\u00ab\u00bb])|([\u00ab\u00bb])")


def unescaped(s: str) -> tuple[str, list[list[int]]]:
    """``(text, spans)`` of an :func:`escaped` string: its inverse."""
    text: list[str] = []
    spans: list[list[int]] = []
    n = at = 0
    for m in _ESCAPED.finditer(s):
        text.append(s[at:m.start()])
        n += m.start() - at
        at = m.end()
        if m.group(1) is not None:  # the text's backslash, then a match
            text += ["\\", m.group(1)]
            spans.append([n + 1, n + 1 + len(m.group(1))])
            n += 1 + len(m.group(1))
        elif m.group(2) is not None:
            text.append(m.group(2))
            n += 1
        elif m.group(3) == MARK_START:
            spans.append([n, n])
        elif spans:
            spans[-1][1] = n
    text.append(s[at:])
    return "".join(text), spans


def one_line(text: str, spans: list[list[int]]) -> tuple[str, list[list[int]]]:
    """``(text, spans)`` with each run of whitespace made one space and the ends stripped, the spans moved with it (a
    snippet printed on one terminal line); a span left empty is dropped."""
    out: list[str] = []
    new: list[list[int]] = []
    starts = {a for a, _ in spans}
    ends = {b for _, b in spans}
    space = opening = False
    live: list[int] | None = None
    for i, c in enumerate(text):
        if i in ends:
            if live is not None:
                live[1] = len(out)
            live, opening = None, False
        opening = opening or i in starts
        if c.isspace():
            space = True
            continue
        if space and out:
            out.append(" ")
        if opening:
            live = [len(out), len(out)]
            new.append(live)
        out.append(c)
        space = opening = False
    if len(text) in ends and live is not None:
        live[1] = len(out)
    return "".join(out), [s for s in new if s[1] > s[0]]


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK character (:data:`CJK_CLASS`)."""
    return _HAS_CJK.search(text) is not None


#: A CJK query's snippet (:func:`cjk_window`): this many characters in all, this many of them before the first match.
CJK_WINDOW, CJK_BEFORE = 64, 16


def cjk_window(text: str, spans: list[list[int]]) -> tuple[str, list[list[int]]]:
    """``(text, spans)`` cut to about :data:`CJK_WINDOW` characters from :data:`CJK_BEFORE` before the first span
    (:func:`cut_window`)."""
    return cut_window(text, spans, CJK_WINDOW, CJK_BEFORE)


def cut_window(text: str, spans: list[list[int]], size: int, before: int, *, before_text: bool = False,
               after_text: bool = False, words: bool = False) -> tuple[str, list[list[int]]]:
    """``(text, spans)`` cut to about ``size`` characters from ``before`` characters before the first span, each span
    in it whole (a match is never cut), ``…`` where text was cut off; the spans moved with it. ``before_text`` /
    ``after_text``: ``text`` is itself a piece of a longer text (``…`` at that end whether or not it is cut here);
    ``words``: an end is moved to whitespace when one stands between it and the spans kept (no word cut in two)."""
    if len(text) <= size:
        start, end = 0, len(text)
    else:
        first = spans[0][0] if spans else 0
        start = max(0, min(first - before, len(text) - size))
        end = start + size
        for a, b in spans:
            if a < end < b:
                end = b
        if words:  # the ends moved to whitespace where one stands between them and the matches kept
            kept = [s for s in spans if start <= s[0] and s[1] <= end]
            lo, hi = (kept[0][0], kept[-1][1]) if kept else (end, start)
            cut = [i for i in range(start, min(lo, len(text))) if text[i].isspace()]
            start = cut[0] + 1 if start and cut and not text[start - 1].isspace() else start
            cut = [i for i in range(max(hi, start), end) if text[i].isspace()]
            end = cut[-1] if end < len(text) and cut and not text[end].isspace() else end
    head = "\u2026" if start or before_text else ""
    tail = "\u2026" if end < len(text) or after_text else ""
    shift = len(head) - start
    return head + text[start:end] + tail, [[a + shift, b + shift] for a, b in spans if start <= a and b <= end]


#: Kinds a hit can have (``--kind``), in the order :mod:`asz_core.reading.search`'s docstring lists them.
KINDS = ("prompt", "reply", "text", "context", "summary", "notice", "thinking", "tool_input", "tool_result", "label",
         "undescribed")


def iter_kinds(text: str) -> Iterator[str]:
    """The kinds a ``--kind`` value names (a comma list of :data:`KINDS`). Raises ValueError for another name."""
    for k in (x.strip() for x in text.split(",")):
        if not k:
            continue
        if k not in KINDS:
            raise ValueError(f"{k!r} is not a kind (known: {', '.join(KINDS)})")
        yield k


class QueryError(ValueError):
    """A query with nothing to search for."""


def fts_query(text: str) -> str:
    """The FTS5 MATCH expression for a person's query (:func:`parse_query`): its groups joined by AND, a group's
    alternatives by OR, then ``NOT`` each term left out. Raises :class:`QueryError` when it holds no word to find
    (a query of -words alone has none) or an ``OR`` is misplaced."""
    groups, left_out = parse_query(text)
    if not groups:
        raise QueryError(f"nothing to search for in {text!r}: give a word, a \"phrase\" or a prefix*"
                         + (" (a -word only leaves out texts holding it)" if left_out else f"; {NOT_INDEXED}"))
    return _expression(groups, left_out)


def kept_query(text: str) -> str:
    """:func:`fts_query` of ``text`` without what it leaves out: the texts its other words match (what
    :func:`exclusions` are counted against). Raises :class:`QueryError` as :func:`fts_query` does."""
    fts_query(text)
    return _expression(parse_query(text)[0], [])


def _expression(groups: list[list[list[str]]], left_out: list[str]) -> str:
    """The FTS5 expression of :func:`parse_query`'s ``groups`` and ``left_out``."""

    if all(len(g) == 1 for g in groups) and not left_out:
        return " ".join(t for g in groups for t in g[0])  # words alone: FTS5's implicit AND, as before OR and -word

    def alt(terms: list[str]) -> str:
        return terms[0] if len(terms) == 1 else "(" + " AND ".join(terms) + ")"

    expr = " AND ".join(" AND ".join(g[0]) if len(g) == 1 else "(" + " OR ".join(map(alt, g)) + ")" for g in groups)
    return f"({expr})" + "".join(f" NOT {t}" for t in left_out) if left_out else expr
