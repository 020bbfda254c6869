import Hummingbird
import TallyCore

extension TallyAPIError {
    /// Hummingbird's own refusals in the API's terms: no route (404), a body over the limit
    /// (413), a malformed request (400). Its router and body reader throw no other status; any
    /// other would be `invalid_request` when the client's fault and `internal_error` when not.
    init(_ error: HTTPError) {
        switch error.status {
        case .contentTooLarge: self.init(.payloadTooLarge, "the request body is too large")
        case .notFound: self.init(.notFound, "no such endpoint")
        case .methodNotAllowed: self.init(.methodNotAllowed, "method not allowed here")
        case .unauthorized: self.init(.unauthorized, error.body ?? "authentication required")
        default: self.init(error.status.code >= 500 ? .internalError : .invalidRequest, error.body ?? error.status.reasonPhrase)
        }
    }
}
