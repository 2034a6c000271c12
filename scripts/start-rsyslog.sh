#!/usr/bin/env bash
# Starts a private rsyslogd on 127.0.0.1 that takes syslog over TLS (RFC 5425) for the SIEM tests,
# and prints shell lines to eval:
#
#   eval "$(scripts/start-rsyslog.sh PORT DIR)"   # installs rsyslog and rsyslog-gnutls if missing
#   scripts/stop-rsyslog.sh DIR
#
# prints
#   export HANDOVER_TEST_SYSLOG_ADDRESS=127.0.0.1:PORT
#   export HANDOVER_TEST_SYSLOG_CA=DIR/ca.pem          the test CA; the client trusts it alone
#   export HANDOVER_TEST_SYSLOG_LOG=DIR/received.log   every message received, one a line
#   export HANDOVER_RSYSLOG_PID=PID
#   export HANDOVER_RSYSLOG_DIR=DIR
#
# Not the system's rsyslog: its own configuration (DIR/rsyslog.conf), pid file (DIR/rsyslogd.pid)
# and work directory (DIR/work); it runs as whoever runs this script (root is not needed) and
# loads imtcp alone, so it opens no /dev/log and reads no kernel log. DIR is created when missing
# and kept by stop-rsyslog.sh: starting again on the same DIR reuses its certificates (a client
# that trusts DIR/ca.pem keeps trusting the server across a restart) and appends to received.log.
#
# Transport: TCP on 127.0.0.1:PORT, TLS through rsyslog's gtls network stream driver (GnuTLS),
# StreamDriver.Mode="1" (TLS only) and StreamDriver.AuthMode="anon" (no client certificate asked
# for). The server certificate (DIR/server.pem, EC P-256, signed by DIR/ca.pem, 825 days) has
# subjectAltName IP:127.0.0.1 and DNS:localhost, extendedKeyUsage serverAuth; rsyslog 8.2302 on
# Debian 12 negotiates TLS 1.2 (ECDHE-ECDSA-AES256-GCM-SHA384 with Python's client).
#
# Framing: RFC 5425 octet counting, MSG-LEN SP SYSLOG-MSG, MSG-LEN in decimal bytes of the
# SYSLOG-MSG, which carries no trailing LF; several frames may follow each other on one
# connection. Messages up to 64 KiB (maxMessageSize="64k"). imtcp also accepts LF-terminated
# frames (a frame that does not start with a digit); the client must not rely on it.
#
# Parsing: RFC 5424 only (rsyslog's built-in pmrfc5424, parser "rsyslog.rfc5424"). The exact
# message format rsyslog accepted in the end-to-end check (Tests/Peers/syslog_send.py sends it):
#
#   <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID [SD-ID PARAM="VALUE" ...][...] MSG
#   <110>1 2024-05-01T12:34:56.789Z handover.example handover 4242 AUDIT_SIGNIN [handover@32473 event="sign_in" id="e-1" user="a\"b"] user signed in
#
# PRI 110 = facility 13 (log audit) * 8 + severity 6 (informational); TIMESTAMP RFC 3339 with Z or
# an offset and up to 6 fractional digits; "-" for a nil HOSTNAME, APP-NAME, PROCID, MSGID or
# STRUCTURED-DATA; in PARAM-VALUE, '"', '\' and ']' escaped with '\'. MSG may start with a UTF-8
# BOM (EF BB BF), which rsyslog keeps in MSG. A message that is not RFC 5424 (pmrfc5424 refuses
# anything that does not start with <PRI>1 SP) goes to DIR/rejected.log (its raw text), never to
# received.log. pmrfc5424 is lenient past the header: a malformed STRUCTURED-DATA is not refused
# but comes out mangled in received.log, so a test checks the SD it reads with a strict parser.
#
# received.log, one line a message, in arrival order, flushed at the end of each batch
# (flushOnTXEnd="on", asyncWriting="off"): the message rebuilt from the fields pmrfc5424 parsed,
#
#   <%pri%>%protocol-version% %timereported:::date-rfc3339% %hostname% %app-name% %procid% %msgid% %structured-data% %msg%
#   <110>1 2024-05-01T12:34:56.789Z handover.example handover 4242 AUDIT_SIGNIN [handover@32473 event="sign_in" id="e-1" user="a\"b"] user signed in
#
# so each line is itself an RFC 5424 message, and MSGID and STRUCTURED-DATA in it are what rsyslog
# parsed (not a copy of the raw bytes). TIMESTAMP is written as sent (Z or offset, same fraction);
# a message without MSG ends in the space after its STRUCTURED-DATA.
# Control characters in the message (LF, CR, TAB...) are escaped on receipt as #ooo (octal: LF is
# #012), so a message never spans two lines. DIR/raw.log has the same messages as received as
# %rawmsg% (the SYSLOG-MSG without its length), one a line; rsyslogd's own messages (start, TLS
# errors, refused messages) go to DIR/rsyslogd.log.
set -euo pipefail
port=${1:?usage: scripts/start-rsyslog.sh PORT DIR}
dir=${2:?usage: scripts/start-rsyslog.sh PORT DIR}
gtls_module() { ls /usr/lib/*/rsyslog/lmnsd_gtls.so /usr/lib/rsyslog/lmnsd_gtls.so 2>/dev/null | head -1; }
if ! command -v rsyslogd >/dev/null || [ -z "$(gtls_module)" ] || ! command -v openssl >/dev/null; then
  echo "installing rsyslog, rsyslog-gnutls and openssl with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
  $sudo apt-get update -qq >&2 && $sudo apt-get install -y -qq --no-install-recommends rsyslog rsyslog-gnutls openssl >/dev/null
fi
rsyslogd=$(command -v rsyslogd || echo /usr/sbin/rsyslogd)
mkdir -p "$dir/work"
dir=$(cd "$dir" && pwd)

if [ -f "$dir/rsyslogd.pid" ] && kill -0 "$(cat "$dir/rsyslogd.pid")" 2>/dev/null; then
  echo "start-rsyslog.sh: an rsyslogd (pid $(cat "$dir/rsyslogd.pid")) already runs on $dir; scripts/stop-rsyslog.sh $dir first" >&2
  exit 1
fi

# The test CA and the server certificate, made once per DIR.
if [ ! -s "$dir/ca.pem" ] || [ ! -s "$dir/server.pem" ] || [ ! -s "$dir/server-key.pem" ]; then
  (
    cd "$dir"
    umask 077
    openssl ecparam -name prime256v1 -genkey -noout -out ca-key.pem
    openssl req -x509 -new -key ca-key.pem -out ca.pem -days 825 -subj "/CN=Handover test syslog CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
    openssl ecparam -name prime256v1 -genkey -noout -out server-key.pem
    openssl req -new -key server-key.pem -subj "/CN=localhost" -out server.csr
    printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=critical,CA:FALSE" \
      "keyUsage=critical,digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 825 \
      -extfile server.ext -out server.pem 2>/dev/null
    chmod 644 ca.pem server.pem
    rm -f server.csr server.ext
  ) >&2
fi

cat >"$dir/rsyslog.conf" <<EOF
# Written by scripts/start-rsyslog.sh: a private rsyslogd for the SIEM tests.
global(
  workDirectory="$dir/work"
  maxMessageSize="64k"
  processInternalMessages="on"
  parser.escapeControlCharactersOnReceive="on"
  defaultNetstreamDriver="gtls"
  defaultNetstreamDriverCAFile="$dir/ca.pem"
  defaultNetstreamDriverCertFile="$dir/server.pem"
  defaultNetstreamDriverKeyFile="$dir/server-key.pem"
)
module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")

template(name="handoverRFC5424" type="string"
  string="<%pri%>%protocol-version% %timereported:::date-rfc3339% %hostname% %app-name% %procid% %msgid% %structured-data% %msg%\n")
template(name="handoverRaw" type="string" string="%rawmsg%\n")

ruleset(name="siem" parser=["rsyslog.rfc5424"]) {
  if \$protocol-version == "1" then {
    action(type="omfile" file="$dir/received.log" template="handoverRFC5424" flushOnTXEnd="on" asyncWriting="off")
    action(type="omfile" file="$dir/raw.log" template="handoverRaw" flushOnTXEnd="on" asyncWriting="off")
  } else {
    action(type="omfile" file="$dir/rejected.log" template="handoverRaw" flushOnTXEnd="on" asyncWriting="off")
  }
}
input(type="imtcp" address="127.0.0.1" port="$port" ruleset="siem")

# rsyslogd's own messages (the default ruleset has nothing else).
action(type="omfile" file="$dir/rsyslogd.log" flushOnTXEnd="on" asyncWriting="off")
EOF
touch "$dir/received.log" "$dir/raw.log" "$dir/rejected.log"
"$rsyslogd" -N1 -f "$dir/rsyslog.conf" >"$dir/rsyslogd.check" 2>&1 || { cat "$dir/rsyslogd.check" >&2; exit 1; }
rm -f "$dir/rsyslogd.pid"
touch "$dir/rsyslogd.log"
log_offset=$(($(stat -c %s "$dir/rsyslogd.log") + 1))   # rsyslogd.log is appended to across restarts
setsid "$rsyslogd" -n -f "$dir/rsyslog.conf" -i "$dir/rsyslogd.pid" </dev/null >>"$dir/rsyslogd.stderr" 2>&1 &
pid=$!

# Ready when rsyslogd has logged its start (after it set up its listener, or logged that it could
# not) and a TLS handshake succeeds, the certificate verifying against ca.pem for 127.0.0.1 (a
# handshake without data writes nothing to received.log).
since_start() { tail -c "+$log_offset" "$dir/rsyslogd.log"; }
fail() { echo "start-rsyslog.sh: $1" >&2; since_start >&2; kill "$pid" 2>/dev/null; exit 1; }
for _ in $(seq 1 100); do
  kill -0 "$pid" 2>/dev/null || fail "rsyslogd exited:"
  grep -q '\] start$' < <(since_start) && break
  sleep 0.1
done
grep -q "Could not create tcp listener" < <(since_start) && fail "rsyslogd cannot listen on 127.0.0.1:$port:"
for _ in $(seq 1 50); do
  kill -0 "$pid" 2>/dev/null || fail "rsyslogd exited:"
  if timeout 5 openssl s_client -connect "127.0.0.1:$port" -CAfile "$dir/ca.pem" -verify_return_error -verify_ip 127.0.0.1 \
    -brief </dev/null >/dev/null 2>&1; then
    echo "export HANDOVER_TEST_SYSLOG_ADDRESS=127.0.0.1:$port"
    echo "export HANDOVER_TEST_SYSLOG_CA=$dir/ca.pem"
    echo "export HANDOVER_TEST_SYSLOG_LOG=$dir/received.log"
    echo "export HANDOVER_RSYSLOG_PID=$pid"
    echo "export HANDOVER_RSYSLOG_DIR=$dir"
    exit 0
  fi
  sleep 0.1
done
fail "rsyslogd (pid $pid) does not answer TLS on 127.0.0.1:$port"
