import Foundation
import NIOConcurrencyHelpers

/// The `Date` header's value (RFC 9110's IMF-fixdate), formatted at most once a second.
final class HTTPDateHeader: Sendable {
    private let cache = NIOLockedValueBox<(second: Int, value: String)>((-1, ""))

    func current() -> String {
        var now = time(nil)
        if let value = cache.withLockedValue({ $0.second == now ? $0.value : nil }) { return value }
        var parts = tm()
        gmtime_r(&now, &parts)
        var text = [CChar](repeating: 0, count: 64)
        let count = strftime(&text, text.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        let value = String(decoding: text[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        cache.withLockedValue { $0 = (now, value) }
        return value
    }
}
