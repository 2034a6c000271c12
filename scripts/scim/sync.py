#!/usr/bin/env python3
"""Plays a directory's first provisioning cycle against /scim/v2, as Microsoft Entra ID runs one
("Tutorial: Develop and plan provisioning for a SCIM endpoint", user and group operations): for
each person, a filtered GET on userName, then a POST with the enterprise extension (the badge in
employeeNumber); then the groups, each created and filled by PATCH "Add" on members.

    python3 scripts/scim/sync.py BASE_URL TOKEN [--users 10000] [--groups 10] [--workers 4]

BASE_URL such as http://127.0.0.1:8080/scim/v2. Prints progress every 1,000 people and one summary
line starting with "sync:" (people, groups, seconds, requests/s, p50/p99 of a request, errors).
Exits 1 on any error answer.
"""
import argparse
import http.client
import json
import sys
import threading
import time
import urllib.parse
import uuid
from concurrent.futures import ThreadPoolExecutor

local = threading.local()
latencies = []
lock = threading.Lock()
errors = []


def request(base, token, method, path, body=None):
    parts = urllib.parse.urlsplit(base)
    connection = getattr(local, "connection", None)
    if connection is None:
        connection = local.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/scim+json", "Accept": "application/scim+json"}
    data = json.dumps(body).encode() if body is not None else None
    started = time.monotonic()
    try:
        connection.request(method, parts.path + path, body=data, headers=headers)
        response = connection.getresponse()
        payload = response.read()
    except (OSError, http.client.HTTPException):
        local.connection = None
        raise
    with lock:
        latencies.append(time.monotonic() - started)
    if response.status >= 400:
        with lock:
            errors.append(f"{method} {path}: {response.status} {payload[:200]!r}")
        return response.status, {}
    return response.status, json.loads(payload) if payload else {}


def provision(base, token, stamp, index):
    user_name = f"nurse-{stamp}-{index:05d}@hospital.example"
    query = urllib.parse.quote(f'userName eq "{user_name}"')
    status, found = request(base, token, "GET", f"/Users?filter={query}")
    if status == 200 and found.get("totalResults", 0) > 0:
        return found["Resources"][0]["id"]
    status, created = request(base, token, "POST", "/Users", {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
        "externalId": str(uuid.uuid4()),
        "userName": user_name,
        "active": True,
        "emails": [{"primary": True, "type": "work", "value": user_name}],
        "meta": {"resourceType": "User"},
        "name": {"formatted": f"Nurse {index}", "familyName": f"{index}", "givenName": "Nurse"},
        "roles": [],
        "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {"employeeNumber": f"B-{stamp}-{index:05d}", "department": "Nursing"},
    })
    return created.get("id")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base")
    parser.add_argument("token")
    parser.add_argument("--users", type=int, default=10000)
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--json", help="write the figures to this file")
    arguments = parser.parse_args()
    stamp = uuid.uuid4().hex[:8]
    started = time.monotonic()
    ids = []
    with ThreadPoolExecutor(arguments.workers) as pool:
        for done, identifier in enumerate(pool.map(lambda i: provision(arguments.base, arguments.token, stamp, i), range(arguments.users)), 1):
            ids.append(identifier)
            if done % 1000 == 0:
                print(f"  {done} people provisioned after {time.monotonic() - started:.1f} s", flush=True)
    ids = [i for i in ids if i]
    for g in range(arguments.groups):
        status, group = request(arguments.base, arguments.token, "POST", "/Groups", {
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"], "externalId": str(uuid.uuid4()),
            "displayName": f"ward-{stamp}-{g}", "meta": {"resourceType": "Group"}})
        members = ids[g::arguments.groups]
        for start in range(0, len(members), 100):
            request(arguments.base, arguments.token, "PATCH", f"/Groups/{group.get('id')}", {
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
                "Operations": [{"op": "Add", "path": "members", "value": [{"$ref": None, "value": m} for m in members[start:start + 100]]}]})
    seconds = time.monotonic() - started
    ordered = sorted(latencies)
    p50 = ordered[len(ordered) // 2] * 1000 if ordered else 0
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000 if ordered else 0
    figures = {"users": len(ids), "groups": arguments.groups, "seconds": round(seconds, 1), "requests": len(latencies),
               "requests_per_second": round(len(latencies) / seconds, 1) if seconds else 0, "p50_ms": round(p50, 1), "p99_ms": round(p99, 1),
               "errors": len(errors)}
    for error in errors[:10]:
        print("  error:", error, file=sys.stderr)
    print(f"sync: {figures['users']} people and {figures['groups']} groups in {figures['seconds']} s, {figures['requests']} requests "
          f"({figures['requests_per_second']}/s), p50 {figures['p50_ms']} ms, p99 {figures['p99_ms']} ms, {len(errors)} errors", flush=True)
    if arguments.json:
        with open(arguments.json, "w") as out:
            json.dump(figures, out, indent=2)
    return 1 if errors or len(ids) < arguments.users else 0


if __name__ == "__main__":
    sys.exit(main())
