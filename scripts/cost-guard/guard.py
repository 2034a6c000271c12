#!/usr/bin/env python3
"""The shift change's hot paths, costed as counts of instructions, not times: a guard a noisy
machine cannot fool. Three paths: a run's start (`POST /api/v1/devices/{id}/logout-runs` with the
device's key), the callback page (`GET /ulc/cb/…`, a browser), and the launcher's report of a
callback (`POST /api/v1/logout-runs/{id}/callbacks` with the device's key).

    python3 scripts/cost-guard/guard.py            # measure, compare with the budget, exit 1 above it
    python3 scripts/cost-guard/guard.py --record   # measure and write the figure as the new budget
    HANDOVER_BIN=/path/to/handover python3 scripts/cost-guard/guard.py   # that binary (default: the debug build)

How it counts:
  1. `handover serve` starts under `valgrind --tool=callgrind` on a fresh SQLite data directory
     (loopback, a free port), and the set-up is made through the API: APPS apps and a device.
  2. Callgrind's counters are zeroed (callgrind_control -z): the start-up, the migrations and the
     set-up are not counted.
  3. The workloads, each counted by itself, one request after the other (a batch of one, so the
     group commit's batching, which depends on timing, does not move the count), each answered
     2xx: 2 x RUNS run starts (APPS items each); the callback page for every item of the first
     RUNS runs; the launcher's report for every item of the others.
  4. Idle, after the run starts: the server is left alone for IDLE seconds with the runs pending
     and its instructions counted (its background passes: deadlines every 100 ms, outboxes,
     memory release). From each workload, this idle rate times its duration is subtracted.
     Under callgrind the idle passes are a third of what a workload counts, so their rate must be
     known well: IDLE is 15 s, so that a pass that runs once a second is counted about fifteen
     times (in 5 s, one firing more or less moved the rate by about 3 %).
  5. Instructions per run start, per callback recorded by the page, per callback reported =
     that difference / the number of requests.

It counts twice, with a server each time: everything the process executes (HTTP, routing,
the page, the domain, the database), and only what runs inside SQLiteNIO's statements on the
thread pool (callgrind's --toggle-collect: preparing, binding, stepping, reading rows). The
first guards the whole path; the second is where a statement added to the path shows: one more
query per callback is a few per cent of the whole in a debug build, and far more of the
database's share.

Valgrind 3.19 (Debian 12) needs two things to run a Swift server: a copy of the binary without
its DWARF (its reader gives up on the debug build's), and sigsuspend_copy.c preloaded (it writes
into the signal mask that libdispatch's main thread passes to sigsuspend, which is read-only, and
crashes). Both are made here in the work directory; nothing of them reaches the `handover` binary.

The budget is in scripts/cost-guard/budget.json, one section per path, for the debug build CI
makes (`swift build`). The guard fails when a count is more than `tolerance` (10 %) above it:
it measures one round, and a count above its budget twice more, and the median of the three
decides.
Lower the budget when a change makes the path cheaper (--record); raise it only with a sentence in
the commit that says why. The count depends on the toolchain and the build configuration, not on
the machine's load, but it is not exact: the idle passes run on wall-clock timers, less often
under load than idle, so what is subtracted is an estimate. One binary on one machine repeats
within about 4 % (the callback page: 6.03 to 6.28 M instructions over five rounds). So record
with `--record --rounds 3`, which takes each count's median. A clean build and an incremental
one of the same tree count the same (the page: 6.19 and 6.21 M clean, 6.03 to 6.28 M
incremental); an earlier budget recorded from one low round (5.65 M) was read as a difference
between them.

Statements per request (calls to SQLite's prepare, less the idle passes' estimated share) are
printed beside each count, not budgeted: the idle passes run less often under load than idle, so
the estimate moves by a few tenths of a statement with the machine and the build.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUDGET = os.path.join(HERE, "budget.json")
APPS = 20
RUNS = 15
IDLE = 15.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def default_binary():
    path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True)
    return os.path.join(path.stdout.strip(), "handover")


def prepare(binary, work):
    """The binary without DWARF, and the sigsuspend shim; returns (binary, shim)."""
    stripped = os.path.join(work, "handover")
    objcopy = shutil.which("objcopy") or shutil.which("llvm-objcopy")
    if not objcopy:
        sys.exit("cost guard: objcopy is not installed (apt-get install binutils)")
    subprocess.run([objcopy, "--strip-debug", binary, stripped], check=True)
    shim = os.path.join(work, "sigsuspend_copy.so")
    compiler = shutil.which("cc") or shutil.which("clang")
    if not compiler:
        sys.exit("cost guard: no C compiler (cc or clang) for the sigsuspend shim")
    subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", shim, os.path.join(HERE, "sigsuspend_copy.c")], check=True)
    return stripped, shim


# What the database count collects: every call into SQLite (prepare, bind, step, column, finalize).
DATABASE_FUNCTIONS = "sqlite_nio_sqlite3_*"
# SQLite's prepare functions (prepare_v2, prepare_v3): one call per statement run.
PREPARE = "sqlite_nio_sqlite3_prepare"



def start_key():
    """A run start's `Idempotency-Key`, as the launcher SDK sends one with each start (an
    sf-string: the key in double quotes)."""
    return {"Idempotency-Key": f'"{uuid.uuid4()}"'}

class Server:
    def __init__(self, binary, shim, work, toggle=None):
        self.port = free_port()
        self.out_file = os.path.join(work, "callgrind.out")
        self.log = open(os.path.join(work, "serve.log"), "w+")
        # Under valgrind every request waits long: a target of a minute keeps admission control
        # on the path (its instructions counted) without shedding the guard's run starts.
        env = dict(os.environ, LOG_LEVEL="error", LD_PRELOAD=shim, HANDOVER_QUEUE_TARGET="60000")
        self.process = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={self.out_file}", "--dump-instr=no",
             "--compress-strings=no", *([f"--toggle-collect={toggle}"] if toggle else []), binary, "serve", "--port", str(self.port), "--data-dir", os.path.join(work, "data")],
            stdout=self.log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            self.log.seek(0)
            text = self.log.read()
            if "Press Ctrl-C" in text:
                # The first start's admin key is in the data directory (a build before issue 66 printed it).
                written = os.path.join(work, "data", "first-admin-key")
                if os.path.exists(written):
                    with open(written) as file:
                        self.key = file.read().strip()
                else:
                    self.key = next(word for word in text.split() if word.startswith("hov_") and len(word) > 20)
                return
            if self.process.poll() is not None:
                sys.exit(f"cost guard: the server exited while starting:\n{text}")
            time.sleep(0.2)
        sys.exit("cost guard: the server did not start under valgrind within 600 s")

    def api(self, method, path, body=None, key=None, expect=None, headers=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {key or self.key}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                if expect and response.status != expect:
                    sys.exit(f"cost guard: {method} {path} answered {response.status}, not {expect}")
                return json.load(response)
        except urllib.error.HTTPError as error:
            sys.exit(f"cost guard: {method} {path} answered {error.code}: {error.read().decode(errors='replace')}")

    def control(self, *arguments):
        """callgrind_control on this server; returns its output."""
        result = subprocess.run(["callgrind_control", *arguments, str(self.process.pid)], capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"cost guard: callgrind_control {' '.join(arguments)} failed: {result.stdout}{result.stderr}")
        return result.stdout

    def instructions(self):
        """Dumps the counters since the last zeroing; returns the instructions (Ir) counted and the
        statements SQLite prepared (calls to its prepare functions)."""
        before = set(os.listdir(os.path.dirname(self.out_file)))
        self.control("--dump")
        # Each dump is a new file, one per thread (callgrind's default is one file for all).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            new = [name for name in set(os.listdir(os.path.dirname(self.out_file))) - before if name.startswith("callgrind.out")]
            if new:
                break
            time.sleep(0.1)
        total = statements = 0
        for name in new:
            path = os.path.join(os.path.dirname(self.out_file), name)
            for _ in range(100):  # the dump is written by the server: wait for its summary
                with open(path) as file:
                    lines = file.readlines()
                summary = [line for line in lines if line.startswith(("summary:", "totals:"))]
                if summary:
                    break
                time.sleep(0.1)
            total += int(summary[0].split()[1])
            callee = ""
            for line in lines:
                if line.startswith("cfn="):
                    callee = line[4:].strip()
                elif line.startswith("calls=") and PREPARE in callee:
                    statements += int(line[6:].split()[0])
        self.control("--zero")
        return total, statements

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)


def set_up(server):
    """APPS apps and a device; returns the device (its id and key)."""
    for index in range(APPS):
        server.api("POST", "/api/v1/apps", {
            "name": f"guard{index}", "appIDs": [f"ABCDE12345.com.example.guard{index}"],
            "logoutAction": f"https://guard{index}.example.com/logout", "deadlineSeconds": 300})
    device = server.api("POST", "/api/v1/devices", {"name": "guard-phone"})
    return device["device"]["id"], device["key"]


def callbacks(runs):
    """Each run's success callback URLs, interleaved as a fleet's arrive (item i of every run,
    then i + 1), deterministically: (run id, URL)."""
    urls = []
    for run in runs:
        for item in run["items"]:
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(item["link"]).query)
            urls.append((run["id"], query["ulc-success"][0]))
    return [urls[run * APPS + item] for item in range(APPS) for run in range(len(runs))]


class Workload:
    """One workload's raw counts, until the idle rate it is read against is known."""

    def __init__(self, server, requests, work):
        started = time.monotonic()
        work()
        self.instructions, self.statements = server.instructions()
        self.elapsed, self.requests = time.monotonic() - started, requests

    def per_request(self, idle_rate, idle_statement_rate):
        return {"requests": self.requests, "seconds": round(self.elapsed, 1), "instructions": self.instructions,
                "per_request": round((self.instructions - idle_rate * self.elapsed) / self.requests),
                "statements_per_request": round((self.statements - idle_statement_rate * self.elapsed) / self.requests, 2)}


def measure(binary, toggle=None):
    """Runs a server under callgrind and counts each workload; returns {path: result}."""
    work = tempfile.mkdtemp(prefix="handover-cost-")
    server = None
    try:
        started = time.monotonic()
        print(f"cost guard: starting {binary} under callgrind", flush=True)
        stripped, shim = prepare(binary, work)
        server = Server(stripped, shim, work, toggle)
        print(f"cost guard: started in {time.monotonic() - started:.0f} s; setting up {APPS} apps and a device", flush=True)
        device, key = set_up(server)
        server.control("--zero")
        runs = []

        def start_runs():
            for _ in range(2 * RUNS):
                runs.append(server.api("POST", f"/api/v1/devices/{device}/logout-runs", key=key, expect=201,
                                       headers=start_key()))
        starts = Workload(server, 2 * RUNS, start_runs)
        print(f"cost guard: {2 * RUNS} runs started", flush=True)
        # Idle with the runs pending, as during the callbacks (the deadline pass reads them).
        idle_started = time.monotonic()
        time.sleep(IDLE)
        idle, idle_statements = server.instructions()
        idle_seconds = time.monotonic() - idle_started
        rates = (idle / idle_seconds, idle_statements / idle_seconds)
        print(f"cost guard: idle {idle / idle_seconds:,.0f} instructions/s", flush=True)
        results = {"idle_per_second": round(idle / idle_seconds), "run_start": starts.per_request(*rates)}

        page = callbacks(runs[:RUNS])
        def open_pages():
            for index, (_, url) in enumerate(page):
                split = urllib.parse.urlsplit(url)
                with urllib.request.urlopen(server.base + split.path + "?" + split.query, timeout=120) as response:
                    if response.status != 200:
                        sys.exit(f"cost guard: callback page {index} answered {response.status}, not 200")
                if (index + 1) % 100 == 0:
                    print(f"cost guard: {index + 1}/{len(page)} callback pages", flush=True)
        results["callback_page"] = Workload(server, len(page), open_pages).per_request(*rates)

        reported = callbacks(runs[RUNS:])
        def report():
            for index, (run, url) in enumerate(reported):
                server.api("POST", f"/api/v1/logout-runs/{run}/callbacks", {"url": url}, key=key, expect=200)
                if (index + 1) % 100 == 0:
                    print(f"cost guard: {index + 1}/{len(reported)} callbacks reported", flush=True)
        results["launcher_report"] = Workload(server, len(reported), report).per_request(*rates)
        return results
    finally:
        if server:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


COUNTS = [
    # (budget key, what it counts, callgrind's toggle)
    ("instructions_per_request", "instructions", None),
    ("database_instructions_per_request", "instructions in SQLite statements", DATABASE_FUNCTIONS),
]
PATHS = [
    # (budget section, what one request is)
    ("run_start", "run start"),
    ("callback_page", "callback recorded by the page"),
    ("launcher_report", "callback reported by the launcher"),
]


def median(rounds):
    """Path by path, the result of the round whose count is the median (a single round is its own
    median); prints each path's counts, in order."""
    if len(rounds) == 1:
        return rounds[0]
    results = {"idle_per_second": sorted(r["idle_per_second"] for r in rounds)[len(rounds) // 2]}
    for path, _ in PATHS:
        ordered = sorted((r[path] for r in rounds), key=lambda result: result["per_request"])
        results[path] = dict(ordered[len(ordered) // 2])
        print(f"cost guard: {path}: rounds counted " + ", ".join(f"{r['per_request']:,}" for r in ordered) + "; the median is used", flush=True)
    return results


# Above the budget, a count is measured until this many rounds, and their median decides.
CONFIRMING_ROUNDS = 3


def compare(results, key, label, budget, record):
    """Prints each path's count against its budget (or writes it into `budget` when recording);
    returns the paths above the budget."""
    above = []
    for path, what in PATHS:
        result, limits = results[path], budget.setdefault(path, {"tolerance": 0.1})
        print(f"cost guard: {path}: {result['per_request']:,} {label} per {what} ({result['requests']} in "
              f"{result['seconds']} s under callgrind, idle {results['idle_per_second']:,}/s subtracted); "
              f"{result['statements_per_request']} statements each", flush=True)
        if record:
            limits[key] = result["per_request"]
            continue
        allowed = limits.get(key)
        if not allowed:
            print(f"cost guard: no budget for {path}.{key} in {os.path.relpath(BUDGET, ROOT)}: record one with --record")
            above.append(f"{path}: {label}")
            continue
        tolerance = limits["tolerance"]
        ratio = result["per_request"] / max(allowed, 1)
        verdict = "within" if ratio <= 1 + tolerance else "ABOVE"
        print(f"cost guard: {path}: {label}: {ratio:.3f} x the budget of {allowed:,} ({verdict} the {tolerance:.0%} allowed)", flush=True)
        if ratio > 1 + tolerance:
            above.append(f"{path}: {label}")
    return above


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--record", action="store_true", help="write the measured counts as the budget")
    parser.add_argument("--binary", default=os.environ.get("HANDOVER_BIN"), help="the handover binary (default: the debug build)")
    parser.add_argument("--rounds", type=int, default=1, metavar="N",
                        help="measure N times (a server each) and take each count's median; record with 3")
    arguments = parser.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_control"):
        sys.exit("cost guard: valgrind is not installed (apt-get install valgrind)")
    binary = arguments.binary or default_binary()
    with open(BUDGET) as file:
        budget = json.load(file)
    if arguments.rounds < 1:
        sys.exit(f"cost guard: --rounds must be 1 or more, not {arguments.rounds}")
    failed = []
    for key, label, toggle in COUNTS:
        rounds = []
        def measure_until(count):
            while len(rounds) < count:
                if count > 1:
                    print(f"cost guard: {label}, round {len(rounds) + 1} of {count}", flush=True)
                rounds.append(measure(binary, toggle))
            return median(rounds)
        results = measure_until(arguments.rounds)
        above = compare(results, key, label, budget, arguments.record)
        if above and len(rounds) < CONFIRMING_ROUNDS:
            # One round can be a few per cent high (the idle estimate): above the budget, the
            # median of three decides. A real rise moves the median; one high round does not.
            print(f"cost guard: {label}: above the budget in {len(rounds)} round(s); measuring until "
                  f"{CONFIRMING_ROUNDS} to confirm", flush=True)
            results = measure_until(CONFIRMING_ROUNDS)
            above = compare(results, key, label, budget, arguments.record)
        failed += above
    if arguments.record:
        with open(BUDGET, "w") as file:
            json.dump(budget, file, indent=2)
            file.write("\n")
        print(f"cost guard: budget recorded in {os.path.relpath(BUDGET, ROOT)}")
        return
    if failed:
        print("cost guard: a hot path got more expensive (" + "; ".join(failed) + "). Find the statement or the "
              "work that was added (valgrind --tool=callgrind and callgrind_annotate show where), or raise the budget "
              "in scripts/cost-guard/budget.json with a sentence in the commit that says why.")
        sys.exit(1)


if __name__ == "__main__":
    main()
