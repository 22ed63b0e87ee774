#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# The test results LAVA recorded in a lava-run logs.yaml ("lvl: results"),
# one line each: definition/case result.  Exit status 1 if any failed or
# none was recorded.
import sys

import yaml

with open(sys.argv[1]) as f:
    log = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
counts = {}
for entry in log or []:
    if entry.get("lvl") != "results":
        continue
    r = entry["msg"]
    print("%s/%s %s" % (r.get("definition"), r.get("case"), r.get("result")))
    counts[r.get("result")] = counts.get(r.get("result"), 0) + 1
print("# LAVA results: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
sys.exit(1 if counts.get("fail") or not counts else 0)
