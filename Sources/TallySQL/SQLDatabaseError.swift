/// A database failure the storage layer reacts to, the same on SQLite and PostgreSQL.
public struct SQLDatabaseError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure.
    public enum Kind: Sendable, Equatable {
        /// A UNIQUE or PRIMARY KEY constraint: someone else recorded the same thing first.
        case uniqueViolation
        /// A CHECK, NOT NULL, FOREIGN KEY constraint or an append-only trigger.
        case constraintViolation
        /// A serialization failure or deadlock: the transaction may be retried.
        case retryable
        /// The database cannot be reached.
        case unavailable
        /// A value had an unexpected type.
        case decoding
        /// Anything else.
        case other
    }

    /// The kind.
    public let kind: Kind
    /// The database's message.
    public let message: String

    /// Creates an error.
    /// - Parameters:
    ///   - kind: what kind of failure.
    ///   - message: the database's message.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `kind: message`, for logs.
    public var description: String { "\(kind): \(message)" }
}
