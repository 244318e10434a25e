"""Answers for test/knowledge/pyyaml-differential.test.ts: one JSON request a line on stdin
({"v": <frontmatter block>}), one JSON answer a line on stdout: the block as PyYAML's safe_load
reads it (the reference validator's and SAG's reader), typed, or the error. The first line out
describes this Python and PyYAML."""
import datetime
import json
import sys

import yaml


def enc(v):
    if isinstance(v, bool):
        return {"b": v}
    if v is None:
        return {"n": 1}
    if isinstance(v, int):
        return {"i": str(v)}
    if isinstance(v, float):
        return {"f": repr(v)}
    if isinstance(v, str):
        return {"s": v}
    if isinstance(v, (datetime.date, datetime.datetime)):
        return {"t": v.isoformat()}
    if isinstance(v, list):
        return {"l": [enc(x) for x in v]}
    if isinstance(v, dict):
        return {"m": [[enc(k), enc(x)] for k, x in v.items()]}
    return {"x": type(v).__name__}


def load(text):
    try:
        return {"ok": enc(yaml.safe_load(text))}
    except Exception as e:  # noqa: BLE001 - PyYAML also raises ValueError/KeyError on some scalars
        return {"error": type(e).__name__ + ": " + str(e).split("\n")[0]}


out = sys.stdout
out.write(json.dumps({"python": ".".join(map(str, sys.version_info[:3])), "pyyaml": yaml.__version__}) + "\n")
for line in sys.stdin:
    out.write(json.dumps(load(json.loads(line)["v"]), ensure_ascii=True) + "\n")
