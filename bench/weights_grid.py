#!/usr/bin/env python3
"""BM25F field weights tried on every dev catalog at once: for each
weighting, the catalogs bench's hit@1, hit@5 and false no_match per
catalog, and the worst catalog's margin over rank_bm25 (hit@1 less the
peer's plus 5 points; hit@5 less the peer's), best first.

Usage: python3 bench/weights_grid.py [CATALOGS_BINARY] [SETS_JSON]
(after `bash bench/catalogs.sh`, which builds the binary; the peer's
numbers are those of that run, passed as PEER_HIT1/PEER_HIT5 below).
"""
import itertools
import os
import subprocess
import sys

BINARY = sys.argv[1] if len(sys.argv) > 1 else "target/release/catalogs"
SETS = sys.argv[2] if len(sys.argv) > 2 else "bench/data/dev/sets.json"
# rank_bm25 over the same catalogs and requests (bench/peer_catalogs.py).
PEER_HIT1 = {"bfcl-short": 0.759, "bfcl-descriptions": 0.701, "mcp-long": 0.646, "mcp-verbose": 0.021,
             "mcp-short": 0.850, "mcp-descriptions": 0.716, "multilingual": 0.781, "assistant": 0.733}
PEER_HIT5 = {"bfcl-short": 0.931, "bfcl-descriptions": 0.881, "mcp-long": 0.771, "mcp-verbose": 0.146,
             "mcp-short": 1.000, "mcp-descriptions": 0.875, "multilingual": 0.906, "assistant": 0.867}


def run(weights):
    env = dict(os.environ, CATALOG_WEIGHTS=",".join(str(w) for w in weights))
    out = subprocess.run([BINARY, SETS], env=env, capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 9 and cells[0] in PEER_HIT1:
            rows[cells[0]] = (float(cells[3]), float(cells[4]), float(cells[6].rstrip(" %")))
    return rows


def main():
    grid = itertools.product([2.0, 3.0, 4.0], [2.0], [1.0, 1.5], [0.3, 0.6], [0.5, 0.8, 1.2], [0.3])
    results = []
    for weights in grid:
        rows = run(weights)
        hit1 = min(rows[c][0] - PEER_HIT1[c] - 0.05 for c in rows)
        hit5 = min(rows[c][1] - PEER_HIT5[c] for c in rows)
        worst_fnm = max(rows[c][2] for c in rows)
        mean1 = sum(rows[c][0] for c in rows) / len(rows)
        results.append((hit1, hit5, worst_fnm, mean1, weights, rows))
        print(f"{weights}: worst hit@1 margin {hit1:+.3f}, worst hit@5 margin {hit5:+.3f}, "
              f"worst false no_match {worst_fnm:.1f} %, mean hit@1 {mean1:.3f}", flush=True)
    results.sort(key=lambda r: (r[2] > 5.0, -r[0], -r[3]))
    print("\nbest:")
    for hit1, hit5, fnm, mean1, weights, rows in results[:5]:
        print(weights, f"{hit1:+.3f} {hit5:+.3f} {fnm:.1f} % {mean1:.3f}",
              {c: rows[c][0] for c in rows})


main()
