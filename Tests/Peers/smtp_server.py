#!/usr/bin/env python3
"""A real SMTP server for the email sign-in tests: aiosmtpd (from PyPI), storing every message
in a Maildir.

  smtp_server.py MAILDIR [CERT KEY]

With CERT and KEY it requires STARTTLS (RFC 3207) with that certificate, as
`python3 -m aiosmtpd --tlscert CERT --tlskey KEY` does. aiosmtpd's Controller returns from
start() once the server has answered a connection of its own; then this prints its port as its
first line, and serves until it is killed.
"""
import socket
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Mailbox

folder = sys.argv[1]
tls = None
if len(sys.argv) == 4:
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(sys.argv[2], sys.argv[3])

# The Controller needs its port before it starts: a free one, from the kernel.
probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()

controller = Controller(Mailbox(folder), hostname="127.0.0.1", port=port,
                        tls_context=tls, require_starttls=tls is not None)
controller.start()
print(port, flush=True)
threading.Event().wait()
