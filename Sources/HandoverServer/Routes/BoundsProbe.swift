import Foundation

/// Checks a JSON body against its ``ValueBounds``, decoding only the members that are bounded (an
/// unbounded member is skipped, not built): the first value outside its bounds is the refusal.
///
/// A body that is not JSON, or a value of another type than declared, is no refusal here: the
/// operation's own decoding answers it as before (400 `invalid_json`, or the route's own error),
/// so this check adds no second opinion on the shape, only the bounds the generated code skips.
struct BoundsProbe: Decodable {
    private static let boundsKey = CodingUserInfoKey(rawValue: "handover.declared-bounds")!

    /// The first value of `body` outside `bounds`, or nil. (``OperationBounds/refusal(inBody:)``
    /// first skips a body too short to break them, such as a badge check-out's.)
    static func refusal(in body: Data, bounds: ValueBounds) -> ValueBounds.Refusal? {
        let decoder = JSONDecoder()
        decoder.userInfo[boundsKey] = bounds
        do {
            _ = try decoder.decode(BoundsProbe.self, from: body)
            return nil
        } catch let refusal as ValueBounds.Refusal {
            return refusal
        } catch {
            return nil
        }
    }

    init(from decoder: any Decoder) throws {
        guard let bounds = decoder.userInfo[Self.boundsKey] as? ValueBounds else { return }
        try Self.check(bounds, in: decoder, field: "")
    }

    /// Throws the refusal of the value `decoder` holds, named `field`, and of what it holds.
    private static func check(_ bounds: ValueBounds, in decoder: any Decoder, field: String) throws {
        switch bounds {
        case .integer:
            guard let value = try? decoder.singleValueContainer() else { return }
            if let whole = try? value.decode(Int64.self) {
                if let refusal = bounds.refusal(ofInteger: whole, field: field) { throw refusal }
            } else if let number = try? value.decode(Double.self), let refusal = bounds.refusal(ofNumber: number, field: field) {
                throw refusal
            }
        case .string(let minimum, let maximum):
            guard let text = try? decoder.singleValueContainer().decode(String.self) else { return }
            if let refusal = bounds.refusal(ofLength: text.unicodeScalars.count, field: field, minimum: minimum, maximum: maximum) { throw refusal }
        case .array(_, _, let items):
            guard var container = try? decoder.unkeyedContainer() else { return }
            if let count = container.count, let refusal = bounds.refusal(ofCount: count, field: field) { throw refusal }
            guard let items else { return }
            var index = 0
            while !container.isAtEnd, let item = try? container.superDecoder() {
                try check(items, in: item, field: "\(field)[\(index)]")
                index += 1
            }
        case .object(let members):
            guard let container = try? decoder.container(keyedBy: MemberKey.self) else { return }
            for (name, member) in members {
                let key = MemberKey(stringValue: name)
                guard container.contains(key), (try? container.decodeNil(forKey: key)) == false,
                      let value = try? container.superDecoder(forKey: key) else { continue }
                try check(member, in: value, field: field.isEmpty ? name : "\(field).\(name)")
            }
        }
    }

    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
