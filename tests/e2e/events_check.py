"""The application's own costs in a profiled run (lbsprof_event_add): `lbsim trace info --json`'s
events against the application's --json, whose partition_s and migration_s sum the largest rank's
seconds at each repartition while the trace holds every rank's: each total lies between the
application's and ranks times it (the JSON has 6 decimals). usage: events_check.py INFO.json
APP.json RANKS STEPS [NAME...]: STEPS steps hold events, and the events NAME... total more than 0;
the profiler's own outside_s follows them, more than 0 too.
"""
import json
import sys

info, app = (json.load(open(f)) for f in sys.argv[1:3])
ranks, steps, positive = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
ev = info["events"]
# the application's two, then the profiler's own outside_s (its time outside the elements)
assert ev["ranks"] == ranks and ev["names"] == ["partition_s", "migration_s", "outside_s"], ev
assert ev["steps"] == steps, ("steps with events", ev["steps"], steps)
assert ev["total_s"][2] > 0, ("outside_s", ev["total_s"][2])
for name, tot in zip(ev["names"][:2], ev["total_s"]):
    js = app[name]
    assert 0.999 * js - 2e-6 <= tot <= ranks * js * 1.001 + 2e-6, (name, tot, js)
    assert name not in positive or tot > 0, (name, tot)
