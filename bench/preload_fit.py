"""Judges preload's rule on every dev catalog (bench/data/dev/sets.json)
from the JSON lines `catalogs` writes with CATALOG_SIGNALS=FILE.

Per request: a right attachment (the tool the request needs is among those
attached) saves a `tool_info` round trip, about 1,300 input-token units
under caching; every wrong schema attached costs about 300 for a schema of
330 characters, in proportion to its length (it is read again by every
later request). A request needing no tool gains nothing from an attachment.
Printed per catalog: the value per request and the share of requests that
need a tool whose attachments hold it, for attaching the best hit alone
(strong and standing out) or nothing, and for the close pair as well
(the two best when the first is strong without standing out and the second
is at least SECOND strong, unless either schema is over CAP characters),
with at most 6,000 characters attached to a message and with at most
CHARS (PreloadOptions::max_chars: a longer schema is left out).

Usage: python3 bench/preload_fit.py SIGNALS.jsonl [DATA_DIR]
       (DATA_DIR: the public corpora, default corpora)
"""

import json
import sys
from collections import defaultdict

STRONG = 0.12  # STRONG_MATCH
MARGIN = 1.1  # PRELOAD_MARGIN
SECOND = 0.2  # PRELOAD_CLOSE_SECOND
CAP = 1000  # PRELOAD_CLOSE_MAX_CHARS
CHARS = 2000  # PreloadOptions::max_chars (default)
SAVED = 1300
WRONG = 300
WRONG_CHARS = 330


def schema_sizes(data_dir):
    """Characters of each tool's attachment in the shared corpora, by
    catalog file: compact JSON of its name, description and parameters, as
    preload writes it."""
    sizes = {}
    for corpus in ("bfcl-dev", "mcp-live-526-raw"):
        with open(f"{data_dir}/{corpus}/tools.json") as f:
            tools = json.load(f)
        tools = tools["tools"] if isinstance(tools, dict) else tools
        sizes[corpus] = {
            t["name"]: len(
                json.dumps(
                    {
                        "name": t["name"],
                        "description": t.get("description"),
                        "parameters": t.get("inputSchema"),
                    },
                    separators=(",", ":"),
                    ensure_ascii=False,
                )
            )
            for t in tools
        }
    return sizes


def size_of(sizes, catalog, tool):
    if "descriptions" in catalog:
        return 150  # name and description only
    for prefix, corpus in (("bfcl", "bfcl-dev"), ("mcp", "mcp-live-526-raw")):
        if catalog.startswith(prefix):
            return sizes[corpus].get(tool, WRONG_CHARS)
    return WRONG_CHARS


def attached(hits, pair, chars, sizes, catalog):
    if not hits or hits[0]["strength"] < STRONG:
        return []
    if hits[0]["margin"] >= MARGIN:
        return [h for h in hits[:1] if size_of(sizes, catalog, h["tool"]) <= chars]
    if (
        pair
        and len(hits) > 1
        and hits[1]["strength"] >= SECOND
        and all(size_of(sizes, catalog, h["tool"]) <= CAP for h in hits[:2])
    ):
        return hits[:2]
    return []


def judge(rows, pair, chars, sizes):
    value = defaultdict(float)
    count = defaultdict(int)
    need = defaultdict(int)
    hold = defaultdict(int)
    for r in rows:
        c = r["set"]
        att = attached(r["hits"], pair, chars, sizes, c)
        wrong = sum(
            WRONG * size_of(sizes, c, h["tool"]) / WRONG_CHARS
            for h in att
            if not (r["kind"] == "tool" and h["relevant"])
        )
        count[c] += 1
        if r["kind"] == "tool":
            need[c] += 1
            if any(h["relevant"] for h in att):
                hold[c] += 1
                value[c] += SAVED
        value[c] -= wrong
    return {c: (value[c] / count[c], hold[c] / max(need[c], 1)) for c in count}


def main():
    rows = [json.loads(line) for line in open(sys.argv[1])]
    sizes = schema_sizes(sys.argv[2] if len(sys.argv) > 2 else "corpora")
    columns = [
        judge(rows, False, 6000, sizes),
        judge(rows, True, 6000, sizes),
        judge(rows, True, CHARS, sizes),
    ]
    print(
        "| catalog | alone or nothing | with the close pair "
        f"| and at most {CHARS:,} characters |"
    )
    print("|---|---|---|---|")
    for c in columns[0]:
        cells = " | ".join(f"{j[c][0]:.0f} / {j[c][1]:.2f}" for j in columns)
        print(f"| {c} | {cells} |")


if __name__ == "__main__":
    main()
