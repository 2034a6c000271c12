#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The file `handover admin import-devices` writes the new devices' keys to: created before the
/// import starts, exclusively (`O_CREAT|O_EXCL`: never an existing file, never through a
/// symbolic link) and readable by its owner only (0600), so no file that appears meanwhile is
/// written over and no key lands where it should not.
final class KeysFile {
    let path: String
    private var descriptor: Int32

    /// Why the file could not be made: it exists (or is a link), or the folder refuses it.
    struct CannotCreate: Error, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String {
            code == EEXIST
                ? "--keys-out: \(path) exists; keys are never written over. Move it, or name another file."
                : "--keys-out: \(path) cannot be created (\(String(cString: strerror(code)))). Nothing was imported; name a file in a folder you can write to."
        }
    }

    init(creating path: String) throws(CannotCreate) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CannotCreate(path: path, code: errno) }
        self.path = path
        self.descriptor = descriptor
    }

    /// Writes `text` and closes the file.
    func write(_ text: String) throws {
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        descriptor = -1
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// Removes the file made for an import that wrote no key.
    func remove() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(path)
    }
}
