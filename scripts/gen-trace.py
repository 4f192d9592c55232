#!/usr/bin/env python3
"""Writes experiments/traces/cellular-12s.trace: a 12-second recorded-link
trace in the packet-delivery-opportunity format (Mahimahi's): one line per
chance for one 1,500-byte packet to leave, a whole number of milliseconds
from the trace's start, repeated for several packets in one millisecond.

Generated, not recorded: a seeded random walk of the rate shaped like a
cellular uplink's second by second (docs/method.md §15.2), so the file is
small, reproducible and holds every case the format has:

  0-2 s     a random walk around 8 Mbit/s
  2-2.5 s   15 Mbit/s: more than one packet per millisecond (repeated stamps)
  2.5-5 s   a fall to about 2 Mbit/s
  5-6.5 s   an outage: no opportunity at all
  6.5-12 s  a random walk between 3 and 10 Mbit/s

Run from the repository's root: python3 scripts/gen-trace.py
The trace repeats with its period, its last timestamp (12000 ms).
"""

import random

PERIOD_MS = 12_000
FRAME_BITS = 1514 * 8


def rate_mbit(t_ms, walk):
    s = t_ms / 1000.0
    if s < 2.0:
        return walk(8.0, 5.0, 11.0)
    if s < 2.5:
        return 15.0
    if s < 5.0:
        return walk(2.0, 1.0, 3.0)
    if s < 6.5:
        return 0.0
    return walk(6.0, 3.0, 10.0)


def main():
    rng = random.Random(20261207)
    state = {"level": None, "band": None, "t": -1}

    def walk(centre, lo, hi):
        # A new step every 100 ms, the level kept inside [lo, hi].
        band = (lo, hi)
        if state["band"] != band:
            state["band"], state["level"] = band, centre
        if state["t"] % 100 == 0:
            state["level"] += (rng.random() - 0.5) * 2.0
            state["level"] = min(hi, max(lo, state["level"]))
        return state["level"]

    lines = []
    credit = 0.0
    for t in range(1, PERIOD_MS + 1):
        state["t"] = t
        credit += rate_mbit(t, walk) * 1e6 / FRAME_BITS / 1000.0
        while credit >= 1.0:
            lines.append(t)
            credit -= 1.0
    if lines[-1] != PERIOD_MS:
        lines.append(PERIOD_MS)
    with open("experiments/traces/cellular-12s.trace", "w") as f:
        f.write("".join(f"{t}\n" for t in lines))


if __name__ == "__main__":
    main()
