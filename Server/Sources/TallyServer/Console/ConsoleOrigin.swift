import Foundation
import HTTPTypes
import Hummingbird

/// Where a console request comes from: whether a form was sent by a page of this console,
/// and whether the browser reached the server over HTTPS (so its cookies may be `Secure`).
struct ConsoleOrigin: Sendable {
    /// The proxies whose `X-Forwarded-Proto` and `Forwarded` headers are believed.
    let trustedProxies: TrustedProxies

    /// Whether a form comes from a page of this console: its `Origin` (else its `Referer`)
    /// names the host the request was sent to. Neither header, or `null`, is a refusal.
    func sameOrigin(_ request: Request, https: Bool = false) -> Bool {
        guard let host = request.head.authority, !host.isEmpty else { return false }
        // Only a web address counts: `null` (a sandboxed or opaque origin) and anything else is refused.
        let claimed = request.headers[.origin] ?? request.headers[.referer]
        guard let claimed, let url = URL(string: claimed), let claimedHost = url.host, let scheme = url.scheme?.lowercased(),
            scheme == "https" || (scheme == "http" && !https), url.user == nil, url.password == nil
        else { return false }
        // `URL.host` gives an IPv6 address without the brackets that `Host` keeps (`[::1]:8080`).
        let bare = claimedHost.hasPrefix("[") && claimedHost.hasSuffix("]") ? String(claimedHost.dropFirst().dropLast()) : claimedHost
        let written = bare.contains(":") ? "[\(bare)]" : bare
        let authority = url.port.map { "\(written):\($0)" } ?? written
        return authority.lowercased() == host.lowercased()
    }

    /// Whether a form comes from a page of this console, as the browser reached it.
    func sameOrigin(_ request: Request, context: some ConsolePageContext) -> Bool {
        sameOrigin(request, https: overHTTPS(request, peer: context.peerAddress))
    }

    /// Whether the browser reached the server over HTTPS: only a trusted proxy can say so.
    func overHTTPS(_ request: Request, peer: String) -> Bool {
        guard let peer = IPAddress(peer), trustedProxies.contains(peer) else { return false }
        if let proto = request.headers[HTTPField.Name("X-Forwarded-Proto")!] {
            return proto.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
        }
        return request.headers[.forwarded]?.lowercased().contains("proto=https") ?? false
    }

    /// A `Set-Cookie` value for the console's paths: never read by scripts or sent from
    /// another site, and `Secure` when the browser came over HTTPS.
    func cookie(_ name: String, _ value: String, maxAge: Int, request: Request, context: some ConsolePageContext) -> String {
        "\(name)=\(value); Path=/console; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
            + (overHTTPS(request, peer: context.peerAddress) ? "; Secure" : "")
    }
}
