/// How the test server answers a path instead of its normal behaviour.
public enum PathOverride: Sendable {
    /// A fixed status and body.
    case respond(status: Int, body: String)
    /// No answer at all (the connection stays open), to exercise client timeouts.
    case hang
}
