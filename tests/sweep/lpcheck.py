"""The sweep tests' inline Python checks: one "ok"/"FAIL" line per check, a run's document."""
import json
import sys

fails = 0


def check(cond, what):
    """Print the check's line; count it when it fails."""
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    fails += not cond


def fmt(x, spec=".3g"):
    """x formatted for a check's line, "none" when the document holds null there."""
    return "none" if x is None else format(x, spec)


def load(t, name):
    """The JSON document t/name.json and the exit code in t/name.rc."""
    with open(f"{t}/{name}.json") as f, open(f"{t}/{name}.rc") as rc:
        return json.load(f), int(rc.read())


def done():
    """Exit 1 when a check failed."""
    sys.exit(1 if fails else 0)
