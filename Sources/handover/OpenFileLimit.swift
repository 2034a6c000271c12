#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`).
enum OpenFileLimit {
    /// Raises the soft limit to the hard one (at most 65,536), so a storm can open a connection
    /// per active launcher, and the servers the bench starts, which inherit it, can accept them
    /// (their connection cap is the limit less 128). Leaves it as it is when it cannot.
    static func raise() {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return }
        let wanted = min(limit.rlim_max, 65_536)
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = wanted
        _ = setrlimit(resource, &limit)
    }
}
