import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import UniversalLinks

/// Fetches an association file once, as iOS would: no redirects followed, a short timeout.
enum AssociationFetcher {
    /// The longest wait for a response.
    static let timeout: TimeInterval = 15

    /// Refuses every redirect, so that a 301/302 comes back as the response itself.
    final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    static func fetch(_ address: String) async throws -> FetchedResponse {
        guard let url = URL(string: address) else {
            throw ValidationError("\(address) is not a URL; give https://<host>/.well-known/apple-app-site-association")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: url)
        request.setValue("handover-aasa-check", forHTTPHeaderField: "User-Agent")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await withCheckedThrowingContinuation { continuation in
                session.dataTask(with: request) { data, response, error in
                    if let error { continuation.resume(throwing: error) }
                    else if let response { continuation.resume(returning: (data ?? Data(), response)) }
                    else { continuation.resume(throwing: URLError(.badServerResponse)) }
                }.resume()
            }
        } catch {
            throw ValidationError("could not fetch \(address): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw ValidationError("\(address) did not answer with HTTP")
        }
        let headers = http.allHeaderFields.compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }
        return FetchedResponse(url: address, statusCode: http.statusCode, headers: headers, body: Array(data))
    }
}
