import Foundation
import HandoverServer

/// Every mistake of a configuration at once, for `handover config check`. The server reads its
/// settings in one pass that stops at the first mistake (as `serve` must); this runs that pass
/// again past each mistake until it goes through, so that a file with six mistakes gets six
/// errors in one run instead of six rounds.
///
/// Past a mistake: a value that was given is taken away (as if it were not set), and the pass
/// runs again; when the setting is then required (`mdm-action` with `mdm`), or was missing in
/// the first place, the table's example value (``ConfigurationSetting/example``, one the
/// server accepts) stands in for it, so that the settings after it are still checked. A mistake
/// about a setting already taken away is the same mistake and is not reported twice. When even
/// the example is refused (a key file that cannot be read), or the mistake is not about a
/// setting, the pass stops there.
struct ConfigurationCheck {
    /// The check `serve` makes of `environment`; throws its first mistake.
    var read: ([String: String]) throws -> Void

    /// The mistakes of `environment`, in the order the server meets them.
    func mistakes(in environment: [String: String]) -> (configuration: [ConfigurationError], other: Error?) {
        var environment = environment
        var found: [ConfigurationError] = []
        var removed: Set<String> = []
        var substituted: Set<String> = []
        // Each setting is taken away once and stood in for once at most: the loop ends.
        for _ in 0...(2 * ConfigurationSetting.all.count + 1) {
            do {
                try read(environment)
                return (found, nil)
            } catch let error as ConfigurationError {
                let variable = String(error.setting.prefix { $0 != " " })
                if !removed.contains(variable) && !substituted.contains(variable) { found.append(error) }
                if !(environment[variable] ?? "").isEmpty, !removed.contains(variable) {
                    environment[variable] = nil
                    removed.insert(variable)
                } else if !substituted.contains(variable), let example = ConfigurationSetting.named(variable)?.example {
                    environment[variable] = example
                    substituted.insert(variable)
                } else {
                    return (found, nil)
                }
            } catch {
                return (found, error)
            }
        }
        return (found, nil)
    }
}
