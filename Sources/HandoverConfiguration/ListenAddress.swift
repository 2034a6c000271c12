import Foundation
import HandoverCore
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The address a server is told to listen on, checked before the server creates anything.
///
/// `handover serve` on a port another program holds used to create the data directory, the
/// database and the encryption key, run every migration, and only then fail to bind. Checking
/// first means a mistake costs one line and leaves the disk as it was.
public enum ListenAddress {
    /// Binds a socket to `host:port` the way the server will (`SO_REUSEADDR`, so a port left in
    /// `TIME_WAIT` by a server that just stopped is not refused) and closes it at once.
    ///
    /// Throws the ``ConfigurationError`` the server's own bind would give: `--port` for a port in
    /// use or one that needs privileges, `--host` for a name that does not resolve or an address
    /// this machine does not have. Port 0 checks the host only.
    ///
    /// Another program may still take the port between this check and the server's bind; the
    /// server then fails there with the same line.
    public static func checkAvailable(host: String, port: Int) throws {
        let address: SocketAddress
        do {
            address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        } catch {
            throw StartupFailure.listening(error, host: host, port: port)
        }
        #if canImport(Darwin)
        let descriptor = socket(address.protocol.rawValue, SOCK_STREAM, 0)
        #else
        let descriptor = socket(address.protocol.rawValue, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else {
            throw StartupFailure.listening(IOError(errnoCode: errno, reason: "socket"), host: host, port: port)
        }
        defer { close(descriptor) }
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockAddr { pointer, size in bind(descriptor, pointer, socklen_t(size)) }
        if bound != 0 {
            throw StartupFailure.listening(IOError(errnoCode: errno, reason: "bind"), host: host, port: port)
        }
    }
}
