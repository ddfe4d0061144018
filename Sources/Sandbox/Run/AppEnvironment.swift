/// The environment a confined app starts with: its container as its world.
///
/// Built from scratch, not inherited: only the variables below reach the app, so nothing of the
/// launcher's (`SANDBOX_HOME`, `XDG_RUNTIME_DIR`, credentials in variables) leaks into it.
///
/// | Variable | Value | iOS counterpart |
/// |---|---|---|
/// | `HOME`, `CFFIXED_USER_HOME` | the data container | `NSHomeDirectory()` |
/// | `TMPDIR` | `<home>/tmp/` | `NSTemporaryDirectory()` |
/// | `XDG_CONFIG_HOME` | `<home>/Library/Preferences` | preferences |
/// | `XDG_DATA_HOME` | `<home>/Library/Application Support` | `.applicationSupportDirectory` |
/// | `XDG_STATE_HOME` | `<home>/Library/Application Support` | (no state folder on iOS; kept and backed up) |
/// | `XDG_CACHE_HOME` | `<home>/Library/Caches` | `.cachesDirectory` |
/// | `SANDBOX_BUNDLE_PATH` | `<bundle container>/<Name>.app` | `Bundle.main.bundlePath` |
/// | `SANDBOX_APP_IDENTIFIER` | the app identifier | `Bundle.main.bundleIdentifier` |
/// | `SANDBOX_DAEMON_BROKER_FD` | `3`, when the launcher hands down its broker (`DaemonBroker`) | launchd's bootstrap port |
///
/// Kept from the launcher: `PATH`, `TERM`, `COLORTERM`, `NO_COLOR`, `TZ`, `LANG`, `LANGUAGE` and
/// `LC_*` (how to find programs and how to show text, nothing about the user's files).
///
/// The paths are the container's, written out; they are not checked: if the app replaced `tmp`
/// with a link, `TMPDIR` leads where the link does, and Landlock still confines what it can reach.
public enum AppEnvironment {
    /// The variables kept from the launcher's environment.
    public static let kept: Set<String> = ["PATH", "TERM", "COLORTERM", "NO_COLOR", "TZ", "LANG", "LANGUAGE"]

    /// The name of the variable that holds the bundle's path.
    public static let bundlePathVariable = "SANDBOX_BUNDLE_PATH"
    /// The name of the variable that names the descriptor of the app's broker (`DaemonBroker`) (set only
    /// when the launcher hands one down: always `3`).
    public static let daemonBrokerVariable = "SANDBOX_DAEMON_BROKER_FD"
    /// The name of the variable that holds the app identifier.
    public static let appIdentifierVariable = "SANDBOX_APP_IDENTIFIER"

    /// The app's variables, given the data container's and the bundle's absolute host paths.
    public static func variables(
        app: AppIdentifier,
        home: String,
        bundle: String,
        inheriting launcher: [String: String]
    ) -> [String: String] {
        var variables = launcher.filter { kept.contains($0.key) || $0.key.hasPrefix("LC_") }
        let library = home + "/Library"
        variables["HOME"] = home
        variables["CFFIXED_USER_HOME"] = home
        variables["TMPDIR"] = home + "/tmp/"
        variables["XDG_CONFIG_HOME"] = library + "/Preferences"
        variables["XDG_DATA_HOME"] = library + "/Application Support"
        variables["XDG_STATE_HOME"] = library + "/Application Support"
        variables["XDG_CACHE_HOME"] = library + "/Caches"
        variables[bundlePathVariable] = bundle
        variables[appIdentifierVariable] = app.rawValue
        if variables["PATH"] == nil { variables["PATH"] = "/usr/local/bin:/usr/bin:/bin" }
        return variables
    }
}
