#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# tcbacklog.py NS DEV STOPFILE: sample `tc -s -j qdisc show dev DEV` in
# network namespace NS as often as tc answers until STOPFILE exists, then
# print one JSON object per qdisc keyed by its parent ("1:1"): the integral
# of its backlog over the sampled time (byte-seconds, trapezoids), the bytes
# and packets it sent meanwhile, the samples, the first and last backlog.
# Little's law for the tests: mean wait = integral / bytes sent, when the
# queue is empty at both ends. Tests only.
import json
import os
import subprocess
import sys
import time

ns, dev, stop = sys.argv[1], sys.argv[2], sys.argv[3]
prev = {}
acc = {}
while True:
    done = os.path.exists(stop)
    out = subprocess.run(["tc", "-n", ns, "-s", "-j", "qdisc", "show", "dev", dev],
                         capture_output=True, text=True, check=True).stdout
    t = time.monotonic()
    for q in json.loads(out):
        key = q.get("parent", "root")
        b, nbytes, pkts = q.get("backlog", 0), q.get("bytes", 0), q.get("packets", 0)
        a = acc.setdefault(key, {"kind": q.get("kind"), "integral": 0.0, "bytes0": nbytes,
                                 "packets0": pkts, "samples": 0, "first_backlog": b,
                                 "max_backlog": 0})
        if key in prev:
            t0, b0 = prev[key]
            a["integral"] += (t - t0) * (b + b0) / 2.0
        prev[key] = (t, b)
        a["samples"] += 1
        a["bytes"] = nbytes - a["bytes0"]
        a["packets"] = pkts - a["packets0"]
        a["last_backlog"] = b
        a["max_backlog"] = max(a["max_backlog"], b)
    if done:
        break
    time.sleep(0.005)
print(json.dumps(acc))
