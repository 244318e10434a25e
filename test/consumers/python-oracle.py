"""Answers for test/consumers/python-differential.test.ts: one JSON request a line on stdin
({"op": ..., "v": ...}), one JSON answer a line on stdout, computed with the very expressions SAG
v1.7 evaluates. The first line out describes this Python."""
import json
import sys
import unicodedata
from datetime import datetime
from decimal import Decimal


def iso(v):
    try:
        return datetime.fromisoformat(v).isoformat()
    except ValueError:
        return None


def sag_datetime(v):
    if not isinstance(v, str) or not v:
        return {"none": True}
    try:
        return {"iso": datetime.fromisoformat(v.replace("Z", "+00:00")).isoformat()}
    except ValueError:
        return {"error": True}


def sag_weight(v):
    d = Decimal(str(1 if v is None else v))
    if d < 0 or d > Decimal("9.99"):
        return {"refused": True}
    return {"stored": str(d.quantize(Decimal("0.01")))}


def identities(v):
    t, n = v
    return {
        "plan": [t, unicodedata.normalize("NFC", n).casefold()],
        "database": [t.strip().casefold(), n.casefold()],
        "storedTypeLength": len(t.strip().casefold()),
    }


def every_code_point(_):
    """Over all of Unicode (surrogates too): the code points casefold and NFC change, with the results, and those isspace accepts."""
    folds, spaces, nfc = [], [], []
    for cp in range(0x110000):
        ch = chr(cp)
        f = ch.casefold()
        if f != ch:
            folds.append([cp, f])
        if ch.isspace():
            spaces.append(cp)
        n = unicodedata.normalize("NFC", ch)
        if n != ch:
            nfc.append([cp, n])
    return {"folds": folds, "spaces": spaces, "nfc": nfc}


OPS = {
    "every_code_point": every_code_point,
    "strip": lambda v: v.strip(),
    "isspace": lambda v: v.isspace(),
    "casefold": lambda v: v.casefold(),
    "nfc": lambda v: unicodedata.normalize("NFC", v),
    "len": len,
    "fromisoformat": iso,
    "sag_datetime": sag_datetime,
    "sag_weight": sag_weight,
    "identities": identities,
}

out = sys.stdout
out.write(json.dumps({"python": ".".join(map(str, sys.version_info[:3])), "unicode": unicodedata.unidata_version}) + "\n")
for line in sys.stdin:
    req = json.loads(line)
    out.write(json.dumps(OPS[req["op"]](req["v"]), ensure_ascii=True) + "\n")
