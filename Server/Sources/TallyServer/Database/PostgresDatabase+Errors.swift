import PostgresNIO
import TallySQL

extension PostgresDatabase {
    /// Maps a postgres-nio failure to the kinds the storage layer reacts to.
    static func convert(_ error: any Error) -> SQLDatabaseError {
        if let error = error as? SQLDatabaseError { return error }
        guard let error = error as? PSQLError else {
            return SQLDatabaseError(.other, String(reflecting: error))
        }
        if error.code == .server, let state = error.serverInfo?[.sqlState] {
            let info = error.serverInfo
            var message = "\(state) \(info?[.message] ?? "")"
            if let detail = info?[.detail] { message += " (\(detail))" }
            if let constraint = info?[.constraintName] { message += " [constraint \(constraint)]" }
            switch state {
            case "23505":
                return SQLDatabaseError(.uniqueViolation, message)
            case _ where state.hasPrefix("23"):
                return SQLDatabaseError(.constraintViolation, message)
            case "40001", "40P01":
                return SQLDatabaseError(.retryable, message)
            case _ where state.hasPrefix("08") || state.hasPrefix("57P") || state == "53300" || state == "28P01" || state == "28000" || state == "3D000":
                // Connection exceptions, shutdowns, too many clients, bad credentials, unknown database.
                return SQLDatabaseError(.unavailable, message)
            default:
                return SQLDatabaseError(.other, message)
            }
        }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
            .sslUnsupported, .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest,
            .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
            let underlying = error.underlying.map { ": \(String(reflecting: $0))" } ?? ""
            return SQLDatabaseError(.unavailable, "\(error.code)\(underlying)")
        default:
            return SQLDatabaseError(.other, String(reflecting: error))
        }
    }
}
