import Foundation
public import Logging
import PostgresNIO

/// PostgreSQL through a pool of connections (postgres-nio's `PostgresClient`).
///
/// Every ``write(_:)`` is one READ COMMITTED transaction on one pooled connection; every
/// ``read(_:)`` is a read-only REPEATABLE READ transaction, so all its statements see one
/// snapshot. The pool runs in a task the database owns, from creation until ``close()``.
///
/// ```swift
/// let database = try await PostgresDatabase.connect(url: "postgres://tally:secret@db.internal:5432/tally?sslmode=require")
/// try await database.migrate(Migrations.all)
/// let storage = SQLStorage(database: database, catalog: catalog, now: { Date() })
/// ```
public final class PostgresDatabase: SQLDatabase {
    /// PostgreSQL's SQL.
    public let dialect = SQLDialect.postgres
    /// Where and how it connects.
    public let configuration: Configuration
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger

    /// Starts the pool without connecting; the first transaction opens the first connection.
    /// Prefer ``connect(_:logger:)``, which also checks that the server can be reached.
    /// - Parameters:
    ///   - configuration: the server, credentials and pool size.
    ///   - logger: where the pool reports background failures; silent by default.
    public init(configuration: Configuration, logger: Logger = PostgresDatabase.silentLogger) {
        self.configuration = configuration
        self.logger = logger
        let client = PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: logger)
        self.client = client
        self.runner = Task { await client.run() }
    }

    /// Parses `url` and starts the pool without connecting (see ``init(configuration:logger:)``).
    /// - Parameters:
    ///   - url: `postgres://user[:password]@host[:port]/database[?sslmode=…]`.
    ///   - logger: where the pool reports background failures.
    /// - Throws: ``SQLDatabaseError`` (`.other`) when the URL is malformed.
    public convenience init(url: String, logger: Logger = PostgresDatabase.silentLogger) throws(SQLDatabaseError) {
        self.init(configuration: try Configuration(url: url), logger: logger)
    }

    /// Parses `url`, checks that the server accepts a connection, and starts the pool.
    /// - Parameters:
    ///   - url: `postgres://user[:password]@host[:port]/database[?sslmode=…]`.
    ///   - logger: where the pool reports background failures.
    /// - Returns: the database, ready for transactions.
    /// - Throws: ``SQLDatabaseError``: `.other` for a malformed URL, `.unavailable` when the
    ///   server cannot be reached or refuses the credentials.
    public static func connect(url: String, logger: Logger = PostgresDatabase.silentLogger) async throws(SQLDatabaseError) -> PostgresDatabase {
        try await connect(try Configuration(url: url), logger: logger)
    }

    /// Checks that the server accepts a connection, then starts the pool.
    ///
    /// The pool itself keeps retrying a server it cannot reach (for up to a minute) before a
    /// transaction fails; this check fails at once with the server's reason.
    /// - Parameters:
    ///   - configuration: the server, credentials and pool size.
    ///   - logger: where the pool reports background failures.
    /// - Returns: the database, ready for transactions.
    /// - Throws: ``SQLDatabaseError`` (`.unavailable`) when the server cannot be reached or refuses the credentials.
    public static func connect(_ configuration: Configuration, logger: Logger = PostgresDatabase.silentLogger) async throws(SQLDatabaseError) -> PostgresDatabase {
        do {
            let connection = try await PostgresConnection.connect(
                configuration: try configuration.connectionConfiguration(), id: 0, logger: logger)
            try? await connection.close()
        } catch {
            throw SQLDatabaseError(.unavailable, "cannot connect to \(configuration.redactedURL): \(Self.convert(error).message)")
        }
        return PostgresDatabase(configuration: configuration, logger: logger)
    }

    deinit {
        runner.cancel()
    }

    /// Stops the pool and closes its connections; later transactions fail with `.unavailable`.
    public func close() async {
        runner.cancel()
        await runner.value
    }

    /// A logger that drops everything.
    public static let silentLogger = Logger(label: "tally.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    // MARK: - Transactions

    /// Runs `work` in a transaction, committed when it returns and rolled back when it throws.
    public func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await transaction("BEGIN", work)
    }

    /// Runs `work` in a read-only, repeatable-read transaction.
    public func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", work)
    }

    /// Runs `work` between `begin` and COMMIT on one pooled connection, or ROLLBACK when it throws.
    private func transaction<T: Sendable>(_ begin: String, _ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        var leased = false
        do {
            return try await client.withConnection { connection in
                leased = true
                let executor = PostgresExecutor(connection: connection, logger: logger)
                try await executor.run(begin, [])
                do {
                    let value = try await work(executor)
                    try await executor.run("COMMIT", [])
                    return value
                } catch {
                    // After a failed COMMIT the server has already rolled back and this is a no-op.
                    // A connection that cannot roll back is closed, never handed out mid-transaction.
                    do {
                        try await executor.run("ROLLBACK", [])
                    } catch {
                        let _: EventLoopFuture<Void> = connection.close()
                    }
                    throw error
                }
            }
        } catch let error where !leased {
            // The pool could not hand out a connection: the server is unreachable or the pool closed.
            if Task.isCancelled { throw CancellationError() }
            throw SQLDatabaseError(.unavailable, "no connection to \(configuration.redactedURL): \(Self.convert(error).message)")
        }
    }

    // MARK: - Migrations

    /// Migrations take this advisory lock (with the schema's hash as the second key), so servers
    /// starting together against one database apply each migration once.
    static let migrationLockKey: Int32 = 0x7A11

    /// Applies the migrations not yet applied, in order, each in its own transaction, under an advisory lock so that instances starting together migrate once.
    public func migrate(_ migrations: [Migration]) async throws {
        try await runMigrations(migrations, lock: "SELECT pg_advisory_xact_lock(\(Self.migrationLockKey), hashtext(COALESCE(current_schema(), '')))")
    }

    // MARK: - Errors

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

    // MARK: - Statements

    /// Rewrites `?` placeholders as `$1, $2, …`, leaving alone any `?` inside a quoted string or
    /// identifier, a dollar-quoted body or a comment.
    /// - Returns: the statement and how many placeholders it has.
    static func numberingPlaceholders(_ sql: String) -> (sql: String, count: Int) {
        let bytes = Array(sql.utf8)
        guard bytes.contains(UInt8(ascii: "?")) else { return (sql, 0) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var count = 0
        var index = 0
        func isIdentifier(_ byte: UInt8) -> Bool {
            byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        /// Copies through the first occurrence of `end` at or after `from`, or to the end.
        func copy(through end: [UInt8], from: Int) {
            var cursor = from
            while cursor <= bytes.count - end.count {
                if bytes[cursor..<cursor + end.count].elementsEqual(end) { break }
                cursor += 1
            }
            let stop = min(bytes.count, cursor + end.count)
            output.append(contentsOf: bytes[index..<stop])
            index = stop
        }
        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            switch byte {
            case UInt8(ascii: "'"):
                // An E'…' string escapes with backslashes; a doubled quote just closes and reopens.
                let escaped = index > 0 && bytes[index - 1] | 0x20 == UInt8(ascii: "e") && (index < 2 || !isIdentifier(bytes[index - 2]))
                var cursor = index + 1
                while cursor < bytes.count && bytes[cursor] != byte {
                    cursor += escaped && bytes[cursor] == UInt8(ascii: "\\") ? 2 : 1
                }
                let stop = min(bytes.count, cursor + 1)
                output.append(contentsOf: bytes[index..<stop])
                index = stop
            case UInt8(ascii: "\""):
                copy(through: [byte], from: index + 1)
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                copy(through: [UInt8(ascii: "\n")], from: index + 2)
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                copy(through: Array("*/".utf8), from: index + 2)
            case UInt8(ascii: "$") where index == 0 || !isIdentifier(bytes[index - 1]):
                // A dollar quote opens with $tag$, the tag empty or an identifier not starting with a digit.
                var cursor = index + 1
                while cursor < bytes.count && bytes[cursor] != UInt8(ascii: "$") && isIdentifier(bytes[cursor]) { cursor += 1 }
                let tagIsValid = cursor < bytes.count && bytes[cursor] == UInt8(ascii: "$")
                    && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next)
                if tagIsValid {
                    copy(through: Array(bytes[index...cursor]), from: cursor + 1)
                } else {
                    output.append(byte)
                    index += 1
                }
            case UInt8(ascii: "?"):
                count += 1
                output.append(contentsOf: "$\(count)".utf8)
                index += 1
            default:
                output.append(byte)
                index += 1
            }
        }
        return (String(decoding: output, as: UTF8.self), count)
    }

    /// The statement with numbered placeholders and its values bound: integers as BIGINT, text as TEXT.
    /// - Throws: ``SQLDatabaseError`` (`.other`) when the placeholders and values differ in number.
    static func query(_ sql: String, _ binds: [SQLValue]) throws(SQLDatabaseError) -> PostgresQuery {
        let (numbered, count) = numberingPlaceholders(sql)
        guard count == binds.count else {
            throw SQLDatabaseError(.other, "\(count) placeholders but \(binds.count) values in: \(sql)")
        }
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case .null: bindings.appendNull()
            case .int(let int): bindings.append(int)
            case .text(let text): bindings.append(text)
            }
        }
        return PostgresQuery(unsafeSQL: numbered, binds: bindings)
    }

    /// A result row by lower-case column name.
    static func row(_ row: PostgresRow) throws(SQLDatabaseError) -> SQLRow {
        var values: [String: SQLValue] = [:]
        for cell in row {
            values[cell.columnName.lowercased()] = try value(cell)
        }
        return SQLRow(values: values)
    }

    /// One cell: integers (and booleans, as 0 or 1, as SQLite has them) as `.int`, text as `.text`.
    /// A NUMERIC (what SUM over BIGINT returns) is `.int` when it is whole and fits, else its text.
    static func value(_ cell: PostgresCell) throws(SQLDatabaseError) -> SQLValue {
        guard let bytes = cell.bytes else { return .null }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8:
                return .int(try cell.decode(Int64.self))
            case .oid where cell.format == .binary:
                var buffer = bytes
                guard let oid = buffer.readInteger(as: UInt32.self) else { throw SQLDatabaseError(.decoding, "column \(cell.columnName): a short oid") }
                return .int(Int64(oid))
            case .bool:
                return .int(try cell.decode(Bool.self) ? 1 : 0)
            case .numeric:
                if cell.format == .binary, let int = wholeNumber(fromBinaryNumeric: bytes) { return .int(int) }
                let decimal = try cell.decode(Decimal.self)
                if cell.format == .text, let int = Int64("\(decimal)") { return .int(int) }
                return .text("\(decimal)")
            case .float4, .float8:
                let double = try cell.decode(Double.self)
                guard let int = Int64(exactly: double.rounded(.towardZero)) else {
                    throw SQLDatabaseError(.decoding, "column \(cell.columnName): \(double) is not an integer")
                }
                return .int(int)
            case .text, .varchar, .bpchar, .name, .char, .json, .jsonb, .uuid, .unknown:
                return .text(try cell.decode(String.self))
            case .void:
                return .null
            default:
                throw SQLDatabaseError(.decoding, "column \(cell.columnName) has type \(cell.dataType), neither integer nor text")
            }
        } catch let error as SQLDatabaseError {
            throw error
        } catch {
            throw SQLDatabaseError(.decoding, "column \(cell.columnName): \(String(reflecting: error))")
        }
    }

    /// Reads a NUMERIC in binary form (digit count, weight, sign, scale, then base-10000 digits).
    /// - Returns: its value when it is whole and fits in 64 bits, else nil.
    static func wholeNumber(fromBinaryNumeric bytes: ByteBuffer) -> Int64? {
        var buffer = bytes
        guard let digitCount = buffer.readInteger(as: Int16.self), let weight = buffer.readInteger(as: Int16.self),
              let sign = buffer.readInteger(as: UInt16.self), buffer.readInteger(as: Int16.self) != nil,
              sign == 0 || sign == 0x4000 else { return nil }  // NaN and infinities have other signs
        var digits: [Int64] = []
        for _ in 0..<max(0, Int(digitCount)) {
            guard let digit = buffer.readInteger(as: Int16.self) else { return nil }
            digits.append(Int64(digit))
        }
        guard !digits.isEmpty else { return 0 }
        // Digit i is worth 10000^(weight - i): those past `weight` are the fraction.
        if digits.count > Int(weight) + 1, digits[max(0, Int(weight) + 1)...].contains(where: { $0 != 0 }) { return nil }
        guard weight >= 0 else { return 0 }
        var magnitude: Int64 = 0
        for position in 0...Int(weight) {
            let digit = position < digits.count ? digits[position] : 0
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: 10_000)
            let (sum, overflow2) = shifted.addingReportingOverflow(digit)
            if overflow || overflow2 { return nil }
            magnitude = sum
        }
        return sign == 0x4000 ? -magnitude : magnitude
    }
}

/// Statements on one leased connection inside one transaction.
struct PostgresExecutor: SQLExecutor {
    let connection: PostgresConnection
    let logger: Logger

    /// Runs a statement and collects its rows and command tag.
    @discardableResult
    func run(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> PostgresQueryResult {
        let query = try PostgresDatabase.query(sql, binds)
        do {
            let result: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
            return try await result.get()
        } catch {
            throw PostgresDatabase.convert(error)
        }
    }

    func query(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> [SQLRow] {
        var rows: [SQLRow] = []
        for row in try await run(sql, binds).rows {
            rows.append(try PostgresDatabase.row(row))
        }
        return rows
    }

    func execute(_ sql: String, _ binds: [SQLValue]) async throws(SQLDatabaseError) -> Int {
        try await run(sql, binds).metadata.rows ?? 0
    }
}

extension PostgresDatabase {
    /// Where and how to connect, usually parsed from a URL.
    public struct Configuration: Sendable {
        /// Whether to encrypt, as libpq's `sslmode`.
        public enum TLSMode: String, Sendable {
            /// Plain TCP.
            case disable
            /// TLS when the server offers it (libpq's `allow` is read as this too).
            case prefer
            /// TLS always, without checking the certificate (libpq's meaning of `require`).
            case require
            /// TLS always, with a certificate chain the system trusts, whatever its host name.
            case verifyCA = "verify-ca"
            /// TLS always, with a trusted certificate for the host name.
            case verifyFull = "verify-full"
        }

        /// The server's host name or address.
        public var host: String
        /// The server's port.
        public var port: Int
        /// The user to log in as.
        public var username: String
        /// The password, if the server asks for one.
        public var password: String?
        /// The database; the server takes the user's name when nil.
        public var database: String?
        /// Encryption; `disable` by default on a loopback host, `prefer` elsewhere.
        public var tls: TLSMode
        /// The connections' `search_path` (`?search_path=` in the URL), e.g. a schema of its own.
        public var searchPath: String?
        /// The name the server shows for these connections (`?application_name=`).
        public var applicationName: String?
        /// The most connections the pool opens.
        public var maximumConnections = 20
        /// How long an idle connection stays open.
        public var idleTimeout: Duration = .seconds(60)
        /// How long to wait for a connection to open (`?connect_timeout=` seconds).
        public var connectTimeout: Duration = .seconds(10)

        /// Creates a configuration.
        /// - Parameters:
        ///   - host: the server's host name or address.
        ///   - port: the server's port.
        ///   - username: the user to log in as.
        ///   - password: the password, if any.
        ///   - database: the database; the user's name when nil.
        ///   - tls: encryption; by default `disable` on a loopback host and `prefer` elsewhere.
        public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String? = nil, tls: TLSMode? = nil) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.tls = tls ?? (Self.isLoopback(host) ? .disable : .prefer)
        }

        /// Parses `postgres://user[:password]@host[:port]/database[?sslmode=…&search_path=…&application_name=…&connect_timeout=…]`
        /// (or `postgresql://`). Percent-escapes in the user, password and database are decoded.
        /// - Parameter url: the URL.
        /// - Throws: ``SQLDatabaseError`` (`.other`) naming what is wrong; the message never repeats the password.
        public init(url: String) throws(SQLDatabaseError) {
            func invalid(_ reason: String) -> SQLDatabaseError {
                SQLDatabaseError(.other, "invalid PostgreSQL URL (\(reason)); expected postgres://user[:password]@host[:port]/database")
            }
            guard let components = URLComponents(string: url) else { throw invalid("not a URL") }
            guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
                throw invalid("the scheme must be postgres or postgresql")
            }
            guard var host = components.host, !host.isEmpty else { throw invalid("no host") }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard let username = components.user, !username.isEmpty else { throw invalid("no user") }
            let port = components.port ?? 5432
            guard (1...65_535).contains(port) else { throw invalid("port \(port) is out of range") }
            var path = components.path
            if path.hasPrefix("/") { path.removeFirst() }
            guard !path.contains("/") else { throw invalid("the path must be just the database name") }
            self.init(host: host, port: port, username: username, password: components.password, database: path.isEmpty ? nil : path)
            for item in components.queryItems ?? [] {
                let value = item.value ?? ""
                switch item.name {
                case "sslmode":
                    if value == "allow" {
                        tls = .prefer
                    } else if let mode = TLSMode(rawValue: value) {
                        tls = mode
                    } else {
                        throw invalid("sslmode \(value) is not disable, allow, prefer, require, verify-ca or verify-full")
                    }
                case "search_path":
                    searchPath = value
                case "application_name":
                    applicationName = value
                case "connect_timeout":
                    guard let seconds = Int(value), (1...3_600).contains(seconds) else {
                        throw invalid("connect_timeout \(value) is not 1 to 3600 seconds")
                    }
                    connectTimeout = .seconds(seconds)
                default:
                    throw invalid("unknown parameter \(item.name)")
                }
            }
        }

        /// The URL without the password, for messages.
        public var redactedURL: String {
            let address = host.contains(":") ? "[\(host)]" : host
            return "postgres://\(username)@\(address):\(port)/\(database ?? "")"
        }

        static func isLoopback(_ host: String) -> Bool {
            host == "localhost" || host.hasPrefix("127.") || host == "::1"
        }

        var startupParameters: [(String, String)] {
            var parameters: [(String, String)] = []
            if let searchPath { parameters.append(("search_path", searchPath)) }
            if let applicationName { parameters.append(("application_name", applicationName)) }
            return parameters
        }

        var tlsConfiguration: TLSConfiguration {
            var tls = TLSConfiguration.makeClientConfiguration()
            switch self.tls {
            case .disable, .prefer, .require: tls.certificateVerification = .none
            case .verifyCA: tls.certificateVerification = .noHostnameVerification
            case .verifyFull: tls.certificateVerification = .fullVerification
            }
            return tls
        }

        var clientConfiguration: PostgresClient.Configuration {
            let tls: PostgresClient.Configuration.TLS = switch self.tls {
            case .disable: .disable
            case .prefer: .prefer(tlsConfiguration)
            case .require, .verifyCA, .verifyFull: .require(tlsConfiguration)
            }
            var configuration = PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
            configuration.options.additionalStartupParameters = startupParameters
            configuration.options.maximumConnections = max(1, maximumConnections)
            configuration.options.connectionIdleTimeout = idleTimeout
            configuration.options.connectTimeout = connectTimeout
            return configuration
        }

        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            let tls: PostgresConnection.Configuration.TLS = switch self.tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: tlsConfiguration))
            case .require, .verifyCA, .verifyFull: .require(try NIOSSLContext(configuration: tlsConfiguration))
            }
            var configuration = PostgresConnection.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
            configuration.options.additionalStartupParameters = startupParameters
            let (seconds, attoseconds) = connectTimeout.components
            configuration.options.connectTimeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            return configuration
        }
    }
}
