import Foundation
import NIOHTTP1
import Testing
@testable import HandoverServer
import HandoverCore

/// Every bound `openapi.yaml` declares is enforced at the edge (issue 63, finding 1): the document
/// said `maximum: 100000` for the custody report's `page`, the generated server did not check
/// it, and `page=9223372036854775807` crashed the server.
///
/// The test walks the document (``DocumentBounds``, its own YAML reading) and, for each bound of
/// each query and path parameter and each JSON body field, sends the bound itself and the value
/// one past it (for a string `maxLength` and `maxLength + 1` characters): the value inside is
/// never refused as out of bounds, the value outside is a 400 `out_of_bounds` that names the
/// field and what it accepts. A body value is set into the operation's own example. JSON
/// Schema's lengths count characters as code points (JSON Schema Validation §6.3.1), which is
/// what the server counts.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct DeclaredBoundsTests {
    /// A request for `bounds`' case with `value` on its bounded side, every other path parameter a fresh UUID.
    static func request(_ test: TestServer, _ item: DocumentBounds.Case, value: Any, key: String) async throws -> TestServer.Reply {
        var path = ""
        for segment in item.template.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if segment.hasPrefix("{"), segment.hasSuffix("}") {
                let name = String(segment.dropFirst().dropLast())
                let text = item.location == .path && name == item.field ? DocumentBounds.text(value) : UUID().uuidString.lowercased()
                path += "/" + (text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? text)
            } else {
                path += "/" + segment
            }
        }
        if item.location == .query {
            let text = DocumentBounds.text(value)
            path += "?\(item.field)=" + (text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text)
        }
        let method = HTTPMethod(rawValue: item.method)
        guard item.location == .body else { return try await test.request(method, path, key: key) }
        let body = DocumentBounds.setting(value, at: item.steps[...], in: item.example)
        return try await test.request(method, path, json: body, key: key)
    }

    @Test func eachDeclaredBoundAcceptsTheBoundAndRefusesOnePastIt() async throws {
        let bounds = try DocumentBounds()
        let cases = bounds.cases()
        // The walk found the bounds: the custody page's, a path parameter's and nested body fields'.
        #expect(cases.contains { $0.operationID == "listCustody" && $0.field == "page" && $0.bound == "maximum 100000" })
        #expect(cases.contains { $0.location == .path })
        #expect(cases.contains { $0.field.contains(".") } && cases.contains { $0.field.contains("[0]") })
        #expect(cases.count > 60, "\(cases.count) bounds")
        try await TestServer.with(.sqlite) { test in
            var refusedOutside = 0
            for item in cases {
                let inside = try await Self.request(test, item, value: item.inside, key: test.adminKey)
                #expect(!(inside.status == 400 && inside.json["error"] as? String == "out_of_bounds"),
                        "\(item): the bound itself was refused: \(inside.text.prefix(300))")
                #expect(inside.status < 500, "\(item): \(inside.status) \(inside.text.prefix(300))")
                let outside = try await Self.request(test, item, value: item.outside, key: test.adminKey)
                let named = outside.status == 400 && outside.json["error"] as? String == "out_of_bounds" && outside.json["field"] as? String == item.field
                #expect(named, "\(item): one past the bound answered \(outside.status) \(outside.text.prefix(300))")
                if named {
                    refusedOutside += 1
                    // The reason says what was wrong and what is accepted (the bound's number).
                    let reason = outside.json["reason"] as? String ?? ""
                    let number = item.bound.split(separator: " ").last.map(String.init) ?? ""
                    #expect(reason.contains(item.field) && reason.contains(number), "\(item): \(reason)")
                }
            }
            print("declared bounds: \(cases.count) bounds tried on each side; \(refusedOutside) refused one past the bound with 400 out_of_bounds")
        }
    }
}

/// The server's table of bounds is the document's (the generator's output is checked in CI; this
/// checks the reading of it), and the domain's own page limits are the document's maximum.
@Suite struct OperationBoundsTableTests {
    @Test func theCustodyPagesMaximumIsTheReportsAndTheGeneratedTableHasEveryBound() throws {
        guard case .integer(let minimum, let maximum)? = OpenAPIDocument.bounds["GET /api/v1/custody"]?.parameters.first(where: { $0.name == "page" })?.bounds else {
            Issue.record("no bounds for the custody report's page")
            return
        }
        #expect(minimum == 1 && maximum == Int64(CustodyReport.maximumPage))
        // Every operation the walk finds a bound in is in the table, with the same generated-or-plain split.
        let walked = Set(try DocumentBounds().cases().map { "\($0.method) \($0.template)" })
        #expect(walked.isSubset(of: Set(OpenAPIDocument.bounds.keys)), "\(walked.subtracting(OpenAPIDocument.bounds.keys))")
        #expect(OpenAPIDocument.generatedBodyBounds["reportCallback"] == nil && OpenAPIDocument.generatedBodyBounds["createLogoutRun"] == nil,
                "a callback and a run start carry no bounded body: their bodies are not read twice")
        #expect(OpenAPIDocument.generatedBodyBounds["createApp"] != nil && OpenAPIDocument.bounds["POST /auth/apple"]?.generated == false)
    }
}
