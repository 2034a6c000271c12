import PropertyBased
import SCIM
import Testing

/// A small deterministic generator (SplitMix64), so one seed from PropertyBased builds a whole
/// random filter or user.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum RandomSCIM {
    static let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    static let nameCharacters = letters + Array("0123456789-_")

    static func name(_ rng: inout SplitMix) -> String {
        if Int.random(in: 0..<20, using: &rng) == 0 { return "$ref" }
        var text = String(letters.randomElement(using: &rng) ?? "a")
        for _ in 0..<Int.random(in: 0...7, using: &rng) { text.append(nameCharacters.randomElement(using: &rng) ?? "a") }
        return text
    }

    static func path(_ rng: inout SplitMix) -> SCIMAttributePath {
        let schema: String? = switch Int.random(in: 0..<6, using: &rng) {
        case 0: SCIMSchemaURI.enterpriseUser
        case 1: SCIMSchemaURI.user
        default: nil
        }
        let sub: String? = Bool.random(using: &rng) ? name(&rng) : nil
        return SCIMAttributePath(schema: schema, attribute: name(&rng), subAttribute: sub)
    }

    static func string(_ rng: inout SplitMix) -> String {
        let pool: [Unicode.Scalar] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{1F}", "é", "😀", "[", "]", "(", ")", "0", "\u{2028}"]
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &rng) { text.append(pool.randomElement(using: &rng) ?? "a") }
        return String(text)
    }

    static func value(_ rng: inout SplitMix) -> SCIMValue {
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .integer(Int64.random(in: .min ... .max, using: &rng))
        case 3:
            let decimal = Double(bitPattern: rng.next())
            return .decimal(decimal.isFinite ? decimal : Double.random(in: -1e6...1e6, using: &rng))
        default: return .string(string(&rng))
        }
    }

    static func filter(_ rng: inout SplitMix, depth: Int, inValuePath: Bool = false) -> SCIMFilter {
        let choice = depth <= 0 ? Int.random(in: 0..<2, using: &rng) : Int.random(in: 0..<6, using: &rng)
        switch choice {
        case 0: return .compare(path(&rng), SCIMComparison.allCases.randomElement(using: &rng) ?? .eq, value(&rng))
        case 1: return .present(path(&rng))
        case 2: return .and(filter(&rng, depth: depth - 1, inValuePath: inValuePath), filter(&rng, depth: depth - 1, inValuePath: inValuePath))
        case 3: return .or(filter(&rng, depth: depth - 1, inValuePath: inValuePath), filter(&rng, depth: depth - 1, inValuePath: inValuePath))
        case 4: return .not(filter(&rng, depth: depth - 1, inValuePath: inValuePath))
        default:
            if inValuePath { return .present(path(&rng)) }
            return .valuePath(path(&rng), filter(&rng, depth: depth - 1, inValuePath: true))
        }
    }
}

@Suite struct SCIMPropertyTests {
    /// (a) print then parse gives the same filter.
    @Test func filtersRoundTripThroughTheirText() async {
        await propertyCheck(count: 500, input: Gen<UInt64>.uint64()) { seed in
            var rng = SplitMix(state: seed)
            let filter = RandomSCIM.filter(&rng, depth: 4)
            let text = filter.description
            let parsed = try SCIMFilter(parsing: text)
            #expect(parsed == filter, "\(text)")
            #expect(parsed.description == text)
        }
    }

    /// (b) any text parses or throws a SCIMError of the parser's kind; nothing crashes.
    @Test func randomTextNeverCrashesTheParsers() async {
        let characters: [Character] = ["a", "Z", "1", " ", " ", "\"", "\\", "[", "]", "(", ")", ".", ":", "$", "-", "e", "q", "o", "r", "n", "t", "p", "u", ",", "é"]
        let text = Gen<Character?>.element(of: characters).map { $0 ?? " " }.string(of: 0...60)
        await propertyCheck(count: 1000, input: text) { text in
            #expect(scimError { () throws(SCIMError) in try SCIMFilter(parsing: text) }.map { $0.scimType == .invalidFilter } ?? true)
            #expect(scimError { () throws(SCIMError) in try SCIMPatchPath(parsing: text) }.map { $0.scimType == .invalidPath } ?? true)
            #expect(scimError { () throws(SCIMError) in try SCIMAttributePath(parsing: text) }.map { $0.scimType == .invalidPath } ?? true)
            #expect(scimError { () throws(SCIMError) in try SCIMAttributePath.list(parsing: text) }.map { $0.scimType == .invalidValue } ?? true)
        }
        // Keywords and operators mixed at random.
        let words = ["emails", "type", "eq", "ne", "pr", "and", "or", "not", "(", ")", "[", "]", "\"w\"", "1", "true", " ", ".value", "-", "1e", "\"\\u12\""]
        let sentence = Gen<String?>.element(of: words).map { $0 ?? " " }.array(of: 0...20).map { $0.joined(separator: " ") }
        await propertyCheck(count: 1000, input: sentence) { text in
            #expect(scimError { () throws(SCIMError) in try SCIMFilter(parsing: text) }.map { $0.scimType == .invalidFilter } ?? true)
            #expect(scimError { () throws(SCIMError) in try SCIMPatchPath(parsing: text) }.map { $0.scimType == .invalidPath } ?? true)
        }
    }

    static let simpleAttributes = ["displayName", "nickName", "title", "userType", "preferredLanguage", "locale", "timezone", "externalId", "profileUrl"]

    static func randomUser(_ rng: inout SplitMix) -> SCIMValue {
        var members: [String: SCIMValue] = ["schemas": .array([.string(SCIMSchemaURI.user)]), "id": .string("u\(rng.next())"),
                                            "userName": .string("user\(rng.next() % 1000)")]
        for name in simpleAttributes where Bool.random(using: &rng) { members[name] = .string(RandomSCIM.string(&rng)) }
        if Bool.random(using: &rng) { members["active"] = .bool(Bool.random(using: &rng)) }
        if Bool.random(using: &rng) {
            members["emails"] = .array((0..<Int.random(in: 0...3, using: &rng)).map { index in
                .object(["value": .string("e\(index)@example.com"), "type": .string(["work", "home", "other"][index])])
            })
        }
        return .object(members)
    }

    /// Names written in any case find the attribute.
    static func randomCase(_ name: String, _ rng: inout SplitMix) -> String {
        String(name.map { Bool.random(using: &rng) ? Character($0.uppercased()) : Character($0.lowercased()) })
    }

    /// (c) replacing a simple attribute then reading it gives the value, under the existing
    /// key's spelling.
    @Test func replaceThenReadGivesTheValue() async {
        await propertyCheck(count: 300, input: Gen<UInt64>.uint64()) { seed in
            var rng = SplitMix(state: seed)
            let user = Self.randomUser(&rng)
            let name = Self.simpleAttributes.randomElement(using: &rng) ?? "title"
            let value = "v" + RandomSCIM.string(&rng)
            let path = Self.randomCase(name, &rng)
            let request = SCIMPatchRequest(operations: [SCIMPatchOperation(op: .replace, path: try SCIMPatchPath(parsing: path), value: .string(value))])
            let updated = try request.apply(to: user, schema: .user)
            #expect(updated.member(name) == .string(value))
            #expect(updated.objectValue?.keys.filter { $0.lowercased() == name.lowercased() }.count == 1)
            #expect(updated.member("userName") == user.member("userName"))
            #expect(SCIMFilter.compare(SCIMAttributePath(attribute: name), .eq, .string(value)).matches(updated, schema: .user))
            let flag = Bool.random(using: &rng)
            let disabled = try SCIMPatchRequest(body: try patchBody(#"[{"op":"Replace","path":"active","value":"\#(flag ? "True" : "false")"}]"#))
                .apply(to: user, schema: .user)
            #expect(disabled.member("active") == .bool(flag))
        }
    }

    /// (c) adding then removing a member leaves the members as they were.
    @Test func addThenRemoveMemberLeavesMembers() async {
        await propertyCheck(count: 300, input: Gen<UInt64>.uint64()) { seed in
            var rng = SplitMix(state: seed)
            let existing = (0..<Int.random(in: 0...5, using: &rng)).map { index in SCIMValue.object(["value": .string("m\(index)")]) }
            var members: [String: SCIMValue] = ["schemas": .array([.string(SCIMSchemaURI.group)]), "displayName": .string("G")]
            if !existing.isEmpty { members["members"] = .array(existing) }
            let group = SCIMValue.object(members)
            let newcomer = "new-\(rng.next())"
            let added = try patched(group, #"[{"op":"add","path":"members","value":[{"value":"\#(newcomer)"}]}]"#, schema: .group)
            #expect(added.member("members")?.arrayValue?.count == existing.count + 1)
            let removals = [
                #"[{"op":"remove","path":"members[value eq \"\#(newcomer)\"]"}]"#,
                #"[{"op":"Remove","path":"members","value":[{"$ref":null,"value":"\#(newcomer)"}]}]"#,
            ]
            let removed = try patched(added, removals[Int.random(in: 0...1, using: &rng)], schema: .group)
            #expect(removed == group)
        }
    }
}
