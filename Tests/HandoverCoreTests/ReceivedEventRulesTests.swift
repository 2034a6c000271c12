import Foundation
@testable import HandoverCore
import Testing

/// The Shared Signals receiver's rules without a database or a network (issue 65): a SET's
/// claims checked as RFC 8417 §2 and SSF 1.0 §4.1 say, each refusal an RFC 8935 §2.4 code, and
/// the event's action. Signatures and the whole exchange are `SharedSignalsReceiverTests`'.
@Suite struct ReceivedEventRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let issuer = "https://idp.example.org"
    static let audiences: Set<String> = ["https://handover.example.com"]

    /// A SET's claims, `changes` applied to a valid one (nil removes a claim).
    static func claims(_ changes: [String: Any?] = [:]) throws -> ReceivedSecurityEvent {
        var json: [String: Any] = [
            "iss": issuer, "aud": "https://handover.example.com", "iat": Int(now.timeIntervalSince1970) - 5, "jti": "set-1",
            "sub_id": ["format": "email", "email": "ada@hospital.example"],
            "events": [SecurityEventType.accountDisabled: ["reason": "hijacking"]],
        ]
        for (key, value) in changes { json[key] = value ?? nil }
        return try JSONDecoder().decode(ReceivedSecurityEvent.self, from: try JSONSerialization.data(withJSONObject: json))
    }

    static func refusal(_ changes: [String: Any?]) throws -> SETRefusal? {
        let claims = try claims(changes)
        do throws(SETRefusal) {
            try ReceivedEventRules.check(claims, issuer: issuer, audiences: audiences, now: now, maximumAge: 600)
            return nil
        } catch {
            return error
        }
    }

    @Test func aValidSETPassesAndEveryFaultHasItsCode() throws {
        #expect(try Self.refusal([:]) == nil)
        #expect(try Self.refusal(["aud": ["https://other.example", "https://handover.example.com"]]) == nil, "aud may be an array (RFC 7519 §4.1.3)")
        #expect(try Self.refusal(["iss": "https://evil.example"])?.err == "invalid_issuer")
        #expect(try Self.refusal(["iss": nil])?.err == "invalid_issuer")
        #expect(try Self.refusal(["aud": "https://other.example"])?.err == "invalid_audience")
        #expect(try Self.refusal(["iat": nil])?.description == "iat is missing (RFC 8417 §2.2)")
        #expect(try Self.refusal(["iat": Int(Self.now.timeIntervalSince1970) - 601])?.err == "invalid_request", "stale")
        #expect(try Self.refusal(["iat": Int(Self.now.timeIntervalSince1970) + 60]) == nil, "a minute's skew")
        #expect(try Self.refusal(["iat": Int(Self.now.timeIntervalSince1970) + 61])?.err == "invalid_request", "in the future")
        #expect(try Self.refusal(["jti": nil])?.err == "invalid_request")
        #expect(try Self.refusal(["jti": String(repeating: "j", count: 257)])?.err == "invalid_request")
        #expect(try Self.refusal(["jti": "a\nb"])?.err == "invalid_request")
        #expect(try Self.refusal(["sub": "ada"])?.description == "sub must not be present (SSF 1.0 §4.1.2)")
        #expect(try Self.refusal(["exp": 1])?.description == "exp must not be present (SSF 1.0 §4.1.7)")
        #expect(try Self.refusal(["events": [String: Any]()])?.description == "events must hold one event (SSF 1.0 §4.2.1)")
        #expect(try Self.refusal(["events": [SecurityEventType.accountDisabled: [:], SecurityEventType.sessionRevoked: [:]]])?.err == "invalid_request")
        #expect(try Self.refusal(["sub_id": nil])?.description == "sub_id is missing: whom does the event concern? (SSF 1.0 §3)")
        #expect(try Self.refusal(["sub_id": nil, "events": [SecurityEventType.verification: ["state": "x"]]]) == nil,
                "an event not acted on needs no subject")
    }

    @Test func theTypeHeaderIsSecevent() {
        #expect((try? ReceivedEventRules.checkType("secevent+jwt")) != nil)
        #expect((try? ReceivedEventRules.checkType("application/secevent+JWT")) != nil)
        for typ in [nil, "JWT", "at+jwt"] as [String?] {
            #expect(throws: SETRefusal.self) { try ReceivedEventRules.checkType(typ) }
        }
    }

    @Test func everyHandOverTriggerAboutAPersonHandsThemOverAndTheRestIsIgnored() throws {
        for type in SecurityEventType.handOverTriggers {
            let action = ReceivedEventRules.action(for: try Self.claims(["events": [type: [:]]]))
            #expect(action == .handOver(.email("ada@hospital.example"), reason: "identity provider: \(ReceivedEventRules.shortName(type))"), "\(type)")
        }
        #expect(ReceivedEventRules.action(for: try Self.claims(["events": [SecurityEventType.verification: [:]]])) == .ignore)
        #expect(ReceivedEventRules.action(for: try Self.claims(["events": ["https://example.org/unknown": [:]]])) == .ignore)
        #expect(ReceivedEventRules.shortName(SecurityEventType.accountDisabled) == "account-disabled")
    }
}
