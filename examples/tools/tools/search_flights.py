"""A tool run as a command: reads the call's arguments as JSON on stdin, prints the result.

Prints the direct flights between two airports on a date as a JSON list (empty when there
are none). A missing argument exits with status 1: the model gets an error result with the
message written to stderr.
"""

import json
import sys

FLIGHTS = [
    {"flight": "HAT083", "origin": "JFK", "destination": "SEA", "departs": "08:00", "seats": 4},
    {"flight": "HAT100", "origin": "JFK", "destination": "SEA", "departs": "13:10", "seats": 0},
    {"flight": "HAT201", "origin": "SEA", "destination": "JFK", "departs": "09:45", "seats": 9},
]

arguments = json.load(sys.stdin)
missing = [key for key in ("origin", "destination", "date") if key not in arguments]
if missing:
    sys.exit(f"missing argument(s): {', '.join(missing)}")
found = [
    {"flight": f["flight"], "date": arguments["date"], "departs": f["departs"], "seats": f["seats"]}
    for f in FLIGHTS
    if (f["origin"], f["destination"]) == (arguments["origin"], arguments["destination"])
]
print(json.dumps(found))
