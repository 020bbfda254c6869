import Hummingbird

/// The context of every console route: the router's context, with the page's language and
/// the session its cookie names, once ``ConsoleSessionMiddleware`` has looked.
///
/// The pages only operators may see are in a group of ``ConsoleOperatorContext``, made from
/// this one; the sign-in page is in a group of this one.
struct ConsoleRequestContext: ChildRequestContext, ConsolePageContext {
    var coreContext: CoreRequestContextStorage
    let requestID: String
    let peerAddress: String
    /// The client's address (see ``TallyRequestContext/clientAddress``), written with a failed sign-in.
    let clientAddress: String
    /// What per-address limits count against (see ``TallyRequestContext``).
    let limitAddress: String
    let maxUploadSize: Int
    /// Set by ``ConsoleSessionMiddleware``; English until then.
    var language: ConsoleText.Language = .en
    /// The session the cookie names, set by ``ConsoleSessionMiddleware``; nil without one.
    var session: ConsoleSession?
    /// The SHA-256 of the cookie's value, when the request carries one.
    var sessionHash: String?

    init(context: TallyRequestContext) {
        coreContext = context.coreContext
        requestID = context.requestID
        peerAddress = context.peerAddress
        clientAddress = context.clientAddress
        limitAddress = context.limitAddress
        maxUploadSize = context.maxUploadSize
    }

    var requestDecoder: TallyRequestDecoder { TallyRequestDecoder() }
    var responseEncoder: TallyResponseEncoder { TallyResponseEncoder() }
    var signedInSession: ConsoleSession? { session }
}
