"""``/api/search`` says how many hits the whole query matches and pages on past its 500-hit answer (trial 36a F3: it
returned 500 hits and said nothing of the rest; ``offset`` was a 400). The plain list says it in the headers
``X-Asz-Total`` and ``X-Asz-Next``; with ``held_back=1`` the answer has ``total``, ``total_capped``, ``offset``,
``limit`` and ``next``. Following ``next`` gives every hit once (docs/view.md, ``/api/search``).

Real input: ../shared/corpus/claude-code/projects collected and parsed by the real ``asz collect`` (tests/conftest.py);
a real ``asz view`` on loopback. The premise is counted straight from the JSONL (tests/corpus_words.py): more than 500
message texts hold ``the`` as a word (838; the index also reads the runtime's notices, attachments and summaries, so
its count is a few more); the total is held to the hits ``asz search --json`` prints for the same query in one answer
(a separate run of the command, with no page).
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from corpus_words import message_words

from view_server_helpers import asz

WORD = "the"


def _key(hit: dict) -> tuple:
    return hit["file"], hit["row"], hit["step"], hit["kind"], hit["snippet_text"]


def test_search_pages_past_500_and_says_the_total(corpus_dir, corpus_root, serve):
    texts = sum(1 for words in message_words(corpus_dir / "claude-code" / "projects") if WORD in words)
    assert texts > 500  # the premise: more than one answer holds
    s = serve(corpus_root)
    import json

    want = len(json.loads(asz("search", WORD, "--json", "--limit", "5000", "--root", str(corpus_root)).stdout))
    assert want >= texts
    first = s.get(f"/api/search?q={WORD}&limit=500")
    assert first.status == 200 and len(first.json()) == 500
    assert first.headers["x-asz-total"] == str(want)  # said, not cut silently
    nxt = first.headers["x-asz-next"]
    assert dict(parse_qsl(urlsplit(nxt).query)) == {"q": WORD, "limit": "500", "offset": "500"}
    hits = first.json()
    while nxt:
        r = s.get(nxt)
        assert r.status == 200 and r.headers["x-asz-total"] == str(want)
        hits += r.json()
        nxt = r.headers.get("x-asz-next")
    assert len(hits) == want and len({_key(h) for h in hits}) == want  # every hit, each once

    # held_back=1: the same in keys; small pages walk the same hits in the same order
    got, page = [], s.get(f"/api/search?q={WORD}&limit=200&held_back=1").json()
    assert (page["total"], page["total_capped"], page["offset"], page["limit"]) == (want, False, 0, 200)
    while True:
        got += page["hits"]
        if not page["next"]:
            break
        page = s.get(page["next"]).json()
    assert [_key(h) for h in got] == [_key(h) for h in hits]
    assert page["offset"] == 200 * (len(got) // 200 if len(got) % 200 else len(got) // 200 - 1)

    # by conversation: the total is the conversations, and a page past them is empty with no next
    convs = s.get(f"/api/search?q={WORD}&conversations=1&limit=3&held_back=1").json()
    assert convs["total"] >= len(convs["hits"]) == 3 and convs["next"]
    rest = s.get(convs["next"]).json()
    assert not {c["conversation"] for c in rest["hits"]} & {c["conversation"] for c in convs["hits"]}
    last = s.get(f"/api/search?q={WORD}&conversations=1&limit=3&held_back=1&offset={convs['total']}").json()
    assert last["hits"] == [] and last["next"] is None
    assert s.get(f"/api/search?q={WORD}&offset=10001").json()["code"] == "bad_parameter"
