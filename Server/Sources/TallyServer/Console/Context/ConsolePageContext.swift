import Hummingbird

/// What a console page needs to know of its request: the language it speaks, the session
/// when an operator is signed in, and the connection's peer (whether a cookie is `Secure`).
protocol ConsolePageContext: RequestContext {
    /// The language of the page: `?lang=`, else the cookie, else `Accept-Language`, else English.
    var language: ConsoleText.Language { get }
    /// The signed-in operator's session, nil for a visitor.
    var signedInSession: ConsoleSession? { get }
    /// The address of the connection's other end (see ``TallyRequestContext/peerAddress``).
    var peerAddress: String { get }
}
