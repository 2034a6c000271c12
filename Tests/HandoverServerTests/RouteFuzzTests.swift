import AsyncHTTPClient
import Foundation
import HandoverConfiguration
import NIOCore
import NIOHTTP1
import Testing
@testable import HandoverServer

/// Throws hostile input at every route the running application has (read from its router, so
/// HTML pages, the tester and event streams are covered, not only the OpenAPI operations): extreme
/// integers, huge strings, UUID look-alikes, encodings and control characters in path segments,
/// queries, headers and bodies. Passes only with no crash, no 5xx and no hang.
///
/// Besides its fixed lists it draws, for the operation it hits, from what `openapi.yaml` declares
/// (``DocumentBounds``, issue 63): each query and path parameter at its bounds and one past them,
/// 0, -1, the 64-bit extremes and one past them, text that is not a number, `maxLength + 1` and
/// huge strings; each bounded JSON body field on both sides of its bound, set into the
/// operation's example; and the dashboard's own query parameters (`page`, `q`, …) the same way.
///
/// Runs for `HANDOVER_ROUTE_FUZZ_SECONDS` (5 by default, so that inside `swift test` it does not
/// crowd the tests that run on a sped-up real clock; CI runs it alone for 180) and prints how many
/// requests reached how many routes.
@Suite(.timeLimit(.minutes(10)), .stopsTestServers) struct RouteFuzzTests {
    static var budget: Double {
        ProcessInfo.processInfo.environment["HANDOVER_ROUTE_FUZZ_SECONDS"].flatMap(Double.init) ?? 5
    }

    static let segments: [String] = [
        "-9223372036854775808", "9223372036854775807", "9223372036854775808", "-1", "0", "1", "2", "4", "1e309", "NaN", "0x10",
        "00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", "{12345678-1234-1234-1234-123456789012}",
        "123456781234123412341234567890121", "12345678-1234-1234-1234-12345678901", String(repeating: "a", count: 5000),
        "%00", "%0d%0aX-Injected:%201", "%ff%fe", "..%2f..%2fetc%2fpasswd", "%2e%2e", "%", "%%", "%C3%A9", "%F0%9F%98%80",
        "success", "error", "status", "events", "qr.svg", "logout", "a%20b", "~", "_", "-", ".",
    ]

    static let queries: [String] = [
        "", "?n=", "?n=abc", "?n=\(String(repeating: "z", count: 3000))", "?token=x", "?token=", "?round=-9223372036854775808",
        "?page=-1", "?limit=9223372036854775807", "?a=%00", "?%%=%%", "?n=a&n=b", "?mode=developer", "?format=png&size=99999999",
        "?callback=javascript:alert(1)",
    ]

    static let bodies: [(String, String)] = [
        ("application/json", "{}"), ("application/json", "[]"), ("application/json", "null"), ("application/json", "{"),
        ("application/json", #"{"name":-9223372036854775808,"deadlineSeconds":9223372036854775807,"apps":[1,2,3]}"#),
        ("application/json", #"{"name":"x","appIDs":["ABCDE12345.com.example.x"],"logoutAction":"https://x.example.com/l","deadlineSeconds":-9223372036854775808}"#),
        ("application/json", String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)),
        ("application/json", #"{"expiresIn":1e308,"round":"NaN","token":"\u0000"}"#),
        ("application/json", #"{"url":"http://127.evil.example/x","events":["run.failed"]}"#),
        ("application/x-www-form-urlencoded", "csrf=x&round=-9223372036854775808&user=%00&token=%ff"),
        ("application/x-www-form-urlencoded", "deadlineSeconds=99999999999999999999&name=" + String(repeating: "n", count: 2000)),
        ("text/plain", "\u{1}\u{2}\u{3}"), ("application/octet-stream", String(repeating: "\u{7f}", count: 100)), ("", ""),
    ]

    /// The 64-bit extremes first (the fuzzer takes each list in order), then values on and around
    /// an integer's bounds.
    static func integers(minimum: Int64?, maximum: Int64?) -> [String] {
        var values = [String(Int64.max), String(Int64.min), "9223372036854775808", "-9223372036854775809", String(Int64.max / 2)]
        for bound in [minimum, maximum].compactMap({ $0 }) {
            values += [String(bound), bound > .min ? String(bound - 1) : "", bound < .max ? String(bound + 1) : ""]
        }
        return values + ["0", "-1", "1", "99999999999999999999999999", "1e3", "1.5", "0x10", "abc", "", "%00", "+1", " 1"]
    }

    /// Strings on and around a string's length bounds, and huge ones.
    static func strings(minLength: Int?, maxLength: Int?) -> [String] {
        var values = ["", "a", String(repeating: "a", count: 5000), String(repeating: "%C3%A9", count: 300), "%00", "a%0d%0ab"]
        for bound in [minLength, maxLength].compactMap({ $0 }) {
            values += [String(repeating: "a", count: bound), String(repeating: "a", count: max(0, bound - 1)), String(repeating: "a", count: bound + 1)]
        }
        return values
    }

    /// The boundary values of each declared parameter of each operation (`METHOD /template`), and
    /// of the dashboard's own query parameters (not in the document).
    static func boundaryValues(_ document: DocumentBounds) -> [String: [(name: String, location: DocumentBounds.Location, values: [String])]] {
        var result: [String: [(name: String, location: DocumentBounds.Location, values: [String])]] = [:]
        for (method, template, _, _) in document.operations() {
            let key = "\(method) \(template)"
            result[key] = document.parameters(of: key).map { parameter in
                let values = parameter.type == "integer" ? integers(minimum: parameter.minimum, maximum: parameter.maximum)
                    : strings(minLength: parameter.minLength, maxLength: parameter.maxLength)
                return (parameter.name, parameter.location, values)
            }
        }
        return result
    }

    /// The dashboard's query parameters, which no document declares.
    static let dashboardQuery: [(name: String, values: [String])] = [
        ("page", integers(minimum: 1, maximum: 100_000)), ("q", strings(minLength: 0, maxLength: 100)),
        ("status", ["overdue", "", "%00", String(repeating: "s", count: 3000)]), ("filter", ["all", "overdue", "", "x"]),
        ("from", ["2026-01-01", "-9999-01-01T00:00:00Z", "99999-12-31", "2026-13-45", ""]), ("to", ["2026-01-02", "", "x"]),
        ("device", ["00000000-0000-0000-0000-000000000000", "x"]), ("person", ["x", ""]),
    ]

    @Test func everyRouteSurvivesHostileInput() async throws {
        // Loopback peers that play a team's backend, webhook receivers and the MDM, answering with
        // replies without end (or 1.5 GB, or a 1 MB error): the outboxes deliver to them between
        // requests, and the server must neither grow nor stop.
        let peer = await BackendPeers.pythonIsAvailable() ? try await HostilePeer() : nil
        defer { peer?.stop() }
        let rig = try await AppleRig.startOnFreePort(.sqlite) { configuration, port in
            configuration.publicURL = try? ServerConfiguration.parsePublicURL("http://127.0.0.1:\(port)", setting: "test")
            configuration.developerMode = true
            if let peer {
                configuration.mdm = MDMConfiguration(connector: .jamf(baseURL: URL(string: peer.url(.endless, "/mdm"))!, clientID: "fuzz",
                                                                      clientSecret: "fuzz-secret"), action: .lock)
            }
        }
        let test = rig.test
        do {
            // Real ids to mix in, so routes get past "not found" now and then.
            let app = try await test.registerTarget("Fuzz")
            // A serial number, so the MDM is asked (and meets the hostile peer) when the device goes out of service.
            let created = try await test.request(.POST, "/api/v1/devices", json: ["name": "fuzz-phone", "serialNumber": "C02FUZZ00001"], key: test.adminKey)
            let device = (id: (created.json["device"] as? [String: Any])?["id"] as? String ?? "", key: created.json["key"] as? String ?? "")
            let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: device.key)
            let runID = run.json["id"] as? String ?? UUID().uuidString
            let itemID = (run.json["items"] as? [[String: Any]])?.first?["id"] as? String ?? UUID().uuidString
            // A webhook, an operation and a conformance test with a round waiting, so routes that
            // take their ids get past "not found".
            let hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": "https://mdm.example.com/h", "events": ["run.failed"]],
                                              key: test.adminKey)
            let hookID = (hook.json["webhook"] as? [String: Any])?["id"] as? String ?? UUID().uuidString
            let domain = try await TesterTests.appDomain()
            let tester = try await test.server.createTesterRun(action: "\(domain.origin)/apps/mail/logout", declaresAllowlist: false, simulate: nil)
            try await domain.shutdown()
            _ = try await test.server.startTesterRound(tester, number: 1)
            // A signed-in dashboard session, so the dashboard's and the tester's forms get past sign-in.
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let session = browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
            // Plausible values by parameter name; each request makes one parameter hostile.
            let plausible: [String: [String]] = [
                "appID": [app], "deviceID": [device.id], "runID": [runID, runID.uppercased()], "itemID": [itemID],
                "testID": [tester.uuidString.lowercased()], "round": ["1", "2", "3"], "outcome": ["success", "error"],
                "webhookID": [hookID], "operationID": [UUID().uuidString.lowercased()], "deviceToken": ["abc123"],
                "keyID": [UUID().uuidString.lowercased()],
            ]
            // Every role's key too (issue 39): a viewer and an operator meet each route as often as an admin.
            let viewer = try await test.server.createAPIKey(name: "fuzz viewer", scope: .viewer)
            let operatorKey = try await test.server.createAPIKey(name: "fuzz operator", scope: .operator)
            let keys: [String?] = [nil, test.adminKey, viewer, operatorKey, device.key, "hov_" + String(repeating: "x", count: 40),
                                   String(repeating: "k", count: 8000)]
            var outbox = HostileDeliveries()
            if let peer {
                for answer in [HostilePeer.Answer.endless, .huge, .longError] {
                    let hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": peer.url(answer, "/hook"), "events": ["run.failed", "device.out_of_service"]],
                                                      key: test.adminKey)
                    #expect(hook.status == 201, "\(hook.text)")
                }
                _ = try await OpenIDConnectTests.register(test, ["client_name": "endless backend", "backchannel_logout_uri": peer.url(.endless, "/bcl")])
            }
            let residentBefore = WebhookOutboxHardeningTests.residentBytes()

            let routes = test.server.application.routes.all
            let document = try DocumentBounds()
            let declared = Self.boundaryValues(document)
            let bodyBounds = Dictionary(grouping: document.cases().filter { $0.location == .body }) { "\($0.method) \($0.template)" }
            var boundaryRequests = 0
            var boundaryTurns: [String: Int] = [:]
            var generator = SystemRandomNumberGenerator()
            var covered = Set<String>()
            var statuses: [Int: Int] = [:]
            var requests = 0
            let started = Date()
            // At least one request per route, however busy the machine; then until the budget is spent.
            while requests < routes.count || Date().timeIntervalSince(started) < Self.budget {
                let route = routes[requests % routes.count]
                let method = route.method
                var path = ""
                // Walk the hostile segments through each parameter in turn, so every pair is tried.
                let parameters = route.path.enumerated().filter { if case .parameter = $0.element { return true } else { return false } }.map(\.offset)
                let visit = requests / routes.count
                let hostileAt = parameters.isEmpty ? nil : parameters[visit % parameters.count]
                let hostile = Self.segments[(visit / max(1, parameters.count)) % Self.segments.count]
                let key = "\(method) /" + route.path.map { component -> String in
                    if case .parameter(let name) = component { return "{\(name)}" }
                    return component.description
                }.joined(separator: "/")
                let declaredHere = declared[key] ?? []
                for (position, component) in route.path.enumerated() {
                    let segment: String
                    switch component {
                    case .constant(let text): segment = text
                    case .parameter(let name):
                        if position == hostileAt, let bounded = declaredHere.first(where: { $0.location == .path && $0.name == name }),
                           Bool.random(using: &generator) {
                            // The document bounds this parameter: its boundary values, percent-encoded.
                            let value = bounded.values.randomElement(using: &generator)!
                            segment = value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? value
                        } else if position == hostileAt {
                            segment = hostile
                        } else if let values = plausible[name], Int.random(in: 0..<8, using: &generator) > 0 {
                            segment = values.randomElement(using: &generator)!
                        } else {
                            segment = Self.segments.randomElement(using: &generator)!
                        }
                    case .anything:
                        segment = Self.segments.randomElement(using: &generator)!
                    case .catchall:
                        segment = (0..<Int.random(in: 1...3, using: &generator)).map { _ in Self.segments.randomElement(using: &generator)! }.joined(separator: "/")
                    }
                    path += "/" + segment
                }
                if path.isEmpty { path = "/" }
                // Three visits in four, the operation's declared query parameters (or the dashboard's)
                // at and around their bounds, alone: every parameter's every value in turn (the first
                // value of each parameter, then the second, …).
                let queryDrawn: [(name: String, values: [String])] = key.contains(" /dashboard")
                    ? Self.dashboardQuery : declaredHere.filter { $0.location == .query }.map { ($0.name, $0.values) }
                var drawnAtBounds = false
                if !queryDrawn.isEmpty, Int.random(in: 0..<4, using: &generator) > 0 {
                    let turn = boundaryTurns[key, default: 0]
                    boundaryTurns[key] = turn + 1
                    let first = queryDrawn[turn % queryDrawn.count]
                    let picked = [(first.name, first.values[(turn / queryDrawn.count) % first.values.count])]
                    // Percent signs stay: the lists hold encoded bytes such as %00 and %C3%A9 on purpose.
                    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "%-."))
                    path += "?" + picked.map { "\($0.0)=" + ($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") }.joined(separator: "&")
                    boundaryRequests += 1
                    drawnAtBounds = true
                } else {
                    path += Bool.random(using: &generator) ? "?n=abc" : Self.queries.randomElement(using: &generator)!
                }
                var request = HTTPClientRequest(url: test.server.baseURL.absoluteString + path)
                request.method = method
                // A request at the bounds mostly carries the admin key, so it gets past the role to the parameters.
                let bearer = drawnAtBounds && Int.random(in: 0..<4, using: &generator) > 0 ? test.adminKey : keys.randomElement(using: &generator)!
                if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
                if Bool.random(using: &generator) { request.headers.add(name: "Origin", value: ["https://evil.example", "null", test.server.publicURL.absoluteString].randomElement(using: &generator)!) }
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: request.headers.add(name: "Cookie", value: "handover_dashboard=\(Self.segments.randomElement(using: &generator)!); handover_oob_browser=%00")
                case 1, 2: request.headers.add(name: "Cookie", value: session)
                default: break
                }
                if Int.random(in: 0..<8, using: &generator) == 0 { request.headers.add(name: "If-None-Match", value: String(repeating: "\"x\",", count: 500)) }
                if method != .GET && method != .HEAD {
                    var (type, body) = Self.bodies.randomElement(using: &generator)!
                    if let cases = bodyBounds[key], Bool.random(using: &generator) {
                        // A bounded body field of this operation on one side of its bound, or at a 64-bit extreme, in its example.
                        let item = cases.randomElement(using: &generator)!
                        let extreme: Any = [Int64.max, Int64.min, 0, -1].randomElement(using: &generator)!
                        let value = [item.inside, item.outside, extreme].randomElement(using: &generator)!
                        let json = DocumentBounds.setting(value, at: item.steps[...], in: item.example)
                        (type, body) = ("application/json", String(decoding: (try? JSONSerialization.data(withJSONObject: json)) ?? Data(), as: UTF8.self))
                        boundaryRequests += 1
                    } else if Bool.random(using: &generator) {
                        (type, body) = ("application/x-www-form-urlencoded", "csrf=\(csrf)&" + (body.contains("=") ? body : "x=1"))
                    }
                    if !type.isEmpty { request.headers.add(name: "Content-Type", value: type) }
                    request.body = .bytes(ByteBuffer(string: body))
                }
                let label = "\(method) \(route.path.map(\.description).joined(separator: "/"))"
                let response: HTTPClientResponse
                do {
                    response = try await test.client.execute(request, timeout: .seconds(15))
                } catch {
                    Issue.record("\(label) as \(method) \(path.prefix(200)): no answer (\(error))")
                    break
                }
                if response.headers.first(name: "Content-Type")?.hasPrefix("text/event-stream") == true {
                    for try await _ in response.body { break }  // a live stream: its first event is enough
                } else {
                    _ = try await response.body.collect(upTo: 16 << 20)
                }
                requests += 1
                covered.insert(label)
                statuses[Int(response.status.code), default: 0] += 1
                if response.status.code >= 500 {
                    Issue.record("\(label) as \(method) \(path.prefix(200)): \(response.status.code)")
                }
                if requests % 200 == 0 {
                    #expect(try await test.request(.GET, "/healthz").status == 200, "the server stopped answering after \(requests) requests")
                    rig.advance(120)  // past the rate-limit windows, so limits do not hide the routes
                    if peer != nil { try await outbox.handOver(rig, device: device, app: app, round: requests / 200) }
                }
            }
            if let peer {
                // A short budget on a busy machine may not reach 200 requests: one hand-over at least.
                if outbox.rounds == 0 { try await outbox.handOver(rig, device: device, app: app, round: 0) }
                let seen = try await peer.report().requests
                print("route fuzz: hostile peers: \(outbox.summary); they received \(seen.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")); "
                      + "the server grew by \((WebhookOutboxHardeningTests.residentBytes() - residentBefore) >> 20) MB")
                #expect(outbox.webhooks > 0 && outbox.backChannel > 0 && outbox.mdm > 0, "every outbox met a hostile peer: \(outbox.summary)")
                #expect(try await test.request(.GET, "/healthz").status == 200)
            }
            let summary = statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
            print("route fuzz: \(requests) requests over \(covered.count) of \(routes.count) routes in \(Int(Self.budget)) s "
                  + "(\(boundaryRequests) with declared or dashboard parameters at their bounds); statuses \(summary)")
            #expect(boundaryRequests > 0)
            #expect(covered.count == Set(routes.map { "\($0.method) \($0.path.map(\.description).joined(separator: "/"))" }).count)
        } catch {
            Issue.record(error)
        }
        try await rig.stop()
    }
}

/// The fuzzer's hand-overs between its requests, and what the outboxes then attempted against
/// the hostile peers.
struct HostileDeliveries {
    var webhooks = 0
    var backChannel = 0
    var mdm = 0
    var rounds = 0

    var summary: String { "\(webhooks) webhook, \(backChannel) back-channel and \(mdm) MDM attempts" }

    /// A user signs in on the device and it is handed over; the run's deadlines fire (the clock
    /// moves two hours), it fails, the device goes out of service, and every outbox delivers what
    /// it owes.
    mutating func handOver(_ rig: AppleRig, device: (id: String, key: String), app: String, round: Int) async throws {
        _ = try await rig.signIn(sub: "fuzz-user-\(round)", extra: ["deviceID": device.id])
        // An admin key starts it: the fuzzer may have revoked or replaced the device's own key.
        _ = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [app]], key: rig.test.adminKey)
        rounds += 1
        // Past the first deadline (the link is reissued) and the second (the run fails).
        for _ in 0..<2 {
            rig.advance(3600)
            try await rig.test.server.fireDeadlines()
        }
        webhooks += try await rig.test.server.deliverWebhooks()
        backChannel += try await rig.test.server.deliverBackChannelLogouts()
        mdm += try await rig.test.server.deliverMDMCommands()
    }
}
