import Foundation

/// (jwt-kit asks claims to be Codable; Handover only decodes them.)
/// Decodes a boolean claim that Apple sends either as a JSON bool or as the string "true"/"false".
struct LenientBool: Codable {
    let value: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            value = bool
        } else if let string = try? container.decode(String.self) {
            switch string.lowercased() {
            case "true": value = true
            case "false": value = false
            default:
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(string)\" is not true or false")
            }
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a bool or \"true\"/\"false\"")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// Decodes `aud`, which JWT allows as one string or an array of strings.
struct AudienceList: Codable {
    let values: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let one = try? container.decode(String.self) {
            values = [one]
        } else {
            values = try container.decode([String].self)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if values.count == 1 { try container.encode(values[0]) } else { try container.encode(values) }
    }
}

/// Decodes a NumericDate (seconds since 1970, integer or fractional).
struct NumericDate: Codable {
    let date: Date

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        date = Date(timeIntervalSince1970: try container.decode(Double.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(date.timeIntervalSince1970)
    }
}
