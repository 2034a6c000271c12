/// Names of the server's Prometheus metrics (`GET /metrics`) that tools outside the server read,
/// written once for the server that records them and the tools that read them.
public enum MetricName {
    /// A histogram of how late each logout item's deadline fired, in seconds: from its due time
    /// to the commit of its reissue or timeout. Its `_bucket{le="1.0"}` against its `_count`
    /// says whether every deadline fired within a second.
    public static let deadlineLateness = "handover_deadline_lateness_seconds"
}
