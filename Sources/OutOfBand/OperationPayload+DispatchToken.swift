import Foundation

extension OperationPayload {
    /// Reads the value of `dispatchTokenResponse`: a `v1.` payload, or the source documents'
    /// envelope as base64url JSON (``dispatchToken(_:)``).
    ///
    /// Text that starts as a `v1.` payload (base64url has no `.`) is read as one. Other text must
    /// be unpadded base64url; JSON that names an `nma_data…` key is read as the envelope, and a
    /// refusal names the envelope's field at fault; anything else is not a payload at all.
    public init(dispatchTokenResponse text: String, field: String = "dispatchTokenResponse") throws(OutOfBandError) {
        guard !text.contains("."), !text.isEmpty else {
            try self.init(text: text, field: field)
            return
        }
        guard text.utf8.count <= Self.maximumLength else {
            throw OutOfBandError(field: field, problem: .tooLong, detail: "the payload is \(text.utf8.count) bytes long",
                                 accepted: "at most \(Self.maximumLength) bytes")
        }
        let json = try Base64URL.decode(text, field: field)
        guard DispatchTokenEnvelope.claims(json) else {
            throw OutOfBandError(field: field, problem: .invalidPayload,
                                 detail: "the payload is neither a v1. payload nor the source documents' envelope",
                                 accepted: #"v1.p.…, v1.e.…, or base64url of {"nma_data":…,"nma_data_content_type":…,"nma_data_version":…}"#)
        }
        self = .dispatchToken(try DispatchTokenEnvelope(json: json))
    }
}
