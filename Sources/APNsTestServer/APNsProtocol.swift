import Crypto
import Foundation

/// What the test server knows, behind its lock.
struct APNsTestState {
    struct Key {
        var teamID: String
        var publicKey: P256.Signing.PublicKey
    }

    struct TokenInUse {
        var jwt: String
        var issuedAt: Int64
    }

    var keys: [String: Key] = [:]
    var scripts: [String: [ScriptedAnswer]] = [:]
    var unregistered: [String: Date] = [:]
    var records: [RecordedPush] = []
    /// The token APNs last accepted for each key id.
    var tokensInUse: [String: TokenInUse] = [:]
    var enforceTokenUpdateInterval = true
    var isShutDown = false
}

/// A request as the stream handler collected it.
struct IncomingRequest {
    var method: String
    var path: String
    var headers: [String: String]
    var body: Data
}

/// The answer: a status, Apple's reason, the `apns-id` and, for 410, the timestamp.
struct OutgoingResponse {
    var status: Int
    var reason: String?
    var apnsID: String
    var timestamp: Date?

    var body: Data {
        guard let reason else { return Data() }
        if let timestamp {
            return Data(#"{"reason":"\#(reason)","timestamp":\#(Int64(timestamp.timeIntervalSince1970 * 1000))}"#.utf8)
        }
        return Data(#"{"reason":"\#(reason)"}"#.utf8)
    }
}

/// Apple's provider API rules, as a function of the request, the state and the time.
enum APNsProtocol {
    static let pushTypes: Set<String> = ["alert", "background", "location", "voip", "complication", "fileprovider", "mdm",
                                         "liveactivity", "pushtotalk", "controls", "widgets"]

    static func respond(to request: IncomingRequest, state: inout APNsTestState, now: Date) -> OutgoingResponse {
        let apnsID = request.headers["apns-id"] ?? UUID().uuidString
        func answer(_ status: Int, _ reason: String?, timestamp: Date? = nil) -> OutgoingResponse {
            OutgoingResponse(status: status, reason: reason, apnsID: apnsID, timestamp: timestamp)
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "", parts[1] == "3", parts[2] == "device" else { return answer(404, "BadPath") }
        guard request.method == "POST" else { return answer(405, "MethodNotAllowed") }
        guard parts.count == 4, !parts[3].isEmpty else { return answer(400, "MissingDeviceToken") }
        let deviceToken = String(parts[3])

        // The provider token.
        guard let authorization = request.headers["authorization"] else { return answer(403, "MissingProviderToken") }
        let jwt: String
        switch checkProviderToken(authorization, state: &state, now: now) {
        case .failure(let refusal): return answer(403, refusal.reason)
        case .success(let token):
            jwt = token.jwt
            if state.enforceTokenUpdateInterval, let inUse = state.tokensInUse[token.keyID], inUse.jwt != jwt,
               token.issuedAt - inUse.issuedAt < 20 * 60 {
                return answer(429, "TooManyProviderTokenUpdates")
            }
            state.tokensInUse[token.keyID] = APNsTestState.TokenInUse(jwt: jwt, issuedAt: token.issuedAt)
        }

        // Headers.
        guard let topic = request.headers["apns-topic"], !topic.isEmpty else { return answer(400, "MissingTopic") }
        guard let pushType = request.headers["apns-push-type"], pushTypes.contains(pushType) else { return answer(400, "InvalidPushType") }
        if let priority = request.headers["apns-priority"], !["1", "5", "10"].contains(priority) { return answer(400, "BadPriority") }
        if pushType == "background", request.headers["apns-priority"] == "10" { return answer(400, "BadPriority") }
        if let expiration = request.headers["apns-expiration"], Int64(expiration) == nil { return answer(400, "BadExpirationDate") }
        if let id = request.headers["apns-id"], UUID(uuidString: id) == nil { return answer(400, "BadMessageId") }
        if let collapse = request.headers["apns-collapse-id"], collapse.utf8.count > 64 { return answer(400, "BadCollapseId") }

        // The device token and the payload.
        guard deviceToken.count == 64, deviceToken.allSatisfy({ $0.isHexDigit && $0.isASCII }) else { return answer(400, "BadDeviceToken") }
        guard !request.body.isEmpty else { return answer(400, "PayloadEmpty") }
        guard request.body.count <= (pushType == "voip" ? 5120 : 4096) else { return answer(413, "PayloadTooLarge") }

        if let since = state.unregistered[deviceToken] { return answer(410, "Unregistered", timestamp: since) }
        if var script = state.scripts[deviceToken], !script.isEmpty {
            let next = script.removeFirst()
            state.scripts[deviceToken] = script
            switch next {
            case .unregistered(let since):
                state.unregistered[deviceToken] = since
                return answer(410, "Unregistered", timestamp: since)
            case .status(let status, let reason):
                if reason == "ExpiredProviderToken" || reason == "InvalidProviderToken" {
                    // A token APNs refused is not "in use": its replacement is not a too-early update.
                    state.tokensInUse = state.tokensInUse.filter { $0.value.jwt != jwt }
                }
                return answer(status, reason)
            }
        }
        return answer(200, nil)
    }

    struct Refusal: Error {
        var reason: String
    }

    struct ProviderToken {
        var jwt: String
        var keyID: String
        var issuedAt: Int64
    }

    /// `bearer <ES256 JWT>` with a registered `kid`, the key's team as `iss`, a valid signature and
    /// an `iat` within the last hour.
    static func checkProviderToken(_ header: String, state: inout APNsTestState, now: Date) -> Result<ProviderToken, Refusal> {
        let pieces = header.split(separator: " ", maxSplits: 1)
        guard pieces.count == 2, pieces[0].lowercased() == "bearer" else { return .failure(Refusal(reason: "InvalidProviderToken")) }
        let jwt = String(pieces[1])
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerData = base64URLDecode(parts[0]), let claimsData = base64URLDecode(parts[1]), let signature = base64URLDecode(parts[2]),
              let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any]
        else { return .failure(Refusal(reason: "InvalidProviderToken")) }
        guard header["alg"] as? String == "ES256", let keyID = header["kid"] as? String, let key = state.keys[keyID] else {
            return .failure(Refusal(reason: "InvalidProviderToken"))
        }
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
              key.publicKey.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8)) else {
            return .failure(Refusal(reason: "InvalidProviderToken"))
        }
        guard claims["iss"] as? String == key.teamID, let iatNumber = claims["iat"] as? NSNumber else { return .failure(Refusal(reason: "InvalidProviderToken")) }
        let issuedAt = iatNumber.int64Value
        let nowSeconds = Int64(now.timeIntervalSince1970)
        if issuedAt > nowSeconds + 60 { return .failure(Refusal(reason: "InvalidProviderToken")) }
        if nowSeconds - issuedAt > 3600 { return .failure(Refusal(reason: "ExpiredProviderToken")) }
        return .success(ProviderToken(jwt: jwt, keyID: keyID, issuedAt: issuedAt))
    }

    static func base64URLDecode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { return nil }
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
