"""What a Markdown export's texts hold that a Markdown viewer would run or fetch: escaped, never removed, and said at
the file's top (trial 34c F10: a hostile transcript's ``<script>``, ``<iframe>``, ``[x](javascript:…)`` and
``![](http://tracker)`` were written as the transcript holds them, and a previewer that renders raw HTML or loads
remote images ran the script or fetched the pixel).

Render 9 (fix36c): each block holding such a place, found by markdown-it-py read as a permissive viewer reads (raw
HTML on, every link scheme kept; code, fenced or inline, is what the viewer shows as code), is written with a
backslash before each ``<`` that opens HTML and each ``[`` (:func:`neutralised`): the viewer shows the characters, the
text stays evidence (``asz verify --export`` holds it to the landed texts), and the file says once, under its title,
how many places of which kinds it held (:func:`warned`). Render 10 (fix37b): such a block's code spans are left as they are (a viewer shows a code span's backslash:
render 9 wrote ```a\\<b``` for a typed ```a<b```), and the line counts only the raw HTML that can act (:func:`_acts`),
not a placeholder or a runtime's markup tag (``<number>``, ``<task-id>``), escaped all the same so it shows; a
copy of render 9 is drawn again as it was. A copy of render 4 to 8 is drawn again as it was: the places
as written, counted outside code (:func:`rendered_text`, :func:`active_places`), and the warning that a viewer runs
them.
"""

from __future__ import annotations

import re

__all__ = ["ACTIVE", "WARNING_HEAD", "active_places", "inert", "neutralised", "rendered_text", "warned"]

#: Each kind of place a Markdown viewer may run or fetch, and how it is found: a raw HTML element that runs, embeds,
#: fetches or posts (``<script``, ``<iframe``, ``<img``, ``<svg``, ``<object``, ``<embed``, ``<form``, ``<a``, …), a link
#: or reference definition to a ``javascript:``, ``vbscript:``, ``data:`` or ``file:`` URI, an image from elsewhere.
ACTIVE = (
    ("raw HTML", re.compile(r"<\s*(?:script|iframe|frame|img|svg|object|embed|form|a|style|link|meta|base|video|audio"
                            r"|math|input|button)\b", re.I)),
    ("script or data link", re.compile(r"\]\(\s*<?\s*(?:javascript|vbscript|data|file):|^ {0,3}\[[^\]\n]+\]:\s*<?\s*"
                                       r"(?:javascript|vbscript|data|file):", re.I | re.M)),
    ("remote image", re.compile(r"!\[[^\]\n]*\]\(\s*<?\s*(?:https?:)?//", re.I)),
)
#: How the warning line begins (render 4 added it; :mod:`~asz_core.reading.export_render` takes it off again).
WARNING_HEAD = "- **warning: active content:** "


#: A fence's opening or closing line (CommonMark: up to 3 spaces, then 3 or more backticks or tildes).
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
#: An inline code span (its backticks, then anything up to the same run).
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1)[^\n])+?\1")


def rendered_text(md: str) -> str:
    """``md`` without what a viewer shows as code, never as HTML or a link: fenced blocks (the tool inputs and results
    an export fences, a reply's own code) and inline code spans. str in, str out."""
    out, fence = [], ""
    for line in md.split("\n"):
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip().strip(fence[0]):
                fence = ""
            continue
        if m:
            fence = m.group(1)
            continue
        out.append(_CODE_SPAN.sub("", line))
    return "\n".join(out)


def active_places(md: str) -> dict[str, int]:
    """How many places of each :data:`ACTIVE` kind ``md`` holds outside code (:func:`rendered_text`: a fenced tool
    input's ``<form`` is shown as code by every viewer), kinds with none left out, in :data:`ACTIVE`'s order."""
    text = rendered_text(md)
    got = {kind: len(pattern.findall(text)) for kind, pattern in ACTIVE}
    return {k: n for k, n in got.items() if n}


def warned(md: str) -> str:
    """``md`` (a whole Markdown export: ``# title``, a blank line, the head's lines) with each place a viewer would run
    or fetch from escaped (:func:`neutralised`, render 9) and, when it held any, one line after the title's blank
    line: ``- **warning: active content:** this file's texts hold raw HTML 3, script or data link 2, remote image 1,
    each written escaped (a backslash before its `<` or `[`): a Markdown viewer shows it as the text it is and runs
    or fetches nothing``; else ``md`` as it is. A copy of render 4 to 8 is drawn again as it was: the places as the
    transcript holds them, counted by :func:`active_places`, and the line saying a viewer runs them. str in, str out."""
    from .export_render import drawn

    if drawn() >= 9:
        md, places = neutralised(md)
        tail = ("each written escaped (a backslash before its `<` or `[`): a Markdown viewer shows it as the text it is "
                "and runs or fetches nothing")
    else:
        places = active_places(md)
        tail = ("written as the transcript holds them: a viewer that renders raw HTML or loads remote images runs or "
                "fetches them; read it as text, or export it as html (no script, nothing fetched)")
    if not places:
        return md
    title, sep, rest = md.partition("\n\n")
    said = ", ".join(f"{k} {n:,}" for k, n in places.items())
    line = f"{WARNING_HEAD}this file's texts hold {said}, {tail}"
    return f"{title}{sep}{line}\n{rest}" if sep else f"{md}{line}\n"


#: The URI schemes whose link runs or embeds something instead of going to a page (the :data:`ACTIVE` link kind).
_RUNS = frozenset(("javascript", "vbscript", "data", "file"))
#: A destination's scheme, once the characters a browser ignores in it are gone (controls, white space, ``%09``…).
_SCHEME = re.compile(r"([a-z][a-z0-9+.\-]*):", re.I)
_IGNORED = re.compile(r"[\x00-\x20\x7f]|%0[9ad]|%00", re.I)
#: A ``<`` that opens raw HTML or an autolink (a tag, a closing tag, a comment, a declaration, a processing
#: instruction, ``<scheme:…>``), or a ``[`` that opens a link or an image (``![`` is one after ``!``).
_OPENS = re.compile(r"<(?=[A-Za-z/!?])|\[")
#: What a text must hold for a viewer to find raw HTML or a link in it (a quick test before the parse).
_MAY_OPEN = re.compile(r"<[A-Za-z/!?]|\]\(|\]:")


_PARSER: list = []


def _parser():
    """markdown-it-py as a permissive viewer reads Markdown: CommonMark with raw HTML on and tables, every link kept
    whatever its scheme (markdown-it's own check would refuse ``javascript:``, another viewer's may not); made once.
    It reads the blocks only: :func:`_active_lines` reads into spans the inline text that may hold raw HTML, a link or
    an image (:data:`_MAY_SPAN`), the rest has none of them (reading every span was half the parse, session 47)."""
    if not _PARSER:
        from markdown_it import MarkdownIt

        md = MarkdownIt("commonmark", {"html": True, "linkify": False}).enable("table").disable("inline")
        md.validateLink = lambda url: True
        _PARSER.append(md)
    return _PARSER[0]


#: What an inline text holds when a viewer may find raw HTML, an autolink, a link or an image in it: a ``<`` or a
#: ``[`` (a link by reference is ``[`` too); a text with neither is only text and emphasis to it.
_MAY_SPAN = re.compile(r"[<\[]")


def _runs(url: str) -> bool:
    m = _SCHEME.match(_IGNORED.sub("", url))
    return bool(m) and m.group(1).lower() in _RUNS


def _remote(url: str) -> bool:
    url = _IGNORED.sub("", url).lower()
    return url.startswith("//") or bool(_SCHEME.match(url)) and not _runs(url)


def _active_lines(md: str, parser) -> tuple[list[tuple[int, int]], dict[str, int]]:
    """The line ranges (``[start, end)``, 0-based) of the blocks ``md`` holds that a viewer would run or fetch from (a
    raw HTML block; a paragraph, heading, list item's text or table cell holding raw HTML, a link to a
    :data:`_RUNS` URI or an image from elsewhere or of such a URI; a link reference definition to such a URI, which a
    viewer hides), and how many such places of each :data:`ACTIVE` kind: from render 10 a raw HTML place counts only
    when it can act (:func:`_acts`: ``<script>``, ``<a href=…>``, ``<div onclick=…>``), not a placeholder or a runtime's
    markup tag (``<number>``, ``<task-id>``, ``<summary>``), which is escaped all the same, so a viewer shows it."""
    from .export_render import drawn

    old = drawn() < 10
    ranges: list[tuple[int, int]] = []
    places = {kind: 0 for kind, _ in ACTIVE}
    where: list[int] | None = None
    env: dict = {}
    tokens = parser.parse(md, env)
    for ref in (env.get("references") or {}).values():  # a definition a viewer hides and links by: shown, escaped
        if _runs(ref.get("href") or "") and ref.get("map"):
            ranges.append(tuple(ref["map"]))
            places["script or data link"] += 1
    for tok in tokens:
        if tok.map is not None:
            where = tok.map
        if tok.type == "html_block":
            ranges.append(tuple(tok.map))
            places["raw HTML"] += 1 if old or any(_acts(m.group(0)) for m in _TAG.finditer(tok.content)) else 0
        elif tok.type == "inline" and where is not None:
            if not tok.children and _MAY_SPAN.search(tok.content):  # its spans read (the parser reads blocks)
                tok.children = []
                parser.inline.parse(tok.content, parser, env, tok.children)
            hit = 0
            for child in tok.children or ():
                if child.type == "html_inline":  # a tag it opens, not one it closes; from render 10 one that can act
                    places["raw HTML"] += not child.content.startswith("</") and (old or _acts(child.content))
                elif child.type == "link_open" and _runs(child.attrGet("href") or ""):
                    places["script or data link"] += 1
                elif child.type == "image" and _runs(child.attrGet("src") or ""):
                    places["script or data link"] += 1
                elif child.type == "image" and _remote(child.attrGet("src") or ""):
                    places["remote image"] += 1
                else:
                    continue
                hit += 1
            if hit:
                ranges.append(tuple(tok.map or where))
    return ranges, {k: n for k, n in places.items() if n}


def _escaped(line: str) -> str:
    """``line`` with a backslash before each ``<`` that opens raw HTML or an autolink and each ``[`` not already
    escaped (after an even run of backslashes): Markdown shows the character itself, so the text reads as written."""
    out, at = [], 0
    for m in _OPENS.finditer(line):
        i = m.start()
        run = len(line[:i]) - len(line[:i].rstrip("\\"))
        if run % 2 == 0:
            out += [line[at:i], "\\"]
            at = i
    return "".join(out) + line[at:] if out else line


#: The ASCII punctuation a backslash escapes in CommonMark (the backslash shown neither before it nor kept).
_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _code_kept(text: str) -> str:
    """``text`` (one block's lines, no blank line among them) with a backslash before each ``<`` that could open raw HTML
    or an autolink and each ``[``, outside its code spans (render 10): a code span shows every character as it is, a
    backslash too (render 9 wrote ```a\\<b``` there, which a viewer shows with the backslash). The spans are found
    as CommonMark finds them once no ``<`` opens HTML any more (so never inside a tag: a backtick in an attribute is
    text then): a backtick run not escaped opens one, closed by the next run of exactly its length; a run with no
    such closer is text. A character already escaped (after a backslash) is left as it is."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in _PUNCT:
            out.append(text[i:i + 2])
            i += 2
        elif c == "`":
            j = i
            while j < n and text[j] == "`":
                j += 1
            k, close = j, -1
            while (k := text.find("`", k)) >= 0:
                e = k
                while e < n and text[e] == "`":
                    e += 1
                if e - k == j - i:
                    close = e
                    break
                k = e
            out.append(text[i:close if close >= 0 else j])  # the span whole, or the run as text
            i = close if close >= 0 else j
        else:
            opens = c == "[" or c == "<" and i + 1 < n and (text[i + 1] in "/!?" or text[i + 1].isascii() and text[i + 1].isalpha())
            out.append("\\" + c if opens else c)
            i += 1
    return "".join(out)


def _block_escaped(lines: list[str]) -> list[str]:
    """The lines of one block a viewer would run or fetch from, escaped: render 10 by :func:`_code_kept`, each run of
    lines between blank ones apart (a raw HTML block may hold blank lines; once escaped each run is a paragraph, and
    no code span crosses a blank line); render 9 and before by :func:`_escaped`, line by line, code spans too."""
    from .export_render import drawn

    if drawn() < 10:
        return [_escaped(x) for x in lines]
    out: list[str] = []
    run: list[str] = []
    for line in [*lines, None]:
        if line is None or not line.strip():
            out += _code_kept("\n".join(run)).split("\n") if run else []
            out += [] if line is None else [line]
            run = []
        else:
            run.append(line)
    return out


#: A tag CommonMark reads as raw HTML, and its name: an open or closing tag, a comment, a declaration, a processing
#: instruction, CDATA (markdown-it's own pattern).
_TAG = re.compile(r"<(?:/?([A-Za-z][A-Za-z0-9-]*)(?:[^<>\"']|\"[^\"]*\"|'[^']*')*>|!--|!\[CDATA\[|![A-Za-z]|\?)")
#: The elements that run, embed, fetch, post, take input, restyle or navigate even with no attribute of their own.
_ACTING = frozenset("""a applet area audio base body button canvas details dialog embed fieldset form frame frameset head
html iframe image img input isindex keygen link map marquee math meta meter noembed noframes noscript object output
picture portal progress script select slot source style svg template textarea title track video""".split())
#: What follows a tag's name when it carries an attribute (an ``on…`` handler, a ``src``, a ``style``: any).
_ATTRIBUTE = re.compile(r"[\s/]+[^\s/>=]")


def _acts(tag: str) -> bool:
    """Whether raw HTML ``tag`` (one tag as CommonMark reads it, ``<…>``) can act in a viewer that renders it: an
    element of :data:`_ACTING`, or any element carrying an attribute; a comment, declaration or processing
    instruction hides its text and runs nothing, and neither does an unknown element with no attribute (``<number>``,
    ``<task-id>``: a placeholder, a runtime's markup). A closing tag never acts."""
    m = _TAG.match(tag)
    if m is None or m.group(1) is None or tag.startswith("</"):
        return False
    name = m.group(1)
    return name.lower() in _ACTING or bool(_ATTRIBUTE.match(tag, 1 + len(name)))


def inert(value: str) -> str:
    """``value`` (one line a transcript gave: a title or a project in ``index.md``'s table) with a backslash before each
    ``<`` that could open raw HTML or an autolink and each ``[`` (:func:`_escaped`), whatever it holds: a viewer shows
    it as written and runs, embeds or fetches nothing (render 9); from render 10 its code spans left as typed
    (:func:`_code_kept`: a title's ```a<b``` is no ```a\\<b``` in a viewer). str in, str out."""
    from .export_render import drawn

    return _code_kept(value) if drawn() >= 10 else _escaped(value)


def neutralised(md: str) -> tuple[str, dict[str, int]]:
    """``md`` (a Markdown export, or its index) with every place a Markdown viewer would run or fetch from escaped,
    never removed (render 9; trial 34c F10): in each block holding one (:func:`_active_lines`, found by markdown-it-py
    read as a permissive viewer reads, so code, fenced or inline, is what the viewer shows as code), a backslash
    before each ``<`` opening raw HTML or an autolink and each ``[`` (``\\<script>``, ``\\[x](javascript:…)``,
    ``!\\[](http://…)``): the viewer shows the characters as written, and runs, embeds or fetches nothing. Read again
    until none is left (an escaped block can end a raw HTML block that held a fence). Returns the text and how many
    places of each :data:`ACTIVE` kind it held (kinds with none left out). str in."""
    if not _MAY_OPEN.search(md):
        return md, {}
    parser = _parser()
    ranges, places = _active_lines(md, parser)
    for _ in range(20):
        if not ranges:
            return md, places
        lines = md.split("\n")
        for a, b in ranges:
            lines[a:b] = _block_escaped(lines[a:b])
        again = "\n".join(lines)
        if again == md:  # nothing left to escape, yet a viewer finds something: entities hold no markup
            break
        md = again
        ranges = _active_lines(md, parser)[0]
    lines = md.split("\n")
    for a, b in ranges:
        lines[a:b] = [x.replace("<", "&lt;").replace("[", "&#91;") for x in lines[a:b]]
    return "\n".join(lines), places
