import Foundation
import OutOfBand

/// Where the phone keeps its `DeviceKeys`. On iOS, keep them in the Keychain
/// (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`) so they never leave the device; the file
/// store suits tests, the simulator and tools.
public protocol DeviceKeyStore: Sendable {
    /// The stored keys, or `nil` when none were saved yet.
    func load() throws -> DeviceKeys?
    /// Saves `keys`, replacing any stored before.
    func save(_ keys: DeviceKeys) throws
}

/// Keys in one file (mode 0600), written durably: a crash leaves the old keys or the new ones.
public struct FileDeviceKeyStore: DeviceKeyStore {
    public let url: URL

    public init(url: URL) { self.url = url }

    public func load() throws -> DeviceKeys? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try DeviceKeys(rawRepresentation: Data(contentsOf: url))
    }

    public func save(_ keys: DeviceKeys) throws {
        try DurableFile.write(keys.rawRepresentation, to: url)
    }
}

extension DeviceKeys {
    /// The keys in `store`, or new ones saved there first (so the enrolled keys survive a restart).
    public static func loadOrCreate(from store: any DeviceKeyStore) throws -> DeviceKeys {
        if let keys = try store.load() { return keys }
        let keys = DeviceKeys.generate()
        try store.save(keys)
        return keys
    }
}
