#!/usr/bin/env python3
"""The shift change's hot paths on PostgreSQL, costed as statements: what PostgreSQL runs for a
run start, a callback recorded by the page and a callback reported by the launcher, counted by
pg_stat_statements (BEGIN and COMMIT included: each is a round trip). The count does not depend
on the machine's speed, so it needs no valgrind.

    python3 scripts/cost-guard/statements.py            # measure, compare with the budget, exit 1 above it
    python3 scripts/cost-guard/statements.py --record   # measure and write the counts as the new budget
    HANDOVER_BIN=/path/to/handover python3 scripts/cost-guard/statements.py

It needs HANDOVER_TEST_POSTGRES_URL, a cluster with pg_stat_statements preloaded
(`HANDOVER_PG_STATEMENTS=1 scripts/start-postgres.sh PORT`, as .ci/run starts it), and makes a
fresh database in it for each round.

How it counts:
  1. `handover serve --database <fresh database>` starts (a free port), and the set-up is made
     through the API: APPS apps and a device, as guard.py does.
  2. The workloads, one request after the other (a batch of one, so the group commit's batching
     does not move the count), each answered 2xx: 2 x RUNS run starts; the callback page for
     every item of the first RUNS runs; the launcher's report for every item of the others.
     pg_stat_statements is reset before each and read after it, by statement family: the
     normalized text with its lists of parameters collapsed (a batch of 3 and one of 4 are the
     same family).
  3. Idle with the runs pending, for IDLE seconds: each family's rate. The background passes
     (the deadline pass ten times a second, the outboxes) run during the workloads too: a family
     seen idle is reduced by its idle rate times the workload's duration, never below zero.
  4. Statements per request = the sum over families / requests.

The budget is budget.json's "postgres" section: per path, the statements per request and each
family's. A path fails when its total is more than `tolerance` (10 %) above the budget, when a
family appears that the budget does not have, or when a family rises by half a statement per
request or more: one statement more on a run start of about fifteen is under 10 %, and the family
rule catches it. Lower the budget with --record when a change removes statements; raise it only
with a sentence in the commit that says why.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import guard  # noqa: E402  (the set-up, the callbacks' order and the API client are guard.py's)

ROOT = guard.ROOT
BUDGET = guard.BUDGET
IDLE = 5.0
FAMILY_RISE = 0.5


def family(query):
    """A statement's family: pg_stat_statements' normalized text with each list of parameters
    (a VALUES list of tuples, an IN list, an array of them) collapsed to one element.

    Constants are parameters too: pg_stat_statements replaces them with $n only for a statement it
    first records while parsing it, and a prepared statement run again is recorded as executed,
    with its text as written (`version + 1` where an unnamed one gave `version + $10`)."""
    text = re.sub(r"\s+", " ", query.strip())
    text = re.sub(r"\$\d+", "$", text)
    text = re.sub(r"'(?:[^']|'')*'", "$", text)
    text = re.sub(r"(?<![\w$.])\d+(?:\.\d+)?(?![\w.])", "$", text)
    text = re.sub(r"(\((?:\$|\$::\w+)(?:, (?:\$|\$::\w+))*\))(?:, \((?:\$|\$::\w+)(?:, (?:\$|\$::\w+))*\))+", r"\1, …", text)
    text = re.sub(r"\(\$(?:, \$)+\)", "($, …)", text)
    return text[:300]


class Database:
    """psql on one database of the cluster."""

    def __init__(self, url):
        self.url = url

    def query(self, sql):
        result = subprocess.run(["psql", self.url, "-XAtq", "-F", "\t", "-c", sql], capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"statement guard: psql failed: {result.stderr.strip()}")
        return [line.split("\t") for line in result.stdout.splitlines() if line]

    def reset(self):
        self.query("SELECT pg_stat_statements_reset()")

    def families(self):
        """Calls by family since the last reset, on this database, leaving out this guard's own."""
        rows = self.query("SELECT calls, regexp_replace(query, '\\s+', ' ', 'g') FROM pg_stat_statements "
                          "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())")
        counts = {}
        for calls, query in rows:
            if "pg_stat_statements" in query:
                continue
            counts[family(query)] = counts.get(family(query), 0) + int(calls)
        return counts


class Server(guard.Server):
    """`handover serve` on PostgreSQL, without valgrind."""

    def __init__(self, binary, database_url, work):
        self.port = guard.free_port()
        self.log = open(os.path.join(work, "serve.log"), "w+")
        env = dict(os.environ, LOG_LEVEL="error")
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(self.port), "--data-dir", os.path.join(work, "data"), "--database", database_url],
            stdout=self.log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            self.log.seek(0)
            text = self.log.read()
            if "Press Ctrl-C" in text:
                # The first start writes its admin key to the data directory, not to the output.
                with open(os.path.join(work, "data", "first-admin-key")) as file:
                    self.key = file.read().strip()
                return
            if self.process.poll() is not None:
                sys.exit(f"statement guard: the server exited while starting:\n{text}")
            time.sleep(0.1)
        sys.exit("statement guard: the server did not start within 120 s")


def workload(database, requests, work):
    database.reset()
    started = time.monotonic()
    work()
    return database.families(), time.monotonic() - started, requests


def per_request(counts, seconds, requests, idle_rates):
    families = {}
    for name, calls in counts.items():
        calls = max(0.0, calls - idle_rates.get(name, 0.0) * seconds)
        if calls / requests >= 0.01:
            families[name] = round(calls / requests, 2)
    return {"requests": requests, "seconds": round(seconds, 2), "statements_per_request": round(sum(families.values()), 2),
            "families": dict(sorted(families.items(), key=lambda item: -item[1]))}


def measure(binary, cluster_url):
    work = tempfile.mkdtemp(prefix="handover-statements-")
    name = f"handover_statements_{os.getpid()}_{int(time.time())}"
    admin = Database(cluster_url)
    admin.query(f"CREATE DATABASE {name}")
    database_url = cluster_url.rsplit("/", 1)[0] + "/" + name
    database = Database(database_url)
    server = None
    try:
        database.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        if not database.query("SELECT count(*) FROM pg_stat_statements LIMIT 1"):
            sys.exit("statement guard: pg_stat_statements is not preloaded (HANDOVER_PG_STATEMENTS=1 scripts/start-postgres.sh)")
        server = Server(binary, database_url, work)
        device, key = guard.set_up(server)
        runs = []

        def start_runs():
            for _ in range(2 * guard.RUNS):
                runs.append(server.api("POST", f"/api/v1/devices/{device}/logout-runs", key=key, expect=201,
                                       headers=guard.start_key()))
        starts = workload(database, 2 * guard.RUNS, start_runs)
        database.reset()
        time.sleep(IDLE)
        idle_rates = {name: calls / IDLE for name, calls in database.families().items()}

        def open_pages():
            for _, url in guard.callbacks(runs[:guard.RUNS]):
                split = urllib.parse.urlsplit(url)
                with urllib.request.urlopen(server.base + split.path + "?" + split.query, timeout=60) as response:
                    if response.status != 200:
                        sys.exit(f"statement guard: a callback page answered {response.status}")
        page = workload(database, guard.RUNS * guard.APPS, open_pages)

        def report():
            for run, url in guard.callbacks(runs[guard.RUNS:]):
                server.api("POST", f"/api/v1/logout-runs/{run}/callbacks", {"url": url}, key=key, expect=200)
        reported = workload(database, guard.RUNS * guard.APPS, report)
        return {"idle_per_second": round(sum(idle_rates.values()), 1),
                "run_start": per_request(*starts, idle_rates), "callback_page": per_request(*page, idle_rates),
                "launcher_report": per_request(*reported, idle_rates)}
    finally:
        if server:
            server.stop()
        admin.query(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        subprocess.run(["rm", "-rf", work])


def compare(results, budget, record):
    """Each path against its budget; returns what is above it."""
    section = budget.setdefault("postgres", {})
    above = []
    for path, what in guard.PATHS:
        result = results[path]
        print(f"statement guard: {path}: {result['statements_per_request']} statements per {what} on PostgreSQL "
              f"({result['requests']} in {result['seconds']} s, idle {results['idle_per_second']}/s subtracted)", flush=True)
        for name, calls in result["families"].items():
            print(f"statement guard:   {calls:6.2f}  {name}", flush=True)
        if record:
            section[path] = {"tolerance": 0.1, "statements_per_request": result["statements_per_request"], "families": result["families"]}
            continue
        limits = section.get(path)
        if not limits:
            print(f"statement guard: no budget for postgres.{path}: record one with --record")
            above.append(path)
            continue
        ratio = result["statements_per_request"] / max(limits["statements_per_request"], 0.01)
        problems = []
        if ratio > 1 + limits["tolerance"]:
            problems.append(f"{ratio:.3f} x the budget of {limits['statements_per_request']}")
        for name, calls in result["families"].items():
            allowed = limits["families"].get(name)
            if allowed is None and calls >= FAMILY_RISE:
                problems.append(f"a new statement, {calls} per request: {name}")
            elif allowed is not None and calls - allowed >= FAMILY_RISE:
                problems.append(f"{calls} per request where the budget has {allowed}: {name}")
        verdict = "; ".join(problems) if problems else f"{ratio:.3f} x the budget (within {limits['tolerance']:.0%})"
        print(f"statement guard: {path}: {verdict}", flush=True)
        if problems:
            above.append(path)
    return above


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--record", action="store_true", help="write the measured counts as the budget")
    parser.add_argument("--binary", default=os.environ.get("HANDOVER_BIN"), help="the handover binary (default: the debug build)")
    parser.add_argument("--rounds", type=int, default=1, metavar="N", help="measure N times and keep each path's median round")
    arguments = parser.parse_args()
    cluster = os.environ.get("HANDOVER_TEST_POSTGRES_URL")
    if not cluster:
        sys.exit("statement guard: set HANDOVER_TEST_POSTGRES_URL to a cluster with pg_stat_statements preloaded")
    binary = arguments.binary or guard.default_binary()
    with open(BUDGET) as file:
        budget = json.load(file)
    rounds = [measure(binary, cluster) for _ in range(max(1, arguments.rounds))]
    results = dict(rounds[0])
    for path, _ in guard.PATHS:
        ordered = sorted((r[path] for r in rounds), key=lambda result: result["statements_per_request"])
        results[path] = ordered[len(ordered) // 2]
    above = compare(results, budget, arguments.record)
    if arguments.record:
        with open(BUDGET, "w") as file:
            json.dump(budget, file, indent=2, ensure_ascii=False)
            file.write("\n")
        print(f"statement guard: budget recorded in {os.path.relpath(BUDGET, ROOT)}")
        return
    if above:
        print("statement guard: a hot path runs more statements on PostgreSQL (" + ", ".join(above) + "). Find the "
              "statement that was added (the families above name it), or raise the budget in "
              "scripts/cost-guard/budget.json with a sentence in the commit that says why.")
        sys.exit(1)


if __name__ == "__main__":
    main()
