#!/usr/bin/env python3
"""The no-match set of a retrieval corpus: every query, with the tools that
answer it named as absent. A search for the query in the catalog *without*
those tools has no right answer, so `tool_info` should say "no match"; the
same query in the whole catalog should not. `bench/no_match.sh` measures
both rates.
Usage: no_match_set.py CORPUS_DIR OUT.jsonl"""
import json
import sys

corpus, out = sys.argv[1], sys.argv[2]
tools = {t["name"] for t in json.load(open(f"{corpus}/tools.json"))["tools"]}
written = 0
with open(out, "w") as f:
    for line in open(f"{corpus}/queries.jsonl"):
        if not line.strip():
            continue
        q = json.loads(line)
        absent = [name for name in q["relevant"] if name in tools]
        if not absent:
            continue
        f.write(json.dumps({"id": q["id"], "query": q["query"], "absent": absent}) + "\n")
        written += 1
print(f"{written} queries written to {out}", file=sys.stderr)
