import NIOHTTP1

/// The bounds `openapi.yaml` declares on one value (a parameter, a JSON body, a member or an
/// item of one), as ``OpenAPIDocument/bounds`` lists them: JSON Schema's `minimum` and `maximum`
/// on an integer, `minLength` and `maxLength` on a string, `minItems` and `maxItems` on an
/// array, and an object's bounded members.
///
/// A string's length is its number of Unicode code points, as JSON Schema counts it (JSON Schema
/// Validation, §6.3.1: "the number of its characters as defined by RFC 8259"), not of
/// grapheme clusters, so the server and the document's clients (schemathesis) count alike.
indirect enum ValueBounds: Sendable {
    /// A whole number in 64 bits; an integer parameter is listed even without a bound, so text
    /// that is not one is refused naming it.
    case integer(minimum: Int64? = nil, maximum: Int64? = nil)
    case string(minLength: Int? = nil, maxLength: Int? = nil)
    case array(minItems: Int? = nil, maxItems: Int? = nil, items: ValueBounds? = nil)
    /// The members that are bounded (or hold a bounded value), by name, in the order they are checked.
    case object(KeyValuePairs<String, ValueBounds>)

    /// The fewest bytes of JSON that could hold a value outside these bounds: a body shorter than
    /// this cannot break them, so it is not read. A string longer than `maxLength` takes at least
    /// `maxLength + 3` bytes (its quotes, and a byte or more for each code point); an array with
    /// more than `maxItems` items at least `2 × (maxItems + 1) + 1` (its brackets, an item of a
    /// byte or more and a comma between each two). A lower bound, or any bound on an integer, can
    /// be broken by a body of any length (0).
    var shortestBreakingJSON: Int {
        switch self {
        case .integer: 0
        case .string(let minimum, let maximum): (minimum ?? 0) > 0 ? 0 : maximum.map { $0 + 3 } ?? .max
        case .array(let minimum, let maximum, let items):
            (minimum ?? 0) > 0 ? 0 : min(maximum.map { 2 * ($0 + 1) + 1 } ?? .max, items?.shortestBreakingJSON ?? .max)
        case .object(let members): members.map(\.value.shortestBreakingJSON).min() ?? .max
        }
    }

    /// A value outside its bounds: which field, what was wrong, and what is accepted.
    struct Refusal: Error, Equatable {
        /// `out_of_bounds`, or `invalid_parameter` for a parameter that is not a whole number at all.
        var code: String
        /// The parameter's name, or the body field's path (`delivery.endpoint_url`, `ack[3]`).
        var field: String
        var problem: String
        var accepted: String

        /// The API's 400 for it: `{"error", "reason", "field"}`.
        var apiError: APIError {
            APIError(.badRequest, code: code, reason: "\(field): \(problem); accepted: \(accepted).", field: field)
        }
    }

    /// The refusal of a query or path parameter's text (percent-decoded), or nil when it is within.
    func refusal(ofParameter text: String, field: String) -> Refusal? {
        switch self {
        case .integer(let minimum, let maximum):
            guard let value = Int64(text) else {
                // Digits that do not fit in 64 bits are a number out of bounds; anything else is not a number.
                let digits = text.utf8.first == UInt8(ascii: "-") || text.utf8.first == UInt8(ascii: "+") ? text.utf8.dropFirst() : text.utf8[...]
                let isWhole = !digits.isEmpty && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
                return Refusal(code: isWhole ? "out_of_bounds" : "invalid_parameter", field: field,
                               problem: "'\(Self.shown(text))' is \(isWhole ? "beyond a 64-bit integer" : "not a whole number")",
                               accepted: Self.describe(minimum: minimum, maximum: maximum))
            }
            return refusal(ofInteger: value, field: field)
        case .string(let minimum, let maximum):
            return refusal(ofLength: text.unicodeScalars.count, field: field, minimum: minimum, maximum: maximum)
        case .array, .object:
            return nil
        }
    }

    /// The refusal of a whole number, or nil when it is within.
    func refusal(ofInteger value: Int64, field: String) -> Refusal? {
        guard case .integer(let minimum, let maximum) = self else { return nil }
        if let minimum, value < minimum { return outOfBounds(field, "\(value) is below \(minimum)") }
        if let maximum, value > maximum { return outOfBounds(field, "\(value) is above \(maximum)") }
        return nil
    }

    /// The refusal of a number beyond 64 bits or with a fraction, compared with an integer's bounds.
    func refusal(ofNumber value: Double, field: String) -> Refusal? {
        guard case .integer(let minimum, let maximum) = self else { return nil }
        if let minimum, value < Double(minimum) { return outOfBounds(field, "\(value) is below \(minimum)") }
        if let maximum, value > Double(maximum) { return outOfBounds(field, "\(value) is above \(maximum)") }
        return nil
    }

    /// The refusal of a string of `length` code points, or nil when it is within.
    func refusal(ofLength length: Int, field: String, minimum: Int?, maximum: Int?) -> Refusal? {
        if let minimum, length < minimum { return outOfBounds(field, "\(length) character\(length == 1 ? " is" : "s are") too few") }
        if let maximum, length > maximum { return outOfBounds(field, "\(length) characters are too many") }
        return nil
    }

    /// The refusal of an array of `count` items, or nil when it is within.
    func refusal(ofCount count: Int, field: String) -> Refusal? {
        guard case .array(let minimum, let maximum, _) = self else { return nil }
        if let minimum, count < minimum { return outOfBounds(field, "\(count) item\(count == 1 ? " is" : "s are") too few") }
        if let maximum, count > maximum { return outOfBounds(field, "\(count) items are too many") }
        return nil
    }

    private func outOfBounds(_ field: String, _ problem: String) -> Refusal {
        Refusal(code: "out_of_bounds", field: field, problem: problem, accepted: accepted)
    }

    /// What the bounds accept, in words: "a whole number from 1 to 100000", "at most 64 characters".
    var accepted: String {
        switch self {
        case .integer(let minimum, let maximum): Self.describe(minimum: minimum, maximum: maximum)
        case .string(let minimum, let maximum): Self.range(minimum.map(Int64.init), maximum.map(Int64.init), unit: "characters")
        case .array(let minimum, let maximum, _): Self.range(minimum.map(Int64.init), maximum.map(Int64.init), unit: "items")
        case .object: "an object"
        }
    }

    private static func describe(minimum: Int64?, maximum: Int64?) -> String {
        switch (minimum, maximum) {
        case let (minimum?, maximum?): "a whole number from \(minimum) to \(maximum)"
        case let (minimum?, nil): "a whole number from \(minimum) up (64 bits)"
        case let (nil, maximum?): "a whole number up to \(maximum) (64 bits)"
        case (nil, nil): "a whole number (64 bits)"
        }
    }

    /// "1 to 64 characters", "at least 1 item".
    private static func range(_ minimum: Int64?, _ maximum: Int64?, unit: String) -> String {
        func units(_ count: Int64) -> String { count == 1 ? String(unit.dropLast()) : unit }
        switch (minimum, maximum) {
        case let (minimum?, maximum?): return "\(minimum) to \(maximum) \(units(maximum))"
        case let (minimum?, nil): return "at least \(minimum) \(units(minimum))"
        case let (nil, maximum?): return "at most \(maximum) \(units(maximum))"
        case (nil, nil): return "any number of \(unit)"
        }
    }

    /// At most 40 characters of what was sent, control characters shown as `?`.
    private static func shown(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(40).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
            + (text.unicodeScalars.count > 40 ? "…" : "")
    }
}
