"""Cost by kind of token and the costliest talks (trial 19, F9: "why did it cost that much" needed hand arithmetic).

Every expected figure is worked here from the corpus's source ``.jsonl`` files (one usage per model call: the last
assistant line of each message id and request id that carries usage, as ccusage counts them) at Anthropic's
published rates (platform.claude.com/docs/en/about-claude/pricing: input, output, 5-minute cache writes 1.25x
input, 1-hour cache writes 2x input, cache reads 0.1x input), never from asz's code. The corpus holds no call above
200K input tokens (tests/view/test_long_context_prices.py), so no long-context rate applies.
"""

from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from pathlib import Path

from cli_helpers import asz_in_process as asz
from test_view_prices import PUBLISHED  # the published page's rates: input, 5m and 1h cache writes, cache read, output

KINDS = ("in", "out", "cache_write_5m", "cache_write_1h", "cache_read")
NAMES = ("input", "output", "cache write 5m", "cache write 1h", "cache read")
SPOTTER = "8463c716-a2ea-4c14-9efa-87158ebd9f20"


def _calls(path: Path) -> dict[tuple, tuple[str, dict]]:
    """(message id, request id) -> (model, usage) of each model call of one transcript, its last usage line."""
    out: dict = {}
    for raw in path.read_bytes().splitlines():
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        m = d.get("message") if isinstance(d, dict) else None
        if d.get("type") == "assistant" and isinstance(m, dict) and isinstance(m.get("usage"), dict) and m.get("model") != "<synthetic>":
            out[(m.get("id"), d.get("requestId"))] = (m["model"], m["usage"])
    return out


def _cost(calls) -> dict[str, Decimal]:
    """USD by kind of ``calls`` at the published rates."""
    out = dict.fromkeys(KINDS, Decimal(0))
    for model, u in calls:
        inp, cw, cw1h, cr, out_ = PUBLISHED[re.sub(r"-\d{8}$", "", model)]
        rates = (inp, out_, cw, cw1h, cr)
        writes = u.get("cache_creation_input_tokens", 0)
        hour = min((u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens", 0), writes)
        tokens = (u.get("input_tokens", 0), u.get("output_tokens", 0), writes - hour, hour, u.get("cache_read_input_tokens", 0))
        for k, rate, n in zip(KINDS, rates, tokens):
            out[k] += Decimal(rate) * n / 1_000_000
    return out


def _printed(line: str) -> dict[str, Decimal]:
    """``cache read $7.98 (68%)`` … of a printed cost-by-kind line, by kind."""
    return {k: Decimal(re.search(rf"{name} \$([\d,.]+)", line).group(1).replace(",", "")) for k, name in zip(KINDS, NAMES)}


def test_usage_breakdown_gives_the_cost_of_each_kind_of_token(corpus):
    corpus_source, corpus_root = corpus
    calls = [c for p in sorted(corpus_source.rglob("*.jsonl")) for c in _calls(p).values()]
    exact = _cost(calls)
    total = sum(exact.values())
    got = json.loads(asz("usage", "model", "--breakdown", "--json", "--root", str(corpus_root)).stdout)
    kinds = got[0]["total"]["cost_by_kind"]
    assert all(abs(Decimal(str(kinds[k])) - exact[k]) <= Decimal("0.000001") for k in KINDS), (kinds, exact)
    assert round(sum(Decimal(str(v)) for v in kinds.values()), 6) == round(total, 6) == Decimal(str(got[0]["total"]["cost"]["usd"]))
    for row in got:  # each row's kinds add up to its cost to the micro-dollar
        assert round(sum(Decimal(str(v)) for v in row["cost_by_kind"].values()), 6) == Decimal(str(row["cost"]["usd"]))
    table = asz("usage", "model", "--breakdown", "--root", str(corpus_root)).stdout.splitlines()
    (line,) = [x for x in table if "total cost by kind:" in x]
    printed = _printed(line)
    assert all(abs(printed[k] - exact[k]) < Decimal("0.01") for k in KINDS), (printed, exact)
    (row,) = [x for x in table if x.startswith("total ")]
    assert f"${sum(printed.values()):,.2f}" == row.split()[-1]  # to the cent, as printed
    assert "cache read $15.51 (55%)" in line  # 33.4 M cache-read tokens are more than half of the $28.00


def test_conversation_says_what_each_kind_and_each_talk_cost(corpus):
    """The trial's example: 8463c716 cost $11.66, 15.9 M of its tokens cache reads at Opus 4.6's $0.50 per million."""
    corpus_source, corpus_root = corpus
    folder = corpus_source / "-home-user-spotter"
    files = {"main": folder / f"{SPOTTER}.jsonl", **{p.stem[len("agent-"):]: p for p in (folder / SPOTTER / "subagents").glob("agent-*.jsonl")}}
    by_file = {name: _cost(_calls(p).values()) for name, p in files.items()}
    exact = {k: sum(c[k] for c in by_file.values()) for k in KINDS}
    out = asz("conversation", SPOTTER[:8], "--root", str(corpus_root), "--tz", "UTC").stdout.splitlines()
    (cost,) = [x for x in out if x.startswith("cost $")]
    (line,) = [x for x in out if x.startswith("cost by kind: ")]
    printed = _printed(line)
    assert all(abs(printed[k] - exact[k]) < Decimal("0.01") for k in KINDS), (printed, exact)
    assert f"cost ${sum(printed.values()):,.2f}" == cost == "cost $11.66"
    assert "cache read $7.98 (68%)" in line
    # the talks: the main stream's one prompt and the two sub-agents' streams, each the cost of its own file's calls
    at = out.index(next(x for x in out if x.startswith("costliest talks: 3 of 3")))
    talks = out[at + 1:at + 4]
    for talk, (name, c) in zip(talks, sorted(by_file.items(), key=lambda kv: -sum(kv[1].values()))):
        assert f"stream {name} " in talk and f"{len(_calls(files[name])):,} call(s)" in talk
        # its exact cost rounded once, on its own (trial 32a F8: apportioned cents read equal talks unequal)
        assert Decimal(re.match(r"  \$([\d.]+)", talk).group(1)) == sum(c.values()).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
        # its share of the exact cost (trial 27a F3): a7be2f0's $0.06 is 0.49 % of $11.66, not the 1 % of its cents
        share = _said(100 * sum(c.values()) / sum(exact.values()))
        assert re.match(rf"  \$[\d.]+{re.escape(share)}, ", talk), (talk, share)
    assert abs(sum(Decimal(re.match(r"  \$([\d.]+)", t).group(1)) for t in talks) - Decimal("11.66")) <= Decimal("0.02")
    # a sub-agent's talk is named by what its parent's Task asked (its description in the main transcript), as an
    # export's heading names it (trial 25a)
    asked = {d["input"]["description"] for raw in files["main"].read_bytes().splitlines()
             for d in (json.loads(raw).get("message") or {}).get("content") or () if isinstance(d, dict)
             and d.get("type") == "tool_use" and d.get("name") == "Task"}
    (explore,) = [t for t in talks if "stream a7be2f0 " in t]
    assert asked == {"Explore Tmux module and test setup"} and explore.endswith(" UTC: Subagent: Explore Tmux module and test setup")


def test_costliest_talks_give_each_talk_its_own_time_not_an_injected_records(corpus):
    """Trial 25b F4: fe869ecb's second prompt ("Wait, does it only run on main?", its line 48) was typed at 23:52 UTC;
    the talk also holds line 109, an ``isMeta`` caveat Claude Code wrote later with the older time 23:42. The line
    names the talk by its prompt's time, as the export's heading does, read here from the source file."""
    corpus_source, corpus_root = corpus
    path = next(corpus_source.rglob("fe869ecb-*.jsonl"))
    prompts = {}
    for raw in path.read_bytes().splitlines():
        d = json.loads(raw)
        content = (d.get("message") or {}).get("content")
        if d.get("type") == "user" and isinstance(content, str) and not d.get("isMeta") and not content.startswith("<"):
            prompts[content[:30]] = d["timestamp"][:16].replace("T", " ")
    assert len(prompts) == 2 and "2025-06-14 23:52" in prompts.values()
    out = asz("conversation", "fe869ecb", "--root", str(corpus_root), "--tz", "UTC").stdout.splitlines()
    at = out.index(next(x for x in out if x.startswith("costliest talks: 2 of 2")))
    for line in out[at + 1:at + 3]:
        label = line.split(" UTC: ", 1)[1]
        (when,) = [t for p, t in prompts.items() if label.startswith(p)]
        assert f"stream main from {when} UTC: " in line, (line, when)


def _shares(exact: dict[str, Decimal]) -> dict[str, Decimal]:
    """Each kind's percent of the exact total."""
    total = sum(exact.values())
    return {k: 100 * v / total for k, v in exact.items()}


def _said(share: Decimal) -> str:
    """How a printed line gives a share: `` (38%)`` (a whole percent, half up), `` (<1%)`` below half a percent,
    nothing for none."""
    whole = share.quantize(Decimal(1), ROUND_HALF_UP)
    return "" if not share else f" ({whole:.0f}%)" if share >= Decimal("0.5") else " (<1%)"


def test_shares_are_of_the_exact_amounts_not_of_the_cents(corpus):
    """Trial 27a F3: the shares were worked from amounts rounded to the cent, so a $0.06 conversation read ``cache write
    5m $0.02 (33%) … cache read $0.04 (67%)`` and a $0.14 one ``cache write 1h $0.14 (100%)`` with its cache reads at no
    share. de3b8b19 (4 Opus 4.5 calls) and 55604662 (1 Opus 4.6 call), worked from their transcripts at the published
    rates: cache writes 37.9 % and cache reads 60.8 %; 1-hour cache writes 95.8 % and cache reads 4.0 %."""
    corpus_source, corpus_root = corpus
    got = {r["conversation"][:8]: r for r in
           json.loads(asz("usage", "session", "--breakdown", "--json", "--root", str(corpus_root)).stdout)}
    table = asz("usage", "session", "--breakdown", "--root", str(corpus_root)).stdout.splitlines()
    for sid, cents in (("de3b8b19", "$0.06"), ("55604662", "$0.14")):
        (path,) = corpus_source.rglob(f"{sid}-*.jsonl")
        share = _shares(_cost(_calls(path).values()))
        assert all(abs(Decimal(str(got[sid]["cost_share_by_kind"][k])) - share[k]) <= Decimal("0.005") for k in KINDS), \
            (got[sid]["cost_share_by_kind"], share)
        assert f"${got[sid]['cost']['usd']:.2f}" == cents
        # the text line under the conversation's row: the line after its model rows
        at = next(i for i, x in enumerate(table) if x.startswith(sid))
        (line,) = [x for x in table[at + 1:] if "cost by kind: " in x][:1]
        for k, name in zip(KINDS, NAMES):
            # $N.NN, or <$0.01 above nothing below half a cent (trial 32a F8)
            assert re.search(rf"{name} (\$[\d.]+|<\$0\.01){re.escape(_said(share[k]))}(,|$)", line), (name, share[k], line)
        out = asz("conversation", sid, "--root", str(corpus_root)).stdout.splitlines()
        (kinds,) = [x for x in out if x.startswith("cost by kind: ")]
        assert kinds == "cost by kind: " + line.split("cost by kind: ", 1)[1]
    shares = got["de3b8b19"]["cost_share_by_kind"]
    assert round(shares["cache_write_5m"]) == 38 and round(shares["cache_read"]) == 61  # not 33 % and 67 %
    assert round(got["55604662"]["cost_share_by_kind"]["cache_read"]) == 4  # not left out at $0.00
    # the costliest talks' shares too: 55604662's one talk is the whole cost
    out = asz("conversation", "55604662", "--root", str(corpus_root)).stdout.splitlines()
    at = out.index(next(x for x in out if x.startswith("costliest talks: ")))
    assert out[at + 1].startswith("  $0.14 (100%), 1 call(s), ")


def test_a_share_of_half_a_percent_reads_one_percent_not_none():
    """A kind that is 1 of 200 parts of a cost is 0.5 % of it, and one of 199 parts 99.5 %: the docs' rule, ``(<1%)``
    only below half a percent, reads them ``(1%)`` and ``(100%)``. Rounding half to even gave ``(0%)`` for a share
    there is. Worked through the one rule the lines use (``prices.shares``, then ``cost_kinds.share_text``)."""
    from asz_core.reading.cost_kinds import share_text
    from asz_core.view.prices import shares

    got = shares({"cache_read": Decimal("0.01"), "in": Decimal("1.99")})
    assert got == {"cache_read": 0.5, "in": 99.5}  # 1 / 200 and 199 / 200, in percent
    assert [share_text(got["cache_read"]), share_text(got["in"])] == [" (1%)", " (100%)"]
    assert [share_text(0.49), share_text(2.5), share_text(0.0)] == [" (<1%)", " (3%)", ""]
