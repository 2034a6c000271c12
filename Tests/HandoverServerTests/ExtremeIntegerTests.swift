import Foundation
import NIOHTTP1
import Testing
@testable import HandoverServer

/// Issue 63, finding 1: `GET /api/v1/custody?page=9223372036854775807` with any viewer key never
/// answered, and the process died of an arithmetic overflow (`(page - 1) * pageSize`). Every
/// integer a request sets, at its extremes, is a 400 naming it: never a 5xx, never a crash.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct ExtremeIntegerTests {
    /// The extremes of a 64-bit integer, one past each, and text that is not a whole number.
    static let extremes = [String(Int64.max), String(Int64.min), "9223372036854775808", "-9223372036854775809",
                           "99999999999999999999999999", "1e3", "0x10", "1.5", "abc", ""]

    @Test func theCustodyReportRefusesEveryExtremePageWithA400() async throws {
        try await TestServer.with(.sqlite) { test in
            let viewer = try await test.server.createAPIKey(name: "wall screen", scope: .viewer)
            for page in [String(Int.max), String(Int.min)] + Self.extremes + ["0", "-1", "100001"] {
                let reply = try await test.request(.GET, "/api/v1/custody?page=\(page)", key: viewer)
                #expect(reply.status == 400, "page=\(page): \(reply.status) \(reply.text.prefix(200))")
                #expect(reply.json["field"] as? String == "page", "page=\(page): \(reply.text.prefix(200))")
            }
            // The bounds themselves are pages like any other.
            for page in ["1", "100000"] {
                let reply = try await test.request(.GET, "/api/v1/custody?page=\(page)", key: viewer)
                #expect(reply.status == 200, "page=\(page): \(reply.status) \(reply.text.prefix(200))")
            }
            #expect(try await test.request(.GET, "/healthz").status == 200)
        }
    }

    /// Every integer query parameter of the document, at each extreme: a 400 naming it.
    @Test func everyIntegerQueryParameterRefusesExtremesWithA400() async throws {
        let bounds = try DocumentBounds()
        var tried = 0
        try await TestServer.with(.sqlite) { test in
            for (method, template, _, _) in bounds.operations() {
                for parameter in bounds.parameters(of: "\(method) \(template)") where parameter.type == "integer" && parameter.location == .query {
                    let path = template.replacingOccurrences(of: #"\{[^}]+\}"#, with: UUID().uuidString.lowercased(), options: .regularExpression)
                    for value in Self.extremes {
                        let reply = try await test.request(HTTPMethod(rawValue: method), "\(path)?\(parameter.name)=\(value)", key: test.adminKey)
                        // A value the document's bounds allow (Int64.max where only a minimum is
                        // declared) is the route's to refuse, which may name the parameter it still needs.
                        let allowed = Int64(value).map { (parameter.minimum ?? .min) <= $0 && $0 <= (parameter.maximum ?? .max) } ?? false
                        #expect(reply.status == 400 && (allowed || reply.json["field"] as? String == parameter.name),
                                "\(method) \(template) \(parameter.name)=\(value): \(reply.status) \(reply.text.prefix(200))")
                        tried += 1
                    }
                }
            }
            #expect(try await test.request(.GET, "/healthz").status == 200)
        }
        #expect(tried >= 70, "\(tried) requests")
    }

    /// The dashboard's pages (not in the document) read `page` too: a page past the last, never a crash.
    @Test func theDashboardsPagedListsSurviveExtremePages() async throws {
        try await TestServer.with(.sqlite) { test in
            let browser = DashboardBrowser(test)
            _ = try await browser.signIn(key: test.adminKey)
            for path in ["/dashboard/devices", "/dashboard/custody", "/dashboard/custody.csv", "/dashboard/custody.json"] {
                for page in [String(Int.max), String(Int.min)] + Self.extremes {
                    let reply = try await browser.get("\(path)?page=\(page)")
                    #expect(reply.status < 500, "\(path)?page=\(page): \(reply.status) \(reply.text.prefix(200))")
                }
            }
            #expect(try await test.request(.GET, "/healthz").status == 200)
        }
    }
}
