#!/usr/bin/env python3
"""Makes the upgrade test's fixtures with a released `handover` binary (issue 41).

A release's binary serves a fresh SQLite data directory, and a fresh PostgreSQL database when one
is given, and this script uses each as an IT team would, over the HTTP API: three apps (a ULC
app, an x-callback app, a launcher), a webhook, a registered backend, four devices at two sites,
each checked out by badge (a loopback badge lookup), a completed hand-over, a failed one and its
device back in service with a note. Then the server stops, and the script writes into --out:

    sqlite/handover.sqlite, sqlite/token-encryption.key   the data directory
    postgres.sql, postgres-token-encryption.key            pg_dump --no-owner --no-privileges
    expected.json                                          the keys it used, and every table's rows
                                                           as text (SQLite: quote(); PostgreSQL:
                                                           row(...)::text), for the test to compare

    python3 scripts/make-upgrade-fixture.py --binary handover-0.9.0 --out Tests/Fixtures/upgrade/0.9.0 \\
        --postgres postgres://handover@127.0.0.1:54377/postgres

Tests/HandoverCLITests/UpgradeTests.swift opens the fixtures with this build. Every later release
adds its own folder, made by its own binary.
"""
import argparse
import http.server
import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

BADGES = {"04A2241C": "avery", "04B7731D": "blake", "04C1180E": "casey", "04D9924F": "devon"}


class BadgeLookup(http.server.BaseHTTPRequestHandler):
    """The customer's badge directory: GET ?id=<badge> answers {"user": "<login>"} (BadgeLookup.swift)."""

    def do_GET(self):
        badge = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("id", [""])[0]
        user = BADGES.get(badge)
        body = json.dumps({"user": user}).encode() if user else b"{}"
        self.send_response(200 if user else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def call(base, method, path, key, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            text = answer.read().decode()
            return json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        sys.exit(f"make-upgrade-fixture: {method} {path} answered {error.code}: {error.read().decode()[:500]}")


def serve(binary, data, badge_url, database=None):
    args = [binary, "serve", "--port", "0", "--data-dir", str(data), "--badge-lookup-url", badge_url]
    if database:
        args += ["--database", database]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = key = None
    deadline = time.time() + 60
    lines = []
    while time.time() < deadline and (base is None or key is None):
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("Handover is listening on "):
            base = line.split()[4]
        if line.startswith("  hk_") or (lines[-2:-1] and "admin key was created" in lines[-2]):
            key = line.strip()  # a release that printed its first admin key
        elif line.startswith("Press Ctrl-C") and key is None and (Path(data) / "first-admin-key").exists():
            key = (Path(data) / "first-admin-key").read_text().strip()  # one that writes it to the data directory
    if base is None or key is None:
        process.kill()
        sys.exit("make-upgrade-fixture: the server did not start:\n" + "".join(lines))
    threading.Thread(target=lambda: process.stdout.read(), daemon=True).start()
    return process, base, key


def populate(base, key):
    """Uses the server as an IT team would; returns what the test checks."""
    apps = [
        call(base, "POST", "/api/v1/apps", key, {"name": "Chart", "role": "target", "appIDs": ["A1B2C3D4E5.org.example.chart"],
                                                  "logoutAction": "https://chart.example.org/logout", "deadlineSeconds": 20}),
        call(base, "POST", "/api/v1/apps", key, {"name": "Notes", "role": "target", "appIDs": ["A1B2C3D4E5.org.example.notes"],
                                                  "logoutAction": "notes://x-callback-url/logout", "logoutMethod": "x-callback"}),
        call(base, "POST", "/api/v1/apps", key, {"name": "Launcher", "role": "launcher", "appIDs": ["A1B2C3D4E5.org.example.launcher"]}),
    ]
    call(base, "POST", "/api/v1/webhooks", key, {"url": "https://mdm.example.com/hooks/handover", "events": ["run.completed", "run.failed"]})
    call(base, "POST", "/oauth/register", key, {"client_name": "Chart backend",
                                                 "backchannel_logout_uri": "https://chart-api.example.org/oidc/backchannel-logout"})
    devices = []
    for index, (badge, site) in enumerate(zip(BADGES, ["ICU", "ICU", "ward-7", "ward-7"])):
        device = call(base, "POST", "/api/v1/devices", key, {"name": f"ward-phone-{index}", "serialNumber": f"F2LXK3Q1N7{index}M",
                                                              "site": site})
        call(base, "POST", f"/api/v1/devices/{device['device']['id']}/custody", key, {"badge": badge})
        devices.append(device)
    runs = []
    for index, device in enumerate(devices[:2]):
        run = call(base, "POST", f"/api/v1/devices/{device['device']['id']}/logout-runs", device["key"], {})
        for item in run["items"]:
            query = urllib.parse.parse_qs(urllib.parse.urlparse(item["link"]).query)
            outcome = "ulc-error" if index == 1 and item["app"] == "Notes" else "ulc-success"
            url = query.get(outcome, query.get(outcome.replace("ulc-", "x-"), [""]))[0]
            call(base, "POST", f"/api/v1/logout-runs/{run['id']}/callbacks", device["key"], {"url": url})
        runs.append(call(base, "GET", f"/api/v1/logout-runs/{run['id']}", key))
    call(base, "POST", f"/api/v1/devices/{devices[1]['device']['id']}/back-in-service", key,
         {"note": "Notes signed out by hand at the IT desk; ticket 4711."})
    return {"adminKey": key, "devices": [{"id": d["device"]["id"], "name": d["device"]["name"], "key": d["key"]} for d in devices],
            "apps": [a["id"] for a in apps], "runs": [{"id": r["id"], "status": r["status"]} for r in runs]}


def stop(process):
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)


def sqlite_rows(path):
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        rows = {}
        for table in tables:
            columns = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
            # Reals as whole microseconds: quote() and printf() round them differently from one SQLite version to the next.
            text = " || '|' || ".join(f"""CASE typeof("{c}") WHEN 'real' THEN CAST("{c}" * 1000000 AS INTEGER) ELSE quote("{c}") END""" for c in columns)
            rows[table] = {"columns": columns, "rows": sorted(r[0] for r in db.execute(f'SELECT {text} FROM "{table}"'))}
        return rows


def postgres_rows(url):
    def psql(sql):
        return subprocess.run(["psql", url, "-XAtqc", sql], check=True, capture_output=True, text=True).stdout.splitlines()
    rows = {}
    for table in psql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name"):
        columns = psql(f"SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = '{table}' "
                       "ORDER BY ordinal_position")
        quoted = ", ".join(f'"{c}"' for c in columns)
        # Times as text in one zone (the test reads them in UTC too).
        rows[table] = {"columns": columns, "rows": sorted(psql(f"SET TIME ZONE 'UTC'; SELECT row({quoted})::text FROM \"{table}\""))}
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the released handover binary")
    parser.add_argument("--out", required=True, help="the fixture folder, Tests/Fixtures/upgrade/<version>")
    parser.add_argument("--postgres", help="a PostgreSQL server's URL; a database handover_fixture is made there and dropped")
    options = parser.parse_args()
    out = Path(options.out)
    version = subprocess.run([options.binary, "--version"], check=True, capture_output=True, text=True).stdout.strip()
    lookup = http.server.ThreadingHTTPServer(("127.0.0.1", 0), BadgeLookup)
    threading.Thread(target=lookup.serve_forever, daemon=True).start()
    badge_url = f"http://127.0.0.1:{lookup.server_address[1]}/badges"
    # When the fixture was made: the test's clock starts a minute later, so that what the
    # release wrote with a lifetime (signing keys, sessions) is still alive when it opens.
    expected = {"version": version, "madeAt": int(time.time())}
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch) / "sqlite"
        print(f"== {version} on SQLite")
        process, base, key = serve(options.binary, data, badge_url)
        expected["sqlite"] = populate(base, key)
        stop(process)
        (out / "sqlite").mkdir(parents=True, exist_ok=True)
        (out / "sqlite" / "handover.sqlite").unlink(missing_ok=True)
        # One file, compacted: what the server wrote, its log folded in.
        db = sqlite3.connect(data / "handover.sqlite")
        db.execute(f"VACUUM INTO '{out / 'sqlite' / 'handover.sqlite'}'")
        db.close()
        shutil.copy(data / "token-encryption.key", out / "sqlite" / "token-encryption.key")
        expected["sqlite"]["tables"] = sqlite_rows(out / "sqlite" / "handover.sqlite")
        if options.postgres:
            print(f"== {version} on PostgreSQL")
            admin = options.postgres
            subprocess.run(["psql", admin, "-qc", "DROP DATABASE IF EXISTS handover_fixture"], check=True)
            subprocess.run(["psql", admin, "-qc", "CREATE DATABASE handover_fixture"], check=True)
            url = admin.rsplit("/", 1)[0] + "/handover_fixture"
            pg_data = Path(scratch) / "postgres"
            process, base, key = serve(options.binary, pg_data, badge_url, database=url)
            expected["postgres"] = populate(base, key)
            stop(process)
            shutil.copy(pg_data / "token-encryption.key", out / "postgres-token-encryption.key")
            expected["postgres"]["tables"] = postgres_rows(url)
            subprocess.run(["pg_dump", "--no-owner", "--no-privileges", "-f", str(out / "postgres.sql"), url], check=True)
            subprocess.run(["psql", admin, "-qc", "DROP DATABASE handover_fixture"], check=True)
    (out / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    lookup.shutdown()
    print(f"make-upgrade-fixture: wrote {out} ({version})")


if __name__ == "__main__":
    main()
