/// Counts the server-sent events named `replace` in a live overview's stream, read chunk by
/// chunk (``DashboardProbe``): an `event: replace` line split across two chunks counts once.
///
/// It reads bytes. The probe used to join each chunk to a `String` and split it with Foundation's
/// `components(separatedBy:)`: with 50 dashboards open that ran on every chunk of every stream
/// after each render, on the load generator's threads, which time the phones' callbacks too, and
/// on 2 cores beside the server (issue 37).
struct ReplaceEventCounter: Sendable {
    /// What starts each counted event.
    static let marker = Array("event: replace".utf8)

    /// The last chunk's final bytes, one fewer than a marker: where a marker cut by the chunk's
    /// end begins (too short to hold a whole one).
    private var carry: [UInt8] = []

    /// The markers that end in `chunk` (begun in it or in the chunk before).
    mutating func count(_ chunk: some Collection<UInt8>) -> Int {
        var bytes = carry
        bytes.append(contentsOf: chunk)
        let marker = Self.marker
        var found = 0
        bytes.withUnsafeBufferPointer { bytes in
            guard bytes.count >= marker.count else { return }
            var start = 0
            while start <= bytes.count - marker.count {
                if bytes[start] == marker[0], (1..<marker.count).allSatisfy({ bytes[start + $0] == marker[$0] }) {
                    found += 1
                    start += marker.count
                } else {
                    start += 1
                }
            }
        }
        carry = Array(bytes.suffix(marker.count - 1))
        return found
    }
}
