import AsyncHTTPClient
import Foundation
import LinkCallbacks
import NIOCore
import UniversalLinks

/// Fetches and compiles a domain's apple-app-site-association file the way iOS does: from
/// `/.well-known/apple-app-site-association`, HTTP 200 only (redirects are not followed).
/// iOS fetches over https; plain http is used only for a loopback host in developer mode, the
/// simulator's stand-in for `?mode=developer`.
struct AssociationFetcher: Sendable {
    let client: HTTPClient

    static func isLoopback(_ domain: String) -> Bool {
        let host = domain.split(separator: ":").first.map(String.init) ?? domain
        return CallbackPolicy.isLoopback(host)
    }

    func fetch(domain: String, developerMode: Bool) async throws(SimulatorError) -> AssociationMatcher {
        let scheme = developerMode && Self.isLoopback(domain) ? "http" : "https"
        let url = "\(scheme)://\(domain)/.well-known/apple-app-site-association"
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
            guard response.status == .ok else {
                throw SimulatorError("\(url) answered HTTP \(response.status.code); iOS needs 200 with no redirect")
            }
            let body = try await response.body.collect(upTo: 128 * 1024)
            let file = try AssociationFileParser.parse(Array(buffer: body))
            return AssociationMatcher(file: file, domain: domain)
        } catch let error as SimulatorError {
            throw error
        } catch {
            throw SimulatorError("could not fetch \(url): \(error)")
        }
    }
}
