import AsyncHTTPClient
import Foundation
import LinkCallbacks
import NIOCore
import NIOHTTP1
import UniversalLinks

/// Step 1 of a test: fetch the action domain's association file once, as iOS does (https, no
/// redirects, a short timeout; plain http on loopback in developer mode), validate it, and
/// decide for every appID in it whether it claims the action URL.
package struct TesterAssociationCheck: Sendable {
    package let client: HTTPClient
    package let developerMode: Bool

    package func check(action: String) async -> TesterAssociationReport {
        guard let raw = try? LinkCallbacks.RawURL(action, parameter: "action"), let host = raw.host else {
            return TesterAssociationReport(url: action, statusCode: nil, findings: ["the action is not an absolute URL"], errors: 1,
                                           claimingAppID: nil, decisions: [:])
        }
        let domain = raw.port.map { "\(host):\($0)" } ?? host
        let loopback = host == "localhost" || host.hasPrefix("127.")
        let insecure = developerMode && loopback
        let url = "\(insecure ? "http" : "https")://\(domain)\(HostingCheck.wellKnownPath)"
        let response: FetchedResponse
        do {
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "User-Agent", value: "handover-tester")
            let answer = try await client.execute(request, timeout: .seconds(10))
            let body = try await answer.body.collect(upTo: AssociationValidator.maximumSize + 1)
            response = FetchedResponse(url: url, statusCode: Int(answer.status.code),
                                       headers: answer.headers.map { ($0.name, $0.value) }, body: Array(buffer: body))
        } catch {
            return TesterAssociationReport(url: url, statusCode: nil, findings: ["could not fetch \(url): \(error)"], errors: 1,
                                           claimingAppID: nil, decisions: [:])
        }
        let report = HostingCheck.check(response, allowInsecureHTTP: insecure)
        var findings = report.issues.map(\.description)
        var decisions: [String: String] = [:]
        var claiming: String?
        if response.statusCode == 200, let file = try? AssociationFileParser.parse(response.body) {
            let matcher = AssociationMatcher(file: file, domain: domain)
            for appID in matcher.appIDs {
                let outcome = matcher.decide(appID: appID, url: action).outcome
                decisions[appID] = outcome.rawValue
                if outcome == .match && claiming == nil { claiming = appID }
            }
            if claiming == nil {
                // Why not: for each app, the closest rule and what refused the action URL.
                let explainer = AssociationExplainer(file: file, domain: domain)
                for appID in matcher.appIDs.prefix(5) {
                    findings.append("\(appID) does not claim the action: \(explainer.explain(appID: appID, url: action))")
                }
            }
        }
        return TesterAssociationReport(url: url, statusCode: response.statusCode, findings: findings,
                                       errors: report.errors.count, claimingAppID: claiming, decisions: decisions)
    }

    package init(client: HTTPClient, developerMode: Bool) {
        self.client = client
        self.developerMode = developerMode
    }
}
