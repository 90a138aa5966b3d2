"""Chooses how tool_info's match strength combines a hit's signals, on every
dev catalog at once (bench/data/dev/sets.json).

Input: the JSON lines `catalogs` writes with CATALOG_SIGNALS=FILE (one per
request: its catalog, whether it needs a tool, the top hits' signals).
For each combination of weights on a grid, "no match" is said when the top
hit's combined strength is below a threshold; the threshold is the highest
whose false "no match" (requests that have a tool) stays within the limit
on EVERY catalog, and the combination kept is the one that then detects the
most requests needing no tool, averaged over catalogs.

Usage: python3 bench/strength_fit.py SIGNALS.jsonl [MAX_FALSE_PERCENT]
"""

import itertools
import json
import math
import sys
from collections import defaultdict


def features(hit):
    margin = min(math.log(max(hit["margin"], 1.0)), 1.0)
    return (
        hit["coverage_all"],
        hit["coverage_all"] * margin,
        hit["share"] * margin,
        min(hit["evidence"] / 2.0, 1.0),
        hit["name_match"],
    )


NAMES = ("coverage", "coverage x min(ln margin, 1)", "share x min(ln margin, 1)", "min(evidence / 2, 1)", "name_match")


def main():
    path = sys.argv[1]
    limit = float(sys.argv[2]) / 100 if len(sys.argv) > 2 else 0.05
    rows = [json.loads(line) for line in open(path) if line.strip()]
    by_set = defaultdict(lambda: ([], []))  # (tool, none) features of top hit
    for r in rows:
        top = features(r["hits"][0]) if r["hits"] else None
        by_set[r["set"]][0 if r["kind"] == "tool" else 1].append(top)
    sets = sorted(by_set)
    grid = [0.0, 0.1, 0.2, 0.35, 0.5, 1.0]
    best = None
    for w in itertools.product(grid, repeat=len(NAMES)):
        if sum(w) == 0:
            continue
        total = sum(w)
        w = tuple(x / total for x in w)

        def score(f):
            return -1.0 if f is None else sum(a * b for a, b in zip(w, f))

        # The highest threshold with false no-match within the limit on
        # every catalog: per catalog, the limit-quantile of its present
        # requests' scores; the smallest of them.
        # Requests without any hit are "no match" at every threshold: they
        # use up the catalog's allowance first.
        threshold = math.inf
        for s in sets:
            present = sorted(score(f) for f in by_set[s][0] if f is not None)
            without = len(by_set[s][0]) - len(present)
            allowed = max(int(limit * len(by_set[s][0])) - without, 0)
            threshold = min(threshold, present[allowed] if allowed < len(present) else math.inf)
        detection = []
        for s in sets:
            none = by_set[s][1]
            if none:
                detection.append(sum(score(f) < threshold for f in none) / len(none))
        mean = sum(detection) / len(detection)
        if any(math.isinf(threshold) for _ in [0]):
            continue
        if best is None or mean > best[0]:
            best = (mean, w, threshold, detection)
    mean, w, threshold, detection = best
    print("weights:", ", ".join(f"{n} {x:.3f}" for n, x in zip(NAMES, w)))
    print(f"threshold {threshold:.4f}: mean detection {100 * mean:.1f} %")

    def score(f):
        return -1.0 if f is None else sum(a * b for a, b in zip(w, f))

    for s in sets:
        present, none = by_set[s]
        false = sum(score(f) < threshold for f in present) / max(len(present), 1)
        det = sum(score(f) < threshold for f in none) / max(len(none), 1)
        print(f"  {s}: false no_match {100 * false:.1f} % of {len(present)}, detected {100 * det:.1f} % of {len(none)}")


if __name__ == "__main__":
    main()
