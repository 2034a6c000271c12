#!/usr/bin/env python3
"""A flood of unauthenticated sign-in nonce requests against the callback page's latency.

Starts `handover serve` (SQLite, a temporary data directory, Sign in with Apple configured with a
throwaway key so that nonces go through their whole route), makes a logout run, then measures the
browser callback page (`GET /ulc/cb/...`) from one client:

  1. quiet: nothing else runs;
  2. flood: 16 connections send `POST /auth/apple/nonce` as fast as they can from one address.

It prints the callback page's p50 and p99 in both phases and their ratio (the target: the flood
p99 within 2x the quiet p99), and how the flood's requests were answered (429 once the address is
over its limit). Loopback only; both phases in one run, so the ratio holds on a noisy machine.

    scripts/bench-flood.py [path/to/handover] [--seconds 10]
"""
import argparse, http.client, multiprocessing, json, os, re, shutil, statistics, subprocess, sys, tempfile, threading, time, urllib.parse

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("handover", nargs="?", default=None, help="the handover binary (default: build and use the debug build)")
    parser.add_argument("--seconds", type=float, default=10, help="length of each phase (default 10)")
    parser.add_argument("--flooders", type=int, default=16, help="flooding connections (default 16)")
    args = parser.parse_args()
    binary = args.handover
    if binary is None:
        print("== swift build --product handover", flush=True)
        subprocess.run(["swift", "build", "--product", "handover"], check=True, stdout=subprocess.DEVNULL)
        binary = os.path.join(subprocess.check_output(["swift", "build", "--show-bin-path"], text=True).strip(), "handover")

    work = tempfile.mkdtemp(prefix="handover-flood-")
    key = os.path.join(work, "AuthKey.p8")
    subprocess.run(f"openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out {key}",
                   shell=True, check=True)
    server = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", os.path.join(work, "data"),
                               "--apple-client-ids", "com.example.app", "--apple-team-id", "ABCDE12345",
                               "--apple-key-id", "ABC123DEFG", "--apple-private-key-file", key],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=dict(os.environ, LOG_LEVEL="error"))
    try:
        port, admin = None, None
        for line in server.stdout:
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if m: port = int(m.group(1))
            if "Press Ctrl-C" in line:
                # The first start writes its admin key to the data directory, not to the output.
                with open(os.path.join(work, "data", "first-admin-key")) as file:
                    admin = file.read().strip()
                break
        assert port and admin, "the server did not start"
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()

        def call(method, path, body=None, key=None, conn=None):
            c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            headers = {"Content-Type": "application/json"} if body is not None else {}
            if key: headers["Authorization"] = "Bearer " + key
            c.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
            r = c.getresponse()
            data = r.read()
            if conn is None: c.close()
            return r.status, data

        status, _ = call("POST", "/api/v1/apps", {"name": "Mail", "appIDs": ["ABCDE12345.com.example.mail"],
                                                  "logoutAction": "https://mail.example.com/logout"}, admin)
        assert status == 201, status
        status, data = call("POST", "/api/v1/devices", {"name": "ward-7"}, admin)
        device = json.loads(data)
        status, data = call("POST", f"/api/v1/devices/{device['device']['id']}/logout-runs", None, device["key"])
        link = json.loads(data)["items"][0]["link"]
        success = urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["ulc-success"][0]
        page = urllib.parse.urlparse(success)
        page_path = page.path + "?" + page.query

        def measure(seconds):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            times, end = [], time.monotonic() + seconds
            while time.monotonic() < end:
                start = time.perf_counter()
                status, _ = call("GET", page_path, conn=conn)
                times.append((time.perf_counter() - start) * 1000)
                assert status < 500, status
            conn.close()
            times.sort()
            return statistics.median(times), times[int(len(times) * 0.99) - 1], len(times)

        measure(2)  # warm-up
        quiet = measure(args.seconds)
        # The flood runs in its own process (its own interpreter lock), so it does not slow the
        # measuring client inside Python; only the server and the machine are shared.
        stop = multiprocessing.Event()
        results = multiprocessing.Queue()
        flooder = multiprocessing.Process(target=flood, args=(port, args.flooders, stop, results), daemon=True)
        flooder.start()
        time.sleep(1)
        loud = measure(args.seconds)
        stop.set()
        counts = results.get(timeout=60)
        flooder.join(timeout=30)
        total = sum(counts.values())
        print(f"callback page, quiet: p50 {quiet[0]:.2f} ms, p99 {quiet[1]:.2f} ms ({quiet[2]} requests)")
        print(f"callback page, flood: p50 {loud[0]:.2f} ms, p99 {loud[1]:.2f} ms ({loud[2]} requests)")
        print(f"flood: {total} nonce requests from one address: " + ", ".join(f"{k}x{v}" for k, v in sorted(counts.items(), key=str)))
        ratio = loud[1] / quiet[1]
        print(f"p99 ratio flood/quiet: {ratio:.2f} (target <= 2.0) {'OK' if ratio <= 2.0 else 'OVER'}")
        return 0 if counts.get(429, 0) > 0 else 1
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)

def flood(port, connections, stop, results):
    """`POST /auth/apple/nonce` on `connections` keep-alive connections until `stop`; reports the statuses."""
    counts, lock = {}, threading.Lock()

    def one():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while not stop.is_set():
            try:
                conn.request("POST", "/auth/apple/nonce")
                response = conn.getresponse()
                response.read()
                status = response.status
                if response.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            except Exception:
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                status = "error"
            with lock:
                counts[status] = counts.get(status, 0) + 1

    threads = [threading.Thread(target=one, daemon=True) for _ in range(connections)]
    for t in threads: t.start()
    for t in threads: t.join()
    results.put(counts)

if __name__ == "__main__":
    sys.exit(main())
