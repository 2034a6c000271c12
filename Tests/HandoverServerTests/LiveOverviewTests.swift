import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// The overview's live updates: every open dashboard gets each section once on connecting, then
/// only the sections that changed, the same bytes for all of them (rendered once, not per dashboard).
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct LiveOverviewTests {
    /// Reads the `replace` events of a dashboard's live stream: the `id` of each replaced element.
    final class LiveReader: @unchecked Sendable {
        private var iterator: HTTPClientResponse.Body.AsyncIterator
        private var buffer = ""

        init(_ test: TestServer, cookies: [String: String]) async throws {
            var request = HTTPClientRequest(url: test.server.baseURL.absoluteString + "/dashboard/live")
            request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
            let response = try await test.client.execute(request, timeout: .seconds(30))
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "Content-Type") == "text/event-stream")
            iterator = response.body.makeAsyncIterator()
        }

        /// The next event: its name, and the `id` of the element it carries.
        func next() async throws -> (event: String, id: String, html: String) {
            while true {
                if let end = buffer.range(of: "\n\n") {
                    let message = buffer[..<end.lowerBound]
                    buffer.removeSubrange(..<end.upperBound)
                    let lines = message.split(separator: "\n")
                    guard let event = lines.first(where: { $0.hasPrefix("event: ") })?.dropFirst(7) else { continue }  // keep-alive
                    let html = lines.filter { $0.hasPrefix("data: ") }.map { $0.dropFirst(6) }.joined(separator: "\n")
                    let id = html.range(of: #"id="[^"]+""#, options: .regularExpression).map { html[$0].dropFirst(4).dropLast() } ?? ""
                    return (String(event), String(id), html)
                }
                guard let chunk = try await iterator.next() else { throw CancellationError() }
                buffer += String(buffer: chunk)
            }
        }
    }

    @Test(arguments: TestDatabase.available)
    func dashboardsGetEachSectionOnceThenOnlyWhatChanged(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        try await test.registerTarget("Mail")
        let device = try await test.registerDevice("ward-2-phone-9")
        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)
        let first = try await LiveReader(test, cookies: browser.cookies)
        let second = try await LiveReader(test, cookies: browser.cookies)
        for reader in [first, second] {
            var ids: [String] = []
            for _ in 0..<4 { ids.append(try await reader.next().id) }
            #expect(ids.sorted() == ["attention", "fleet", "held-too-long", "recent-runs"])
        }
        // A run starts: the recent runs and the device counts change, the queue does not.
        let run = try await LogoutRunTests.startRun(test, device: device)
        let update = try await first.next()
        #expect(update.event == "replace")
        #expect(["fleet", "recent-runs"].contains(update.id))
        #expect(update.html.contains(run.id.lowercased()) || update.id == "fleet")
        let both = [update.id, try await first.next().id].sorted()
        #expect(both == ["fleet", "recent-runs"])
        let other = [try await second.next(), try await second.next()]
        #expect(other.map(\.id).sorted() == both)
        // The run fails: the device is out of service, so the queue changes too.
        let error = try LogoutRunTests.callback(try #require(run.link("Mail")), "error", on: test)
        #expect(try await test.request(.GET, error).status == 200)
        var changed: Set<String> = []
        while !changed.contains("attention") { changed.insert(try await first.next().id) }
        #expect(changed.isSubset(of: ["attention", "fleet", "held-too-long", "recent-runs"]))
        try await test.stop()
    }
}
