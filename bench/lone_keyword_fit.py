"""Chooses how many content words no tool holds make a hit's one word a
"lone keyword" (optimclaw's search/strength.rs), leaving each dev catalog out
in turn.

Input: the JSON lines `catalogs` writes with CATALOG_SIGNALS=FILE (one per
request: its catalog, whether it needs a tool, the top hits' signals with
matched_words, unmatched_words and name_match). A top hit is a lone keyword
when it holds at most one word of the request, none of its name's words,
and at least K content words of the request are held by no tool; such a hit
is not strong.

For each catalog left out, K is the smallest count that adds no false
"no match" (a request that has a tool answered "no match") on any of the
other catalogs; the catalog left out is then judged at that K. The table
before it shows every catalog at every K (false no-match % / no-match
detected %), at the shipped threshold.

Usage: python3 bench/lone_keyword_fit.py SIGNALS.jsonl [THRESHOLD]
"""

import json
import sys

THRESHOLD = float(sys.argv[2]) if len(sys.argv) > 2 else 0.12
KS = list(range(2, 11)) + [None]


def lone(hit, k):
    return (
        k is not None
        and hit["matched_words"] <= 1
        and hit["name_match"] == 0
        and hit["unmatched_words"] >= k
    )


def stats(records, k, catalog):
    """False no-match (count, %) and no-match detected (count, %)."""
    tool = false = none = detected = 0
    for r in records:
        if r["set"] != catalog:
            continue
        hit = r["hits"][0] if r["hits"] else None
        strong = hit is not None and hit["strength"] >= THRESHOLD and not lone(hit, k)
        if r["kind"] == "tool":
            tool += 1
            false += not strong
        else:
            none += 1
            detected += not strong
    return false, 100 * false / max(tool, 1), detected, 100 * detected / max(none, 1)


def main():
    records = [json.loads(line) for line in open(sys.argv[1])]
    catalogs = list(dict.fromkeys(r["set"] for r in records))
    label = lambda k: "off" if k is None else str(k)
    print("| catalog | " + " | ".join(f"K={label(k)}" for k in KS) + " |")
    print("|---|" + "---|" * len(KS))
    for c in catalogs:
        cells = [stats(records, k, c) for k in KS]
        print(f"| {c} | " + " | ".join(f"{s[1]:.1f} / {s[3]:.0f}" for s in cells) + " |")
    print()
    print("| left out | K chosen on the others | false no-match | no-match detected |")
    print("|---|---|---|---|")
    for c in catalogs:
        others = [o for o in catalogs if o != c]
        k = next(
            k
            for k in KS
            if all(stats(records, k, o)[0] == stats(records, None, o)[0] for o in others)
        )
        _, false, _, detected = stats(records, k, c)
        _, false0, _, detected0 = stats(records, None, c)
        print(
            f"| {c} | {label(k)} | {false0:.1f} % → {false:.1f} % | {detected0:.1f} % → {detected:.1f} % |"
        )


if __name__ == "__main__":
    main()
