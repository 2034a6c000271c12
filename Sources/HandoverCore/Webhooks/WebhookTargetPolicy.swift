import Foundation
import LinkCallbacks
import NIOCore
import NIOPosix

/// Where webhook deliveries may go. A webhook URL is written by an admin but resolved by this
/// server, so a name can point anywhere: at the cloud's metadata service (`169.254.169.254`), at
/// a link-local device, or into the private network behind the server. The policy is applied
/// twice: to an address written in the URL when the webhook is registered, and to every address
/// the host name resolves to just before each delivery.
///
/// - Link-local, metadata, multicast, unspecified and reserved addresses: never.
/// - Loopback and private ranges (RFC 1918, RFC 6598 shared space, IPv6 unique local): only when
///   an admin allows them (`--webhook-private-targets`).
/// - Everything else: allowed.
package struct WebhookTargetPolicy: Sendable {
    /// Whether loopback and private addresses may be targets.
    package var allowsPrivate: Bool

    /// What an address is, for the policy.
    package enum AddressClass: Equatable, Sendable {
        case global
        case loopback
        case `private`
        /// Never a target, with the range's name.
        case forbidden(String)
    }

    /// Why a target was refused: the address and the range it falls in.
    package struct Refusal: Error, CustomStringConvertible, Sendable {
        package var host: String
        package var address: String
        package var range: String
        /// A loopback or private address: `--webhook-private-targets` would allow it.
        package var isAllowable = false
        package var description: String {
            host == address
                ? "\(address) is \(range), which webhooks may not reach"
                : "\(host) resolves to \(address), \(range), which webhooks may not reach"
        }

        /// What to do instead, for a `peer` such as "receiver" or "backend": a public https
        /// one, or, for an address inside the network, the switch that allows it.
        package func advice(for peer: String) -> String {
            isAllowable
                ? "\(description); give the address of a public https \(peer), or, for one inside your network, start the server with "
                    + "--webhook-private-targets (HANDOVER_WEBHOOK_PRIVATE_TARGETS=1)"
                : "\(description); give the address of a public https \(peer)"
        }
    }

    /// The refusal for one address, or `nil` when the policy allows it.
    package func refusal(host: String, address: String, class addressClass: AddressClass) -> Refusal? {
        switch addressClass {
        case .global: return nil
        case .loopback, .private:
            return allowsPrivate ? nil : Refusal(host: host, address: address,
                                                 range: addressClass == .loopback ? "a loopback address" : "a private address", isAllowable: true)
        case .forbidden(let range): return Refusal(host: host, address: address, range: range)
        }
    }

    /// Checks a host as a URL writes it, at registration (a webhook, a backend's back-channel
    /// logout URI, a Shared Signals push endpoint): an IP address in any spelling a resolver reads
    /// (``numericIPv4(_:)``: `0xa9fea9fe`, `2852039166` and `0251.0376.0251.0376` are all
    /// 169.254.169.254), and `localhost` or a name under it (RFC 6761 §6.3), which is loopback.
    /// Other names pass here and are checked at delivery, when they are resolved.
    package func checkLiteral(_ host: String) -> Refusal? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if Self.isLocalhostName(bare) { return refusal(host: host, address: host, class: .loopback) }
        if let bytes = Self.addressBytes(bare) { return refusal(host: host, address: bare, class: Self.classify(bytes)) }
        guard let bytes = Self.numericIPv4(bare) else { return nil }
        return refusal(host: host, address: bytes.map(String.init).joined(separator: "."), class: Self.classify(bytes))
    }

    /// `localhost`, or a name under it (`ward7.localhost`), in any case, with or without a final dot.
    package static func isLocalhostName(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name == "localhost" || name.hasSuffix(".localhost")
    }

    /// The 4 bytes of an IPv4 address written as `inet_aton` and the WHATWG URL standard's IPv4
    /// parser read it: one to four parts separated by dots (a final dot allowed), each decimal,
    /// hexadecimal (`0x`) or octal (a leading `0`), the last part filling the bytes the others
    /// leave (`10.1` is 10.0.0.1, `2852039166` is 169.254.169.254); nil for a name.
    package static func numericIPv4(_ text: String) -> [UInt8]? {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            var digits = part, radix = 10
            if digits.count >= 2, digits.hasPrefix("0x") || digits.hasPrefix("0X") {
                digits = digits.dropFirst(2)
                radix = 16
            } else if digits.count >= 2, digits.hasPrefix("0") {
                digits = digits.dropFirst()
                radix = 8
            }
            guard let number = digits.isEmpty && radix == 16 ? 0 : UInt64(digits, radix: radix) else { return nil }
            numbers.append(number)
        }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }), let last = numbers.last, last < UInt64(1) << (8 * (5 - numbers.count)) else { return nil }
        var value = last
        for (index, number) in numbers.dropLast().enumerated() { value += number << (8 * (3 - index)) }
        return [UInt8(value >> 24 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    /// Resolves `host` and checks every address it has; throws the first refusal.
    package func checkResolved(_ host: String, port: Int) async throws {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        for address in try await Self.resolve(bare, port: port) {
            guard let text = address.ipAddress, let bytes = Self.addressBytes(text) else { continue }
            if let refusal = refusal(host: host, address: text, class: Self.classify(bytes)) { throw refusal }
        }
    }

    /// Whether a host as written in a URL is loopback: what ``CallbackPolicy/isLoopback(_:)``
    /// says (`localhost`, `[::1]`, `127.x.x.x`), or `::1` as Foundation gives it without brackets.
    /// `127.evil.example` is a name, not loopback.
    package static func isLoopback(_ host: String) -> Bool {
        if CallbackPolicy.isLoopback(host) { return true }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let bytes = addressBytes(bare) else { return false }
        return classify(bytes) == .loopback
    }

    // MARK: Addresses

    /// The 4 or 16 bytes of an IPv4 or IPv6 address in its usual text form; `nil` for a name.
    package static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// The class of an address given as 4 (IPv4) or 16 (IPv6) bytes.
    package static func classify(_ bytes: [UInt8]) -> AddressClass {
        if bytes.count == 4 { return classifyV4(bytes) }
        guard bytes.count == 16 else { return .forbidden("not an IP address") }
        // IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) carry an IPv4 address.
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff { return classifyV4(Array(bytes[12...])) }
        if bytes[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return classifyV4(Array(bytes[12...])) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) {
            return bytes[15] == 1 ? .loopback : .forbidden("the unspecified address")
        }
        // AWS's IPv6 metadata service, inside the unique-local range.
        if bytes == [0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54] { return .forbidden("a cloud metadata address") }
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return .forbidden("a link-local address (fe80::/10)") }
        if bytes[0] == 0xff { return .forbidden("a multicast address") }
        if bytes[0] & 0xfe == 0xfc { return .private }
        return .global
    }

    private static func classifyV4(_ b: [UInt8]) -> AddressClass {
        switch (b[0], b[1]) {
        case (0, _): return .forbidden("an address of 'this network' (0.0.0.0/8)")
        case (127, _): return .loopback
        case (169, 254): return .forbidden("a link-local address (169.254.0.0/16, where cloud metadata services live)")
        case (100, 100) where b[2] == 100 && b[3] == 200: return .forbidden("a cloud metadata address")
        case (192, 0) where b[2] == 0: return .forbidden("an IETF protocol address (192.0.0.0/24)")
        case (10, _), (192, 168): return .private
        case (172, 16...31): return .private
        case (100, 64...127): return .private
        case (224...239, _): return .forbidden("a multicast address")
        case (240...255, _): return .forbidden("a reserved address")
        default: return .global
        }
    }

    /// The addresses a name resolves to (the system resolver, on NIO's thread pool).
    package static func resolve(_ host: String, port: Int) async throws -> [SocketAddress] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            #else
            hints.ai_socktype = SOCK_STREAM
            #endif
            var result: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &result)
            guard status == 0, let first = result else {
                throw Refusal(host: host, address: host, range: "a name that does not resolve")
            }
            defer { freeaddrinfo(first) }
            var addresses: [SocketAddress] = []
            var cursor: UnsafeMutablePointer<addrinfo>? = first
            while let entry = cursor {
                if let address = entry.pointee.ai_addr {
                    switch Int32(address.pointee.sa_family) {
                    case AF_INET:
                        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { addresses.append(SocketAddress($0.pointee, host: host)) }
                    case AF_INET6:
                        address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { addresses.append(SocketAddress($0.pointee, host: host)) }
                    default: break
                    }
                }
                cursor = entry.pointee.ai_next
            }
            return addresses
        }
    }

    package init(allowsPrivate: Bool) {
        self.allowsPrivate = allowsPrivate
    }
}
