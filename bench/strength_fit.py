"""Chooses how tool_info's match strength combines a hit's signals, on every
dev catalog at once (bench/data/dev/sets.json).

Input: the JSON lines `catalogs` writes with CATALOG_SIGNALS=FILE (one per
request: its catalog, whether it needs a tool, the top hits' signals).
For each combination of weights on a grid, "no match" is said when the top
hit's combined strength is below a threshold; the threshold is the highest
whose false "no match" (requests that have a tool) stays within the limit
on EVERY catalog, and the combination kept is the one that then detects the
most requests needing no tool, averaged over catalogs.

With --leave-one-out, each catalog in turn is left out of the fit and the
weights and threshold fitted on the others are judged on it: what a
catalog nobody tuned on can expect. With --weights=A,B,C,D,E (in the order
of NAMES) those weights are judged the same way instead of fitted: each
catalog at the threshold the others allow.

Usage: python3 bench/strength_fit.py SIGNALS.jsonl [MAX_FALSE_PERCENT]
       [--leave-one-out] [--weights=0.25,0.5,0.1,0.1,0.05]
"""

import itertools
import json
import math
import sys
from collections import defaultdict

NAMES = (
    "coverage",
    "coverage x min(ln margin, 1)",
    "share x min(ln margin, 1)",
    "min(evidence / 2, 1)",
    "name_match",
)

GRID = [0.0, 0.1, 0.2, 0.35, 0.5, 1.0]


def features(hit):
    margin = min(math.log(max(hit["margin"], 1.0)), 1.0)
    return (
        hit["coverage_all"],
        hit["coverage_all"] * margin,
        hit["share"] * margin,
        min(hit["evidence"] / 2.0, 1.0),
        hit["name_match"],
    )


def combine(w, f):
    return -1.0 if f is None else sum(a * b for a, b in zip(w, f))


def threshold_for(w, by_set, sets, limit):
    """The highest threshold with false no-match within the limit on every
    catalog: per catalog, the limit-quantile of its present requests'
    scores; the smallest of them. Requests without any hit are "no match"
    at every threshold: they use up the catalog's allowance first."""
    threshold = math.inf
    for s in sets:
        present = sorted(combine(w, f) for f in by_set[s][0] if f is not None)
        without = len(by_set[s][0]) - len(present)
        allowed = max(int(limit * len(by_set[s][0])) - without, 0)
        threshold = min(threshold, present[allowed] if allowed < len(present) else math.inf)
    return threshold


def rates(w, threshold, by_set, s):
    present, none = by_set[s]
    false = sum(combine(w, f) < threshold for f in present) / max(len(present), 1)
    detected = sum(combine(w, f) < threshold for f in none) / max(len(none), 1)
    return false, detected


def fit(by_set, sets, limit):
    best = None
    for w in itertools.product(GRID, repeat=len(NAMES)):
        total = sum(w)
        if total == 0:
            continue
        w = tuple(x / total for x in w)
        threshold = threshold_for(w, by_set, sets, limit)
        if math.isinf(threshold):
            continue
        detection = [rates(w, threshold, by_set, s)[1] for s in sets if by_set[s][1]]
        mean = sum(detection) / len(detection)
        if best is None or mean > best[0]:
            best = (mean, w, threshold)
    return best


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    leave_one_out = "--leave-one-out" in sys.argv
    given = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--weights=")), None)
    given = tuple(float(x) for x in given.split(",")) if given else None
    path = args[0]
    limit = float(args[1]) / 100 if len(args) > 1 else 0.05
    rows = [json.loads(line) for line in open(path) if line.strip()]
    by_set = defaultdict(lambda: ([], []))  # (tool, none) features of top hit
    for r in rows:
        top = features(r["hits"][0]) if r["hits"] else None
        by_set[r["set"]][0 if r["kind"] == "tool" else 1].append(top)
    sets = sorted(by_set)
    if leave_one_out:
        print("left out | fitted threshold | false no_match | detected")
        for out in sets:
            others = [s for s in sets if s != out]
            if given:
                w, threshold = given, threshold_for(given, by_set, others, limit)
            else:
                _, w, threshold = fit(by_set, others, limit)
            false, detected = rates(w, threshold, by_set, out)
            print(f"{out} | {threshold:.4f} | {100 * false:.1f} % | {100 * detected:.1f} %")
        return
    mean, w, threshold = fit(by_set, sets, limit)
    print("weights:", ", ".join(f"{n} {x:.3f}" for n, x in zip(NAMES, w)))
    print(f"threshold {threshold:.4f}: mean detection {100 * mean:.1f} %")
    for s in sets:
        false, detected = rates(w, threshold, by_set, s)
        print(
            f"  {s}: false no_match {100 * false:.1f} % of {len(by_set[s][0])},"
            f" detected {100 * detected:.1f} % of {len(by_set[s][1])}"
        )


if __name__ == "__main__":
    main()
