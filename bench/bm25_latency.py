#!/usr/bin/env python3
"""rank_bm25 (BM25Okapi) latency on a corpus, with the same document text and
tokenisation as bench/baseline_bm25.py: index build time and
per-query latency (median, p99) of scoring every tool and taking the top 10.
Usage: bm25_latency.py DIR LABEL   (DIR has tools.json + queries.jsonl)"""
import json
import sys
import time

from rank_bm25 import BM25Okapi


# One tokenisation for every rank_bm25 peer: the baseline's own.
from baseline_bm25 import doc, words  # noqa: E402


def main():
    d, label = sys.argv[1], sys.argv[2]
    tools = json.load(open(d + "/tools.json"))["tools"]
    qs = [json.loads(line) for line in open(d + "/queries.jsonl")]
    t0 = time.perf_counter()
    bm = BM25Okapi([doc(t) for t in tools])
    build_ms = (time.perf_counter() - t0) * 1e3
    n = len(tools)
    times = []
    for q in qs:
        t0 = time.perf_counter()
        scores = bm.get_scores(words(q["query"]))
        top = sorted(range(n), key=lambda i: -scores[i])[:10]
        times.append((time.perf_counter() - t0) * 1e6)
    times.sort()
    p = lambda f: times[min(len(times) - 1, round((len(times) - 1) * f))]
    print(json.dumps({"system": "rank_bm25", "corpus": label, "tools": n, "queries": len(qs),
                      "build_ms_median": round(build_ms, 1), "query_us_median": round(p(0.5), 1),
                      "query_us_p99": round(p(0.99), 1)}))


main()
