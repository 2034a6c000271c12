/// Percent-decoding as iOS applies it under `percentEncoded: false`.
enum PercentDecoding {
    /// Replaces every `%XX` (two hex digits, either case) by its byte. A `%` that is not followed by
    /// two hex digits stays as written. `+` is not a space.
    static func decode(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "%")) else { return Array(bytes) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.endIndex,
               let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) {
                output.append(high << 4 | low)
                i += 3
            } else {
                output.append(bytes[i])
                i += 1
            }
        }
        return output
    }
}
