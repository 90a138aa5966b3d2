"""Chooses when a hit's one word is a "lone keyword" (optimclaw's
search/strength.rs): how many words no tool holds must stand beside it,
choosing on every dev catalog and then leaving each one out in turn.

Input: the JSON lines `catalogs` writes with CATALOG_SIGNALS=FILE (one per
request: its catalog, whether it needs a tool, the top hits' signals). Each
hit carries `weighted` (its strength before any lone-keyword rule),
`matched_words`, `name_match`, `unmatched_words` (content words no tool
holds) and `unmatched_asking` (those of them that are no data: no name,
number, quoted text or path).

A rule is (FIELD, A, B): a top hit holding at most one word of the request
is a lone keyword when FIELD >= A, or when FIELD >= B and the word is not
in the hit's name. A lone keyword is not strong. The rule chosen on a set of
catalogs is the one that detects the most requests needing no tool, on
average over them, while no catalog among them calls more than 5 % of its
requests for a tool "no match" (or more than it did with no rule, where
that was already over 5 %).

Printed: the rule chosen on all catalogs, each catalog at no rule, at the
rule shipped before (content words, B = 4, never with a name word) and at
the chosen one; then each catalog left out, judged at the rule chosen on
the others.

Usage: python3 bench/lone_keyword_fit.py SIGNALS.jsonl [THRESHOLD]
"""

import json
import sys

THRESHOLD = float(sys.argv[2]) if len(sys.argv) > 2 else 0.12
NEVER = 10**9
COUNTS = list(range(1, 11)) + [NEVER]
FIELDS = ["unmatched_words", "unmatched_asking"]
RULES = [(f, a, b) for f in FIELDS for a in COUNTS for b in COUNTS if b <= a]
BEFORE = ("unmatched_words", NEVER, 4)
FALSE_LIMIT = 5.0


def lone(hit, rule):
    if rule is None:
        return False
    field, with_name, off_name = rule
    return hit["matched_words"] <= 1 and (
        hit[field] >= with_name or (hit["name_match"] == 0 and hit[field] >= off_name)
    )


def stats(records, catalog, rule):
    """(False no-match %, no-match detected %) on one catalog."""
    tool = false = none = detected = 0
    for r in records:
        if r["set"] != catalog:
            continue
        hit = r["hits"][0] if r["hits"] else None
        strong = hit is not None and hit["weighted"] >= THRESHOLD and not lone(hit, rule)
        if r["kind"] == "tool":
            tool += 1
            false += not strong
        else:
            none += 1
            detected += not strong
    return 100 * false / max(tool, 1), 100 * detected / max(none, 1)


def choose(records, catalogs):
    cache = {}

    def at(c, rule):
        if (c, rule) not in cache:
            cache[(c, rule)] = stats(records, c, rule)
        return cache[(c, rule)]

    best = None
    for rule in RULES:
        if all(at(c, rule)[0] <= max(FALSE_LIMIT, at(c, None)[0]) for c in catalogs):
            mean = sum(at(c, rule)[1] for c in catalogs) / len(catalogs)
            if best is None or mean > best[0] + 1e-9:
                best = (mean, rule)
    return best[1]


def label(rule):
    field, a, b = rule
    count = lambda n: "never" if n == NEVER else str(n)
    return f"{field} A={count(a)} B={count(b)}"


def main():
    records = [json.loads(line) for line in open(sys.argv[1])]
    catalogs = list(dict.fromkeys(r["set"] for r in records))
    chosen = choose(records, catalogs)
    print(f"chosen on every catalog: {label(chosen)}")
    print()
    print("| catalog | no rule | before | chosen |")
    print("|---|---|---|---|")
    for c in catalogs:
        cells = [stats(records, c, rule) for rule in (None, BEFORE, chosen)]
        print(f"| {c} | " + " | ".join(f"{f:.1f} % / {d:.1f} %" for f, d in cells) + " |")
    print()
    print("| left out | chosen on the others | false no-match | no-match detected |")
    print("|---|---|---|---|")
    for c in catalogs:
        rule = choose(records, [o for o in catalogs if o != c])
        false0, detected0 = stats(records, c, None)
        false, detected = stats(records, c, rule)
        print(
            f"| {c} | {label(rule)} | {false0:.1f} % → {false:.1f} % "
            f"| {detected0:.1f} % → {detected:.1f} % |"
        )


if __name__ == "__main__":
    main()
