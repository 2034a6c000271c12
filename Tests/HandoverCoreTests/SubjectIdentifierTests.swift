import Foundation
@testable import HandoverCore
import PropertyBased
import Testing

/// Subject identifiers (RFC 9493 §3, SSF 1.0 §3.2) as SETs carry them: what Handover writes reads
/// back the same, any JSON is read or refused without anything else escaping, and a person is
/// found inside aliases and complex subjects.
@Suite struct SubjectIdentifierTests {
    static let text = Gen<Character?>.element(of: Array("ab@.xyz-_:/é日0 ")).compactMap { $0 }.string(of: 1...16)
    static let simple = zip(Gen<Int>.int(in: 0...2), text, text).map { kind, first, second -> SubjectIdentifier in
        switch kind {
        case 0: .email(first)
        case 1: .issuerSubject(issuer: first, subject: second)
        default: .opaque(first)
        }
    }
    static let any = zip(Gen<Int>.int(in: 0...2), simple, simple.array(of: 1...3), simple, simple).map { kind, one, several, device, session -> SubjectIdentifier in
        switch kind {
        case 0: one
        case 1: .aliases(several)
        default: .complex(user: one, device: device, session: session, tenant: nil)
        }
    }

    /// Every subject Handover writes reads back as the same subject, with the same canonical JSON.
    @Test func whatIsWrittenReadsBack() async {
        await propertyCheck(count: 300, input: Self.any) { subject in
            do {
                let data = try JSONEncoder().encode(subject)
                let read = try JSONDecoder().decode(SubjectIdentifier.self, from: data)
                #expect(read == subject && read.canonicalJSON == subject.canonicalJSON, "\(String(decoding: data, as: UTF8.self))")
            } catch {
                Issue.record("\(subject): \(error)")
            }
        }
    }

    static let json = Gen<Character?>.element(of: Array(#"{}[]":,formatemailissubidcomplexuserdevicealiasesidentifiers 0\"#)).compactMap { $0 }.string(of: 0...80)

    /// Any text is read as a subject or refused with a DecodingError; an unknown format is kept by
    /// name, never a crash.
    @Test func anyTextIsReadOrRefused() async {
        await propertyCheck(count: 1000, input: Self.json) { text in
            do {
                _ = try JSONDecoder().decode(SubjectIdentifier.self, from: Data(text.utf8))
            } catch is DecodingError {
            } catch {
                Issue.record("\(text): \(error)")
            }
        }
    }

    @Test func thePersonIsTheComplexSubjectsUserAndAliasesAreSearched() throws {
        let subject = try JSONDecoder().decode(SubjectIdentifier.self, from: Data("""
            {"format": "complex", "session": {"format": "opaque", "id": "s-1"},
             "user": {"format": "aliases", "identifiers": [{"format": "iss_sub", "iss": "https://idp.example.com", "sub": "u-1"},
                                                           {"format": "email", "email": "avery@example.com"}]},
             "tenant": {"format": "opaque", "id": "t"}}
            """.utf8))
        #expect(subject.person?.simpleIdentifiers == [.issuerSubject(issuer: "https://idp.example.com", subject: "u-1"), .email("avery@example.com")])
        #expect(subject.simpleIdentifiers.count == 4)
        let phone = try JSONDecoder().decode(SubjectIdentifier.self, from: Data(#"{"format": "phone_number", "phone_number": "+12065550100"}"#.utf8))
        #expect(phone == .other(format: "phone_number") && phone.person == nil, "an unknown format names nobody")
    }

    /// RFC 7519 §4.1.3: `aud` is one string or an array of them.
    @Test func anAudienceIsAStringOrAnArray() throws {
        #expect(try JSONDecoder().decode(AudienceClaim.self, from: Data(#""https://a""#.utf8)).values == ["https://a"])
        #expect(try JSONDecoder().decode(AudienceClaim.self, from: Data(#"["a", "b"]"#.utf8)).values == ["a", "b"])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(AudienceClaim.self, from: Data("3".utf8)) }
    }
}
