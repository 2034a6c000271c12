import HandoverCore
import NIOHTTP1
import RawStructuredFieldValues

/// The `Idempotency-Key` request field of a run start (draft-ietf-httpapi-idempotency-key-header,
/// §2.1): an Item Structured Header (RFC 9651 §3.3) whose value MUST be a String, such as
/// `Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"`. Parsed by Apple's
/// swift-http-structured-headers; parameters after the string are allowed and ignored.
///
/// Handover's published format (§2.2, and the Security Considerations' "a fixed format"): the
/// string holds 1 to 255 characters (a UUID is advised). The key is the device's own: the server
/// looks it up with the run's device.
enum IdempotencyKeyField {
    /// The field's name.
    static let name = "Idempotency-Key"

    /// The key in `values` (the request's `Idempotency-Key` field lines); nil when there is none.
    ///
    /// - Throws: a 400 `invalid_idempotency_key` naming the field, when the field appears more than
    ///   once (§2.1: a client MUST NOT send two), is not an sf-string, or is empty or too long.
    static func key(in values: [String]) throws -> String? {
        guard let value = values.first else { return nil }
        guard values.count == 1 else { throw invalid("sent more than once; send one key") }
        var parser = StructuredFieldValueParser(Array(value.utf8))
        guard let item = try? parser.parseItemFieldValue() else {
            throw invalid("not a Structured Field String (RFC 9651 §3.3.3): send the key in double quotes, such as \"8e03978e-40d5-43e8-bc93-6894a57f9324\"")
        }
        guard case .string(let key) = item.rfc9651BareItem else {
            throw invalid("not a String: send the key in double quotes, such as \"8e03978e-40d5-43e8-bc93-6894a57f9324\"")
        }
        guard (1...RunStartKey.maximumLength).contains(key.count) else {
            throw invalid("\(key.count) characters; a key holds 1 to \(RunStartKey.maximumLength) (a UUID is advised)")
        }
        return key
    }

    private static func invalid(_ reason: String) -> APIError {
        APIError(.badRequest, code: "invalid_idempotency_key", reason: "\(name): \(reason)", field: name)
    }
}
