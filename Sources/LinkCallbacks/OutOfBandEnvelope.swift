import Foundation

/// The JSON envelope one deployed out-of-band system puts in `dispatchTokenResponse`:
///
/// ```json
/// {"nma_data": {"token": "…", "redeem_url": "https://…"},
///  "nma_data_content_type": "application/json",
///  "nma_data_version": "1"}
/// ```
///
/// With `application/jose`, `nma_data` is instead a compact JWE encrypted to the device's key.
public struct OutOfBandEnvelope: Equatable, Hashable, Sendable, Codable {
    /// What `nma_data` holds.
    public enum Content: Equatable, Hashable, Sendable {
        /// Plain JSON: a token and the URL to redeem it at.
        case json(token: String, redeemURL: URL)
        /// A compact JWE (`application/jose`), for the device to decrypt.
        case jose(String)
    }

    /// The content.
    public var content: Content
    /// `nma_data_version`.
    public var version: String

    public init(content: Content, version: String = "1") {
        self.content = content
        self.version = version
    }

    /// Reads an envelope from JSON bytes.
    public init(json: Data) throws(LinkError) {
        do {
            self = try JSONDecoder().decode(OutOfBandEnvelope.self, from: json)
        } catch let error as LinkError {
            throw error
        } catch {
            throw LinkError(parameter: OutOfBandLink.payloadParameter, problem: .invalidEnvelope,
                            detail: "the payload is not an envelope (\(Self.summary(error)))",
                            accepted: #"{"nma_data":…,"nma_data_content_type":"application/json"|"application/jose","nma_data_version":"1"}"#)
        }
    }

    /// The envelope as JSON bytes with sorted keys.
    public func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }

    private enum CodingKeys: String, CodingKey {
        case data = "nma_data", contentType = "nma_data_content_type", version = "nma_data_version"
    }

    private struct PlainData: Codable {
        var token: String
        var redeemURL: String
        enum CodingKeys: String, CodingKey { case token, redeemURL = "redeem_url" }
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(String.self, forKey: .version)
        let type = try container.decode(String.self, forKey: .contentType)
        switch type {
        case "application/json":
            let data = try container.decode(PlainData.self, forKey: .data)
            let raw = try UniversalLinkCallback.callback(data.redeemURL, parameter: "redeem_url")
            content = .json(token: data.token, redeemURL: try UniversalLinkCallback.foundationURL(raw, parameter: "redeem_url"))
        case "application/jose":
            let jwe = try container.decode(String.self, forKey: .data)
            guard jwe.split(separator: ".", omittingEmptySubsequences: false).count == 5 else {
                throw LinkError(parameter: "nma_data", problem: .invalidEnvelope, detail: "the JWE does not have five parts",
                                accepted: "a compact JWE: header.key.iv.ciphertext.tag")
            }
            content = .jose(jwe)
        default:
            throw LinkError(parameter: "nma_data_content_type", problem: .invalidEnvelope,
                            detail: "'\(RawURL.excerpt(type))' is not a known content type",
                            accepted: "application/json or application/jose")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        switch content {
        case .json(let token, let redeemURL):
            try container.encode("application/json", forKey: .contentType)
            try container.encode(PlainData(token: token, redeemURL: redeemURL.absoluteString), forKey: .data)
        case .jose(let jwe):
            try container.encode("application/jose", forKey: .contentType)
            try container.encode(jwe, forKey: .data)
        }
    }

    private static func summary(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "no '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context): return "wrong type at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        case DecodingError.valueNotFound(_, let context): return "null at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        case DecodingError.dataCorrupted: return "not JSON"
        default: return "\(error)"
        }
    }
}
