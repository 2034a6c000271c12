import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// IT's side of a shift change: dashboards open on the live overview while the storm runs (each
/// one a signed-in browser holding `/dashboard/live`, its server-sent events counted), the
/// time the pages IT opens take to answer with the whole fleet in the database, and the custody
/// CSV IT downloads afterwards.
struct DashboardProbe: Sendable {
    let origin: String
    let adminKey: String

    /// Signs in as a browser does (the form's CSRF token and cookie, then the admin key) and
    /// returns the session's `Cookie` header.
    func signIn(_ client: HTTPClient) async throws -> String {
        var form = HTTPClientRequest(url: "\(origin)/dashboard/sign-in")
        form.method = .GET
        let page = try await client.execute(form, timeout: .seconds(30))
        let body = String(buffer: try await page.body.collect(upTo: 1 << 20))
        guard let csrf = Self.csrf(in: body), let signInCookie = Self.cookies(page.headers).first else {
            throw SimulatorError("the dashboard's sign-in form has no CSRF token or cookie")
        }
        var post = HTTPClientRequest(url: "\(origin)/dashboard/sign-in")
        post.method = .POST
        post.headers.add(name: "Cookie", value: signInCookie)
        post.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let key = adminKey.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? adminKey
        post.body = .bytes(ByteBuffer(string: "csrf=\(csrf)&key=\(key)"))
        let answer = try await client.execute(post, timeout: .seconds(30))
        _ = try await answer.body.collect(upTo: 1 << 20)
        guard answer.status == .seeOther, let session = Self.cookies(answer.headers).first(where: { !$0.hasSuffix("=") }) else {
            throw SimulatorError("signing in to the dashboard with the admin key: the server answered \(answer.status.code)")
        }
        return session
    }

    /// What the open dashboards saw.
    final class Watch: Sendable {
        private let counts = NIOLockedValueBox((updates: 0, connected: 0, dropped: 0))
        private let tasks = NIOLockedValueBox([Task<Void, Never>]())

        var updates: Int { counts.withLockedValue { $0.updates } }
        var connected: Int { counts.withLockedValue { $0.connected } }
        var dropped: Int { counts.withLockedValue { $0.dropped } }

        fileprivate func add(_ task: Task<Void, Never>) { tasks.withLockedValue { $0.append(task) } }
        fileprivate func record(updates: Int = 0, connected: Int = 0, dropped: Int = 0) {
            counts.withLockedValue { $0.updates += updates; $0.connected += connected; $0.dropped += dropped }
        }

        /// Closes every stream.
        func stop() { for task in tasks.withLockedValue({ $0 }) { task.cancel() } }
    }

    /// Opens `count` live overviews, each its own connection, counting `replace` events until stopped.
    func watch(_ count: Int, client: HTTPClient, cookie: String) -> Watch {
        let watch = Watch()
        for _ in 0..<count {
            watch.add(Task {
                var request = HTTPClientRequest(url: "\(origin)/dashboard/live")
                request.headers.add(name: "Cookie", value: cookie)
                request.headers.add(name: "Accept", value: "text/event-stream")
                do {
                    let response = try await client.execute(request, timeout: .hours(2))
                    guard response.status == .ok else { watch.record(dropped: 1); return }
                    watch.record(connected: 1)
                    var counter = ReplaceEventCounter()
                    for try await chunk in response.body {
                        watch.record(updates: counter.count(chunk.readableBytesView))
                    }
                    if !Task.isCancelled { watch.record(dropped: 1) }
                } catch {
                    if !Task.isCancelled { watch.record(dropped: 1) }
                }
            })
        }
        return watch
    }

    /// Times `samples` loads of each page, one after another.
    func time(_ pages: [(name: String, path: String)], samples: Int, client: HTTPClient, cookie: String) async -> [ShiftChangeFigures.PageTiming] {
        var timings: [ShiftChangeFigures.PageTiming] = []
        for page in pages {
            var times: [Double] = []
            var statuses: [Int: Int] = [:]
            for _ in 0..<samples {
                var request = HTTPClientRequest(url: origin + page.path)
                request.headers.add(name: "Cookie", value: cookie)
                let started = ContinuousClock.now
                do {
                    let response = try await client.execute(request, timeout: .seconds(30))
                    _ = try await response.body.collect(upTo: 16 << 20)
                    let took = started.duration(to: .now)
                    times.append(Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15)
                    statuses[Int(response.status.code), default: 0] += 1
                } catch {
                    statuses[0, default: 0] += 1
                }
            }
            timings.append(.init(name: page.name, path: page.path, statuses: statuses, latency: LatencySummary(milliseconds: times)))
        }
        return timings
    }

    /// Signs in and downloads the custody CSV of every custody checked out since 00:00 UTC of the
    /// day `since` falls on (`/dashboard/custody.csv?from=YYYY-MM-DD`).
    func custodyCSV(since: Date, client: HTTPClient) async throws -> String {
        let cookie = try await signIn(client)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC") ?? utc.timeZone
        let day = utc.dateComponents([.year, .month, .day], from: since)
        let from = String(format: "%04d-%02d-%02d", day.year ?? 1970, day.month ?? 1, day.day ?? 1)
        var request = HTTPClientRequest(url: "\(origin)/dashboard/custody.csv?from=\(from)")
        request.headers.add(name: "Cookie", value: cookie)
        let response = try await client.execute(request, timeout: .seconds(120))
        let body = String(buffer: try await response.body.collect(upTo: 256 << 20))
        guard response.status == .ok else {
            throw SimulatorError("the dashboard's custody CSV answered \(response.status.code): \(body.prefix(200))")
        }
        return body
    }

    static func csrf(in page: String) -> String? {
        guard let range = page.range(of: #"name="csrf" value="[^"]+""#, options: .regularExpression) else { return nil }
        return page[range].components(separatedBy: "value=\"").last.map { String($0.dropLast()) }
    }

    /// `name=value` of each `Set-Cookie`.
    static func cookies(_ headers: HTTPHeaders) -> [String] {
        headers["Set-Cookie"].compactMap { $0.split(separator: ";", maxSplits: 1).first.map(String.init) }
    }
}
