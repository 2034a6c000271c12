#!/usr/bin/env python3
"""Loopback stand-ins for the two MDM vendors Handover talks to, written from their public API
references (docs/mdm.md cites every page). Each answers as the vendor documents: token endpoint,
device lookup by serial number, command endpoints, and the vendor's error bodies.

  mdm_vendor.py jamf   CLIENT_ID CLIENT_SECRET DEVICES
  mdm_vendor.py intune CLIENT_ID CLIENT_SECRET DEVICES

Prints the port it listens on (127.0.0.1 only) as its first line, then serves until killed.

DEVICES is a comma-separated list of SERIAL=ID pairs (Jamf: ID is the mobile device id, its
managementId is derived from it; Intune: ID is the managedDevice id).

Jamf Pro (https://developer.jamf.com/jamf-pro):
  POST /api/oauth/token                     client credentials, form-encoded -> access_token, expires_in
  GET  /api/v2/mobile-devices/detail        ?section=GENERAL&section=HARDWARE&filter=hardware.serialNumber=="X"
  POST /api/v2/mdm/commands                 {"clientData":[{"managementId":..}],"commandData":{"commandType":..}}
                                            (https://developer.jamf.com/jamf-pro/reference/post_v2-mdm-commands;
                                            DEVICE_LOCK, ENABLE_LOST_MODE, DISABLE_LOST_MODE, ERASE_DEVICE; Return to
                                            Service is ERASE_DEVICE with "returnToService": {"enabled": true,
                                            "wifiProfileData": base64, "mdmProfileData": base64?},
                                            https://developer.jamf.com/jamf-pro/docs/return-to-service-1)
  GET  /api/v2/mdm/commands                 ?filter=clientManagementId==..;command==..;dateSent=ge=.. -> results
  errors: {"httpStatus": N, "errors": [{"code": .., "description": .., "id": "0", "field": null}]}

Microsoft Intune through Microsoft Graph (https://learn.microsoft.com/graph):
  POST /{tenant}/oauth2/v2.0/token          client credentials, scope https://graph.microsoft.com/.default
  GET  /v1.0/deviceManagement/managedDevices?$filter=serialNumber eq 'X'
  POST /v1.0/deviceManagement/managedDevices/{id}/remoteLock     204
  POST /v1.0/deviceManagement/managedDevices/{id}/wipe           204
  POST /beta/deviceManagement/managedDevices/{id}/enableLostMode 204
  POST /beta/deviceManagement/managedDevices/{id}/disableLostMode 204
       (https://learn.microsoft.com/graph/api/intune-devices-manageddevice-disablelostmode?view=graph-rest-beta)
  GET  /v1.0/deviceManagement/managedDevices/{id}               the device, with its deviceActionResults
  errors: {"error": {"code": .., "message": .., "innerError": {"date": .., "request-id": ..}}}

Test controls (not part of either vendor's API):
  POST /_control {"expire_tokens": true}   every token issued so far answers 401 from now on
  POST /_control {"fail_next": [429, 503]} the next command requests answer these statuses
                                           (429 with Retry-After: 2)
  POST /_control {"delay_accepted": 5}     an accepted command is answered 5 s later (a crash
                                           in between leaves the sender in doubt)
  GET  /_log                               {"tokens_issued": n, "requests": [{method, path, query, body, authorization}],
                                            "accepted": [{path, body}] (the commands answered 201 or 204)}
"""
import datetime
import json
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class State:
    def __init__(self, vendor, client_id, secret, devices):
        self.vendor = vendor
        self.client_id = client_id
        self.secret = secret
        self.devices = devices  # serial -> id
        self.valid_tokens = set()
        self.tokens_issued = 0
        self.fail_next = []
        self.delay_accepted = 0.0  # seconds an accepted command waits before its answer
        self.requests = []
        self.accepted = []  # the commands answered 201/204: {"path", "body"}
        self.lock = threading.Lock()


def serve(vendor, client_id, secret, devices_text):
    devices = {}
    for pair in filter(None, devices_text.split(",")):
        serial, _, device_id = pair.partition("=")
        devices[serial] = device_id
    state = State(vendor, client_id, secret, devices)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, status, body=None, headers=None):
            data = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            if body is not None:
                self.send_header("Content-Type", "application/json; charset=UTF-8")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def error(self, status, code, message, headers=None):
            if state.vendor == "jamf":
                body = {"httpStatus": status, "errors": [{"code": code, "description": message, "id": "0", "field": None}]}
            else:
                body = {"error": {"code": code, "message": message,
                                  "innerError": {"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "request-id": str(uuid.uuid4()),
                                                 "client-request-id": str(uuid.uuid4())}}}
            self.answer(status, body, headers)

        def body(self):
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length).decode() if length else ""

        def record(self, body):
            url = urllib.parse.urlsplit(self.path)
            with state.lock:
                state.requests.append({"method": self.command, "path": url.path, "query": urllib.parse.unquote(url.query),
                                       "body": body, "authorization": self.headers.get("Authorization", "")})

        def authorized(self):
            value = self.headers.get("Authorization", "")
            token = value[len("Bearer "):] if value.startswith("Bearer ") else None
            with state.lock:
                ok = token in state.valid_tokens
            if not ok:
                if state.vendor == "jamf":
                    self.error(401, "INVALID_TOKEN", "Unauthorized")
                else:
                    self.error(401, "InvalidAuthenticationToken", "Access token has expired or is not yet valid.")
            return ok

        def scripted_failure(self):
            with state.lock:
                status = state.fail_next.pop(0) if state.fail_next else None
            if status is None:
                return False
            if status == 429:
                code = "TOO_MANY_REQUESTS" if state.vendor == "jamf" else "TooManyRequests"
                self.error(429, code, "Too many requests; retry later.", {"Retry-After": "2"})
            else:
                code = "SERVER_ERROR" if state.vendor == "jamf" else "ServiceUnavailable"
                self.error(status, code, "The service is unavailable.")
            return True

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            if url.path == "/_log":
                with state.lock:
                    return self.answer(200, {"tokens_issued": state.tokens_issued, "requests": state.requests, "accepted": state.accepted})
            self.record("")
            query = urllib.parse.parse_qs(url.query)
            if state.vendor == "jamf" and url.path == "/api/v2/mobile-devices/detail":
                if not self.authorized():
                    return
                wanted = (query.get("filter") or [""])[0]
                results = []
                for serial, device_id in state.devices.items():
                    if wanted == 'hardware.serialNumber=="%s"' % serial:
                        results.append({"mobileDeviceId": device_id, "deviceType": "iOS",
                                        "hardware": {"serialNumber": serial},
                                        "general": {"displayName": "device " + device_id, "managementId": management_id(device_id)}})
                return self.answer(200, {"totalCount": len(results), "results": results})
            if state.vendor == "intune" and url.path == "/v1.0/deviceManagement/managedDevices":
                if not self.authorized():
                    return
                wanted = (query.get("$filter") or [""])[0]
                value = [{"id": device_id, "serialNumber": serial, "deviceName": "device " + serial, "operatingSystem": "iOS"}
                         for serial, device_id in state.devices.items() if wanted == "serialNumber eq '%s'" % serial]
                return self.answer(200, {"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#deviceManagement/managedDevices",
                                         "value": value})
            if state.vendor == "jamf" and url.path == "/api/v2/mdm/commands":
                if not self.authorized():
                    return
                wanted = {}
                for clause in (query.get("filter") or [""])[0].split(";"):
                    if "=ge=" in clause:
                        name, value = clause.split("=ge=", 1)
                        wanted[name] = ("ge", value)
                    elif "==" in clause:
                        name, value = clause.split("==", 1)
                        wanted[name] = ("eq", value)
                if not wanted:
                    return self.error(400, "INVALID_FIELD", "the filter needs at least one field")
                with state.lock:
                    commands = list(state.accepted)
                results = []
                for command in commands:
                    fields = {"clientManagementId": command.get("managementId"), "command": command.get("commandType"),
                              "uuid": command.get("uuid"), "dateSent": command.get("dateSent")}
                    ok = True
                    for name, (op, value) in wanted.items():
                        if op == "eq" and fields.get(name) != value:
                            ok = False
                        if op == "ge" and (fields.get(name) is None or parse_time(fields[name]) < parse_time(value)):
                            ok = False
                    if ok:
                        results.append({"uuid": command["uuid"], "dateSent": command["dateSent"], "client": {"managementId": command["managementId"]},
                                        "commandState": "PENDING", "commandType": command["commandType"]})
                return self.answer(200, {"totalCount": len(results), "results": results})
            parts = url.path.split("/")
            if state.vendor == "intune" and len(parts) == 5 and parts[1] == "v1.0" and parts[2] == "deviceManagement" \
                    and parts[3] == "managedDevices" and parts[4] in state.devices.values():
                if not self.authorized():
                    return
                serial = next(s for s, d in state.devices.items() if d == parts[4])
                with state.lock:
                    actions = [{"actionName": c["action"], "actionState": "pending", "startDateTime": c["dateSent"],
                                "lastUpdatedDateTime": c["dateSent"]} for c in state.accepted if c.get("deviceId") == parts[4]]
                return self.answer(200, {"id": parts[4], "serialNumber": serial, "deviceActionResults": actions})
            self.error(404, "NOT_FOUND" if state.vendor == "jamf" else "ResourceNotFound", "No such resource: " + url.path)

        def do_POST(self):
            url = urllib.parse.urlsplit(self.path)
            body = self.body()
            if url.path == "/_control":
                control = json.loads(body or "{}")
                with state.lock:
                    if control.get("expire_tokens"):
                        state.valid_tokens.clear()
                    state.fail_next.extend(control.get("fail_next", []))
                    if "delay_accepted" in control:
                        state.delay_accepted = float(control["delay_accepted"])
                return self.answer(200, {"ok": True})
            self.record(body)
            if (state.vendor == "jamf" and url.path == "/api/oauth/token") or \
               (state.vendor == "intune" and url.path.endswith("/oauth2/v2.0/token")):
                form = urllib.parse.parse_qs(body)
                if form.get("grant_type") != ["client_credentials"] or form.get("client_id") != [state.client_id] \
                        or form.get("client_secret") != [state.secret]:
                    if state.vendor == "jamf":
                        return self.answer(401, {"error": "invalid_client"})
                    return self.answer(401, {"error": "invalid_client", "error_description": "AADSTS7000215: Invalid client secret provided.",
                                             "error_codes": [7000215]})
                if state.vendor == "intune" and form.get("scope") != ["https://graph.microsoft.com/.default"]:
                    return self.answer(400, {"error": "invalid_scope", "error_description": "AADSTS1002012: The provided value for scope is not valid."})
                token = str(uuid.uuid4())
                with state.lock:
                    state.valid_tokens.add(token)
                    state.tokens_issued += 1
                if state.vendor == "jamf":
                    return self.answer(200, {"access_token": token, "scope": "api-role:1", "token_type": "Bearer", "expires_in": 59})
                return self.answer(200, {"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599, "access_token": token})
            if not self.authorized():
                return
            if self.scripted_failure():
                return
            if state.vendor == "jamf" and url.path == "/api/v2/mdm/commands":
                request = json.loads(body or "{}")
                known = {management_id(d) for d in state.devices.values()}
                clients = request.get("clientData") or []
                command = (request.get("commandData") or {}).get("commandType")
                if not clients or any(c.get("managementId") not in known for c in clients) or \
                        command not in ("DEVICE_LOCK", "ENABLE_LOST_MODE", "DISABLE_LOST_MODE", "ERASE_DEVICE"):
                    return self.error(400, "INVALID_FIELD", "clientData or commandData is not valid")
                service = (request.get("commandData") or {}).get("returnToService")
                if service is not None:
                    # Return to Service: enabled must be true, and the profiles base64 of a configuration profile.
                    if command != "ERASE_DEVICE" or service.get("enabled") is not True or not valid_profile(service.get("wifiProfileData")) \
                            or ("mdmProfileData" in service and not valid_profile(service.get("mdmProfileData"))):
                        return self.error(400, "INVALID_FIELD", "commandData.returnToService is not valid")
                command_id = str(uuid.uuid4())
                with state.lock:
                    state.accepted.append({"path": url.path, "body": body, "uuid": command_id, "managementId": clients[0].get("managementId"),
                                           "commandType": command, "dateSent": now_text()})
                time.sleep(state.delay_accepted)
                return self.answer(201, [{"id": command_id, "href": "/api/v2/mdm/commands?filter=uuid==" + command_id}])
            if state.vendor == "intune":
                parts = url.path.split("/")
                # /v1.0|beta/deviceManagement/managedDevices/{id}/{action}
                if len(parts) == 6 and parts[2] == "deviceManagement" and parts[3] == "managedDevices" and parts[4] in state.devices.values():
                    version, action = parts[1], parts[5]
                    if (version, action) in (("v1.0", "remoteLock"), ("v1.0", "wipe"), ("beta", "enableLostMode"), ("beta", "disableLostMode")):
                        with state.lock:
                            state.accepted.append({"path": url.path, "body": body, "deviceId": parts[4], "action": action,
                                                   "dateSent": now_text()})
                        time.sleep(state.delay_accepted)
                        return self.answer(204)
                self.error(404, "ResourceNotFound", "Resource not found for the segment '%s'." % url.path)
                return
            self.error(404, "NOT_FOUND", "No such resource: " + url.path)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def now_text():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def valid_profile(text):
    """Base64 of a configuration profile: a property list (XML or binary) or a signed one (DER)."""
    import base64
    import binascii
    if not isinstance(text, str) or not text:
        return False
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return data.startswith(b"<?xml") or data.startswith(b"<plist") or data.startswith(b"bplist") or data[:1] == b"\x30"


def management_id(device_id):
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "jamf-management-" + device_id))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] in ("jamf", "intune"):
        serve(*sys.argv[1:])
    else:
        sys.exit(__doc__)
