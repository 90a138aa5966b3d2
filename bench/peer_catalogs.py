#!/usr/bin/env python3
"""The peer of `catalogs`: rank_bm25 (BM25Okapi, tokenised as
bench/baseline_bm25.py does) over the same dev catalogs, as the
`catalogs` run wrote them to target/dev-catalogs/, with the same requests.
Prints hit@1, hit@5 and recall@5 of multi-tool requests per catalog.

Usage: peer_catalogs.py SETS_JSON CATALOG_DIR CORPORA_DIR
"""
import json
import os
import sys

from rank_bm25 import BM25Okapi


# One tokenisation for every rank_bm25 peer: the baseline's own.
from baseline_bm25 import doc, words  # noqa: E402


def read(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def main():
    spec, catalogs, corpora = sys.argv[1:4]
    dev = os.path.dirname(spec)
    resolve = lambda p: os.path.join(corpora, p[8:]) if p.startswith("corpora:") else os.path.join(dev, p)
    print("| catalog | rank_bm25 hit@1 | hit@5 | recall@5 (multi-tool) |")
    print("|---|---|---|---|")
    for s in json.load(open(spec))["sets"]:
        tools = json.load(open(os.path.join(catalogs, s["name"] + ".json")))["tools"]
        names = [t["name"] for t in tools]
        bm = BM25Okapi([doc(t) for t in tools])
        queries = [q for p in s["queries"] for q in read(resolve(p))]
        hit1 = hit5 = multi = recall = 0
        for q in queries:
            text = q["query"]
            if s.get("wrap"):
                text = f"{s['wrap'][0]} {text} {s['wrap'][1]}"
            scores = bm.get_scores(words(text))
            top = [names[i] for i in sorted(range(len(names)), key=lambda i: -scores[i])[:5]]
            rel = set(q["relevant"])
            hit1 += top[0] in rel
            hit5 += bool(rel & set(top))
            steps = q.get("steps") or []
            if len(steps) > 1:
                multi += 1
                recall += sum(bool(set(st) & set(top)) for st in steps) / len(steps)
        n = len(queries)
        r = f"{recall / multi:.3f} ({multi})" if multi else "—"
        print(f"| {s['name']} | {hit1 / n:.3f} | {hit5 / n:.3f} | {r} |")


if __name__ == "__main__":
    main()
