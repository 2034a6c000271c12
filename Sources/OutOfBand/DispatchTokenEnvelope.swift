import Foundation
import LinkCallbacks

/// The JSON envelope the source documents (seed 004) put in `dispatchTokenResponse`, base64url
/// encoded:
///
/// ```json
/// {"nma_data": {"token": "…", "redeem_url": "https://…"},
///  "nma_data_content_type": "application/json",
///  "nma_data_version": "1"}
/// ```
///
/// With `application/jose`, `nma_data` is instead a compact JWE encrypted to the device's key.
/// An ``OperationLink`` carries it as ``OperationPayload/dispatchToken(_:)``, beside Handover's
/// own `v1.` payloads.
public struct DispatchTokenEnvelope: Equatable, Hashable, Sendable, Codable {
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

    /// Makes an envelope from its content and version.
    public init(content: Content, version: String = "1") {
        self.content = content
        self.version = version
    }

    /// Reads an envelope from JSON bytes.
    ///
    /// A refusal names the field at fault (`nma_data_content_type`, `nma_data`, `redeem_url`), or
    /// `dispatchTokenResponse` when the bytes are not an envelope at all.
    public init(json: Data) throws(OutOfBandError) {
        do {
            self = try JSONDecoder().decode(DispatchTokenEnvelope.self, from: json)
        } catch let error as OutOfBandError {
            throw error
        } catch {
            throw OutOfBandError(field: OperationLink.dispatchTokenParameter, problem: .invalidEnvelope,
                                 detail: "the payload is not an envelope (\(Self.summary(error)))",
                                 accepted: #"{"nma_data":…,"nma_data_content_type":"application/json"|"application/jose","nma_data_version":"1"}"#)
        }
    }

    /// Whether `json` is an object that names any of the envelope's keys: such bytes are read as
    /// an envelope (and refused as one, with the field at fault), anything else as another payload.
    static func claims(_ json: Data) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { return false }
        return CodingKeys.allCases.contains { object[$0.rawValue] != nil }
    }

    /// The envelope as JSON bytes with sorted keys.
    public func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case data = "nma_data", contentType = "nma_data_content_type", version = "nma_data_version"
    }

    private struct PlainData: Codable {
        var token: String
        var redeemURL: String
        enum CodingKeys: String, CodingKey { case token, redeemURL = "redeem_url" }
    }

    /// Decodes the envelope; see ``init(json:)``.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(String.self, forKey: .version)
        let type = try container.decode(String.self, forKey: .contentType)
        switch type {
        case "application/json":
            let data = try container.decode(PlainData.self, forKey: .data)
            content = .json(token: data.token, redeemURL: try URLRules.absoluteURL(data.redeemURL, field: "redeem_url"))
        case "application/jose":
            let jwe = try container.decode(String.self, forKey: .data)
            guard jwe.split(separator: ".", omittingEmptySubsequences: false).count == 5 else {
                throw OutOfBandError(field: "nma_data", problem: .invalidEnvelope, detail: "the JWE does not have five parts",
                                     accepted: "a compact JWE: header.key.iv.ciphertext.tag")
            }
            content = .jose(jwe)
        default:
            throw OutOfBandError(field: "nma_data_content_type", problem: .invalidEnvelope,
                                 detail: "'\(OutOfBandError.excerpt(type))' is not a known content type",
                                 accepted: "application/json or application/jose")
        }
    }

    /// Encodes the envelope with the source documents' keys.
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
