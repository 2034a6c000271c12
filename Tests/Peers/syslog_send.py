#!/usr/bin/env python3
"""A syslog-over-TLS client (RFC 5425) for checking the rsyslogd of scripts/start-rsyslog.sh by hand.

  syslog_send.py send ADDRESS CA N [PREFIX]
      Opens one TLS connection to ADDRESS (host:port), trusting CA alone and checking the server
      certificate for that host, and sends N RFC 5424 messages with octet-counting framing
      (MSG-LEN SP SYSLOG-MSG), then closes the TLS session cleanly (close_notify). Message i
      (1..N) is

        <110>1 TIMESTAMP handover.test handover PID AUDIT_TEST [handover@32473 id="PREFIX-i" seq="i" note="q\\"b\\\\s\\]"] test event i é

      (32473 is the private enterprise number RFC 5612 reserves for examples.) Prints each
      message sent, one a line.

  syslog_send.py count LOG PREFIX N
      Reads received.log and checks that each of PREFIX-1..PREFIX-N is there exactly once, with
      MSGID AUDIT_TEST and the structured data as sent. Prints what it found as JSON; exits 1 when
      a message is missing, repeated or altered.

The Handover server's own client is Swift; this one documents the wire format and lets CI and a
developer see rsyslog at work:

  eval "$(scripts/start-rsyslog.sh 16514 /tmp/syslog)"
  Tests/Peers/syslog_send.py send "$HANDOVER_TEST_SYSLOG_ADDRESS" "$HANDOVER_TEST_SYSLOG_CA" 2 demo
  Tests/Peers/syslog_send.py count "$HANDOVER_TEST_SYSLOG_LOG" demo 2
"""
import datetime
import json
import os
import re
import socket
import ssl
import sys

NOTE = 'q"b\\s]'  # a PARAM-VALUE with the three characters RFC 5424 section 6.3.3 makes us escape


def sd_escape(value):
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("]", "\\]")


def message(prefix, i):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    sd = '[handover@32473 id="%s-%d" seq="%d" note="%s"]' % (prefix, i, i, sd_escape(NOTE))
    return "<110>1 %s handover.test handover %d AUDIT_TEST %s test event %d \u00e9" % (now, os.getpid(), sd, i)


def send(address, ca, count, prefix="test"):
    host, port = address.rsplit(":", 1)
    context = ssl.create_default_context(cafile=ca)
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        tls = context.wrap_socket(raw, server_hostname=host)
        for i in range(1, count + 1):
            text = message(prefix, i)
            data = text.encode("utf-8")
            tls.sendall(b"%d " % len(data) + data)  # RFC 5425 section 4.3: octet counting
            print(text, flush=True)
        try:
            tls.unwrap()  # close_notify; rsyslog closes the TCP connection without answering one
        except (ssl.SSLError, OSError):
            pass


# <PRI>VERSION SP TIMESTAMP SP HOSTNAME SP APP-NAME SP PROCID SP MSGID SP STRUCTURED-DATA [SP MSG]
HEADER = re.compile(r"^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) ")
SD_ELEMENT = re.compile(r'\[([^ =\]"]+)((?: [^ =\]"]+="(?:[^"\\\]]|\\["\\\]])*")*)\]')
SD_PARAM = re.compile(r' ([^ =\]"]+)="((?:[^"\\\]]|\\["\\\]])*)"')


def parse(line):
    """One received.log line as RFC 5424, with a strict STRUCTURED-DATA (RFC 5424 section 6.3)."""
    match = HEADER.match(line)
    if not match:
        raise ValueError("not an RFC 5424 header: %r" % line)
    pri, timestamp, hostname, app, procid, msgid = match.groups()
    rest = line[match.end():]
    elements = {}
    if rest.startswith("- ") or rest == "-":
        rest = rest[2:]
    else:
        while rest.startswith("["):
            element = SD_ELEMENT.match(rest)
            if not element:
                raise ValueError("malformed STRUCTURED-DATA: %r" % rest)
            params = {k: re.sub(r'\\(["\\\]])', r"\1", v) for k, v in SD_PARAM.findall(element.group(2))}
            elements[element.group(1)] = params
            rest = rest[element.end():]
        if not elements:
            raise ValueError("no STRUCTURED-DATA: %r" % rest)
        rest = rest[1:] if rest.startswith(" ") else rest
    return {"pri": int(pri), "timestamp": timestamp, "hostname": hostname, "app_name": app,
            "procid": procid, "msgid": msgid, "sd": elements, "msg": rest}


def count(log, prefix, n):
    wanted = {"%s-%d" % (prefix, i): 0 for i in range(1, n + 1)}
    problems = []
    with open(log, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            try:
                parsed = parse(line)
            except ValueError as error:
                if 'id="%s-' % prefix in line:  # one of ours, mangled; other lines are not our business
                    problems.append(str(error))
                continue
            params = parsed["sd"].get("handover@32473", {})
            ident = params.get("id")
            if ident not in wanted:
                continue
            wanted[ident] += 1
            seq = ident.rsplit("-", 1)[1]
            if parsed["msgid"] != "AUDIT_TEST" or params.get("seq") != seq or params.get("note") != NOTE \
                    or parsed["pri"] != 110 or parsed["msg"] != "test event %s \u00e9" % seq:
                problems.append("altered: %r" % line)
    missing = [k for k, v in wanted.items() if v == 0]
    repeated = [k for k, v in wanted.items() if v > 1]
    result = {"expected": n, "found": sum(1 for v in wanted.values() if v), "missing": missing,
              "repeated": repeated, "problems": problems}
    print(json.dumps(result))
    return not missing and not repeated and not problems


if __name__ == "__main__":
    if len(sys.argv) in (5, 6) and sys.argv[1] == "send":
        send(sys.argv[2], sys.argv[3], int(sys.argv[4]), *(sys.argv[5:]))
    elif len(sys.argv) == 5 and sys.argv[1] == "count":
        sys.exit(0 if count(sys.argv[2], sys.argv[3], int(sys.argv[4])) else 1)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
