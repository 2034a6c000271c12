#!/usr/bin/env python3
"""Checks a custody CSV from the dashboard (/dashboard/custody.csv), as `handover bench
shift-change --custody-csv FILE` writes it after a storm (issue 40):

  scripts/check-custody-csv.py FILE N

Exits 0 when FILE has exactly N data rows and every row names a person (person or email), the
device, when it was checked out and checked in, the hand-over's run, and an outcome of
`completed` or `failed`; 1 otherwise, naming the first rows that fall short (data rows counted from 1). Prints a one-line
summary either way.
"""
import collections
import csv
import sys

REQUIRED = ("device", "checkedOutAt", "checkedInAt", "runID", "outcome")
OUTCOMES = ("completed", "failed")


def problems_of(row):
    """What a row lacks, in words (empty when it is complete)."""
    problems = []
    if not (row.get("person") or "").strip() and not (row.get("email") or "").strip():
        problems.append("no person")
    for column in REQUIRED:
        if not (row.get(column) or "").strip():
            problems.append("no " + column)
    outcome = (row.get("outcome") or "").strip()
    if outcome and outcome not in OUTCOMES:
        problems.append("outcome " + outcome)
    return problems


def main(arguments):
    if len(arguments) != 2 or not arguments[1].isdigit():
        print("usage: check-custody-csv.py FILE N  (N: the data rows expected)", file=sys.stderr)
        return 2
    path, expected = arguments[0], int(arguments[1])
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = [column for column in ("person", "email") + REQUIRED if column not in (reader.fieldnames or [])]
            rows = list(reader)
    except OSError as error:
        print(f"custody CSV {path}: cannot be read ({error.strerror})")
        return 1
    if missing:
        print(f"custody CSV {path}: no column {', '.join(missing)} (header: {','.join(reader.fieldnames or [])})")
        return 1
    incomplete = [(number, problems) for number, row in enumerate(rows, start=1) if (problems := problems_of(row))]
    outcomes = collections.Counter((row.get("outcome") or "").strip() or "none" for row in rows)
    summary = ", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes.items()))
    if len(rows) != expected or incomplete:
        shown = "; ".join(f"row {number}: {', '.join(problems)}" for number, problems in incomplete[:5])
        print(f"custody CSV {path}: NOT OK: {len(rows)} rows (expected {expected}), {len(incomplete)} incomplete"
              + (f" ({shown})" if shown else "") + (f"; {summary}" if rows else ""))
        return 1
    print(f"custody CSV {path}: OK: {len(rows)} custodies, each with its person, device, check-out, check-in and run"
          + (f"; {summary}" if rows else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
