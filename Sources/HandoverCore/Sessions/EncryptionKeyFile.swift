import Foundation
import SessionTokens

/// The at-rest encryption key: from configuration, or generated once into the data directory
/// (`token-encryption.key`, readable by the owner only).
package enum EncryptionKeyFile {
    package static let fileName = "token-encryption.key"

    /// The configured key (`HANDOVER_TOKEN_ENCRYPTION_KEY`, `token-encryption-key`): base64 of 32
    /// bytes. `handover serve` and `handover config check` both read it through here, so a key one
    /// refuses the other refuses too (issue 63).
    package static func configured(_ text: String) throws -> SecretSealer {
        do { return try SecretSealer(base64: text) } catch {
            throw ConfigurationError(setting: "HANDOVER_TOKEN_ENCRYPTION_KEY", problem: "\(error)",
                                     accepted: "base64 of 32 random bytes, e.g. from `openssl rand -base64 32`")
        }
    }

    package static func sealer(configured: String?, dataDirectory: URL) throws -> SecretSealer {
        if let configured { return try Self.configured(configured) }
        let file = dataDirectory.appendingPathComponent(fileName)
        if let text = try? String(contentsOf: file, encoding: .utf8) {
            do { return try SecretSealer(base64: text) } catch {
                throw ConfigurationError(setting: "--data-dir",
                                         problem: "\(file.path) is damaged (\(error)); it holds the key that seals this database's secrets",
                                         accepted: "the file restored from a backup, or HANDOVER_TOKEN_ENCRYPTION_KEY set to the key (base64 of 32 bytes)")
            }
        }
        do {
            try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ConfigurationError(setting: "--data-dir", problem: "\(dataDirectory.path) cannot be created",
                                     accepted: "a directory this user can create and write (not under a file)")
        }
        let key = SecretSealer.generateKeyBase64()
        // Create with owner-only permissions, refusing to overwrite a file another instance just wrote.
        let created = FileManager.default.createFile(atPath: file.path, contents: Data((key + "\n").utf8),
                                                     attributes: [.posixPermissions: 0o600])
        guard created, let text = try? String(contentsOf: file, encoding: .utf8) else {
            throw ConfigurationError(setting: file.path, problem: "cannot be written", accepted: "a writable data directory")
        }
        return try SecretSealer(base64: text)
    }
}
