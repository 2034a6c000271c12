#!/usr/bin/env python3
"""The storms of scripts/bench-overload.sh side by side, and a Mermaid chart of their goodput.

    scripts/bench-overload-summary.py DIR 0.5 1 2 4

Reads DIR/closed-loop.json (when there) and DIR/storm-<m>.json; prints a table (Markdown) and
writes it with a Mermaid `xychart-beta` of goodput against offered load to DIR/overload.md.
"""
import json
import os
import sys


def main():
    folder, multipliers = sys.argv[1], sys.argv[2:]
    loop_path = os.path.join(folder, "closed-loop.json")
    loop = json.load(open(loop_path)) if os.path.exists(loop_path) else None
    capacity = loop["callbacksPerSecond"] if loop else None
    rows = []
    for m in multipliers:
        path = os.path.join(folder, f"storm-{m}.json")
        if not os.path.exists(path):
            rows.append((m, None))
            continue
        rows.append((m, json.load(open(path))))
    lines = []
    if loop:
        lines.append(f"Closed loop: {loop['launchers']} launchers, {loop['handOversPerSecond']:.1f} hand-overs/s, "
                     f"{capacity:.0f} callbacks/s (p99 {loop['callbackLatency']['p99']:.1f} ms)")
        lines.append("")
    lines.append("| load | phones | offered cb/s | goodput cb/s | × closed loop | 503s | tries again | unanswered | "
                 "deadlines beyond stalls | failed by time-out | callback p99 | clean |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    chart_x, chart_y = [], []
    for m, f in rows:
        if f is None:
            lines.append(f"| {m}× | (no figures) |||||||||||")
            continue
        plan = f["plan"]
        offered = plan["devices"] * plan["apps"] / max(plan["windowSeconds"], 1)
        goodput = f["callbacks"]["perSecond"]
        ratio = f"{goodput / capacity:.2f}" if capacity else "–"
        shed = f.get("shedding") or {}
        deadlines = f["deadlines"]
        record = deadlines.get("serverRecord")
        beyond = "–"
        if record is not None and deadlines.get("stallsPlayed") is not None:
            beyond = str(max(0, record["fired"] - deadlines["stallsPlayed"]))
        unanswered = f["callbacks"]["transportErrors"]
        clean = "yes" if is_clean(f) else "no"
        lines.append(f"| {m}× | {plan['devices']:,} | {offered:,.0f} | {goodput:,.0f} | {ratio} | {shed.get('busyAnswers', 0):,} | "
                     f"{shed.get('retries', 0):,} | {unanswered:,} | {beyond} | {f['runs']['failedByTimeOut']:,} | "
                     f"{f['callbacks']['latency']['p99']:,.1f} ms | {clean} |")
        chart_x.append(f"{offered:.0f}")
        chart_y.append(f"{goodput:.0f}")
    table = "\n".join(lines)
    print(table)
    chart = ""
    if chart_x:
        top = max([float(y) for y in chart_y] + [capacity or 0, *[float(x) for x in chart_x]])
        chart = ("```mermaid\nxychart-beta\n    title \"Goodput against offered load (callbacks/s)\"\n"
                 f"    x-axis \"offered\" [{', '.join(chart_x)}]\n    y-axis \"recorded\" 0 --> {int(top * 1.1)}\n"
                 f"    bar [{', '.join(chart_y)}]\n")
        if capacity:
            chart += f"    line [{', '.join(f'{capacity:.0f}' for _ in chart_x)}]\n"
        chart += "```\n"
    with open(os.path.join(folder, "overload.md"), "w") as handle:
        handle.write(table + "\n\n" + chart)
    print(f"\nwritten: {os.path.join(folder, 'overload.md')}")


def is_clean(f):
    callbacks, runs = f["callbacks"], f["runs"]
    check_outs = f.get("checkOuts")
    return (callbacks["lost"] == 0 and runs["unfinished"] == 0 and runs["refused"] == 0 and callbacks["duplicatesAccepted"] == 0
            and f["deadlines"]["missed"] == 0 and callbacks["transportErrors"] == 0 and f.get("rateLimited", 0) == 0
            and (check_outs is None or (check_outs["refused"] == 0 and check_outs["unmatched"] == 0)))


if __name__ == "__main__":
    main()
