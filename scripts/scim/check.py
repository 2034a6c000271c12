#!/usr/bin/env python3
"""Runs scim2-tester (https://pypi.org/project/scim2-tester/, pinned in .ci/run) against a live
Handover's /scim/v2 and fails on any ERROR or CRITICAL result.

    python3 scripts/scim/check.py BASE_URL TOKEN     # BASE_URL such as http://127.0.0.1:8080/scim/v2

Prints every result that is not a success, then one summary line starting with "scim:".
"""
import sys
from collections import Counter

import httpx2
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import Status, check_server


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    base, token = sys.argv[1], sys.argv[2]
    http = httpx2.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    client = SyncSCIMClient(http)
    results = check_server(client, raise_exceptions=False)
    counts = Counter(result.status.name for result in results)
    bad = [r for r in results if r.status in (Status.ERROR, Status.CRITICAL)]
    for result in results:
        if result.status not in (Status.SUCCESS, Status.COMPLIANT):
            where = f"[{result.resource_type}] " if getattr(result, "resource_type", None) else ""
            print(f"{result.status.name:10} {where}{result.title}: {result.reason}")
    summary = ", ".join(f"{name} {count}" for name, count in sorted(counts.items()))
    print(f"scim: {len(results)} checks ({summary}); {'FAIL' if bad else 'ok'}: {len(bad)} error or critical")
    return 1 if bad or not results else 0


if __name__ == "__main__":
    sys.exit(main())
