public import Foundation

/// Where the photo app's Tally server is: the `TallyServerURL` of the app's Info.plist (the
/// Xcode project sets it from its `TALLY_SERVER_URL` build setting), else a `tally serve --dev`
/// on the developer's Mac.
public enum PhotoServer: Sendable {
    /// The development server's address, `tally serve --dev`'s default.
    public static let development = URL(string: "http://localhost:8080")!

    /// The server an Info.plist names.
    /// - Parameter info: the Info.plist's entries (`Bundle.main.infoDictionary`).
    /// - Returns: its `TallyServerURL` when that is an http or https URL with a host, else ``development``.
    public static func url(info: [String: Any]) -> URL {
        guard let text = info["TallyServerURL"] as? String, let url = URL(string: text), url.host != nil,
            url.scheme == "http" || url.scheme == "https"
        else { return development }
        return url
    }
}
