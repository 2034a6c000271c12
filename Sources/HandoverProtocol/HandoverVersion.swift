/// Handover's version, kept here and nowhere else: `handover --version`, the server's `/healthz`
/// and home page, and the release archive's name all read it.
///
/// It follows Semantic Versioning 2.0.0 (https://semver.org): a change that breaks an app's use
/// of the SDK, the HTTP API or a stored database without an upgrade path raises the major
/// version; a new capability raises the minor one; a fix raises the patch. Each release is
/// tagged `v<version>` in git, and `CHANGELOG.md` says what it changed and how to upgrade.
public enum HandoverVersion {
    /// This build's version, such as `0.9.0`.
    public static let current = "0.9.0"
}
