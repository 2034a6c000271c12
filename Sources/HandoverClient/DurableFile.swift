import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 { open(path, flags, mode) }
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }

/// Writes that survive a kill or a power loss at any instant: the new content goes to a temp
/// file, which is fsynced and renamed over the old one, and then the folder is fsynced so the
/// rename itself is on disk. A reader sees the old file or the new one, never half of either.
enum DurableFile {
    static func write(_ data: Data, to url: URL) throws(JournalError) {
        let folder = url.deletingLastPathComponent()
        let temp = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = systemOpen(temp.path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        guard fd >= 0 else { throw JournalError(operation: "create", path: temp.path, code: errno) }
        var written = 0
        let ok: Bool = data.withUnsafeBytes { buffer in
            while written < buffer.count {
                let result = systemWrite(fd, buffer.baseAddress!.advanced(by: written), buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += result
            }
            return fsync(fd) == 0
        }
        let code = errno
        close(fd)
        guard ok else {
            unlink(temp.path)
            throw JournalError(operation: "write", path: temp.path, code: code)
        }
        guard rename(temp.path, url.path) == 0 else {
            let code = errno
            unlink(temp.path)
            throw JournalError(operation: "rename", path: url.path, code: code)
        }
        try syncFolder(folder)
    }

    static func remove(_ url: URL) throws(JournalError) {
        guard unlink(url.path) == 0 || errno == ENOENT else {
            throw JournalError(operation: "remove", path: url.path, code: errno)
        }
        try syncFolder(url.deletingLastPathComponent())
    }

    static func syncFolder(_ folder: URL) throws(JournalError) {
        let fd = systemOpen(folder.path, O_RDONLY)
        guard fd >= 0 else { throw JournalError(operation: "open folder", path: folder.path, code: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw JournalError(operation: "fsync folder", path: folder.path, code: errno) }
    }
}

/// A journal file could not be read or written.
public struct JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done: "write", "rename", "decode"…
    public var operation: String
    public var path: String
    /// The `errno` value, or 0 for a decoding problem.
    public var code: Int32
    public var detail: String?

    public init(operation: String, path: String, code: Int32, detail: String? = nil) {
        self.operation = operation
        self.path = path
        self.code = code
        self.detail = detail
    }

    public var description: String {
        let reason = detail ?? String(cString: strerror(code))
        return "could not \(operation) the journal file \(path): \(reason)"
    }
}
