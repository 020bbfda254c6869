import Foundation
import PostgresNIO
public import TallySQL

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

        /// The server's host name or address, or, as libpq reads a host that begins with `/`, the
        /// directory of its Unix-domain socket (`/var/run/postgresql`): a server on the same
        /// machine answers there without TCP.
        public var host: String
        /// The server's port; on a Unix-domain socket, the number in the socket's file name.
        public var port: Int
        /// The user to log in as.
        public var username: String
        /// The password, if the server asks for one.
        public var password: String?
        /// The database; the server takes the user's name when nil.
        public var database: String?
        /// Encryption over TCP; `disable` by default on a loopback host, `prefer` elsewhere. A
        /// Unix-domain socket is never encrypted (libpq ignores `sslmode` there; ``checkSocket()``
        /// refuses one that requires TLS, so that a configuration never promises it).
        public var tls: TLSMode
        /// The connections' `search_path` (`?search_path=` in the URL), e.g. a schema of its own.
        public var searchPath: String?
        /// The name the server shows for these connections (`?application_name=`).
        public var applicationName: String?
        /// The most connections the pool opens at once.
        public var maximumConnections = 20
        /// How long an idle connection stays open.
        public var idleTimeout: Duration = .seconds(60)
        /// How long to wait for a connection to open (`?connect_timeout=` seconds).
        public var connectTimeout: Duration = .seconds(10)
        /// Whether each connection prepares the statements Tally runs often (`?prepared_statements=off`
        /// turns it off): on by default, as it spares PostgreSQL planning them at every run. Turn
        /// it off behind a pooler that hands a session's statements to other clients, such as
        /// PgBouncer in transaction mode without `max_prepared_statements`.
        public var preparedStatements = true

        /// Creates a configuration.
        /// - Parameters:
        ///   - host: the server's host name or address, or the directory of its Unix-domain socket.
        ///   - port: the server's port.
        ///   - username: the user to log in as.
        ///   - password: the password, if any.
        ///   - database: the database; the user's name when nil.
        ///   - tls: encryption over TCP; by default `disable` on a loopback host or a socket's
        ///     directory and `prefer` elsewhere.
        public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String? = nil, tls: TLSMode? = nil) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.tls = tls ?? (Self.isLoopback(host) || host.hasPrefix("/") ? .disable : .prefer)
        }

        /// The Unix-domain socket's path (`<directory>/.s.PGSQL.<port>`, as the server names it)
        /// when ``host`` is a directory; nil for TCP.
        public var socketPath: String? {
            host.hasPrefix("/") ? "\(host)/.s.PGSQL.\(port)" : nil
        }

        /// Parses `postgres://user[:password]@host[:port]/database[?sslmode=…&search_path=…&application_name=…&connect_timeout=…&prepared_statements=on|off]`
        /// (or `postgresql://`). Percent-escapes in the user, password and database are decoded.
        /// As in libpq, `?host=` and `?port=` name the host and port instead, and a host that
        /// begins with `/` is the directory of a Unix-domain socket:
        /// `postgres://tally@/tally?host=/var/run/postgresql`. Unlike libpq, which ignores
        /// `sslmode` on a socket, an `sslmode` that requires TLS is refused there; one host only.
        /// - Parameter url: the URL.
        /// - Throws: ``SQLDatabaseError`` (`.other`) naming what is wrong; the message never repeats the password.
        public init(url: String) throws(SQLDatabaseError) {
            func invalid(_ reason: String) -> SQLDatabaseError {
                SQLDatabaseError(
                    .other,
                    "invalid PostgreSQL URL (\(reason)); expected postgres://user[:password]@host[:port]/database or, through a socket, postgres://user@/database?host=/directory"
                )
            }
            guard let components = URLComponents(string: url) else { throw invalid("not a URL") }
            guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
                throw invalid("the scheme must be postgres or postgresql")
            }
            let hostParameter = components.queryItems?.last { $0.name == "host" }?.value
            guard var host = hostParameter ?? components.host, !host.isEmpty else { throw invalid("no host") }
            // libpq reads a list of hosts to try in turn; one host is read here, not a list as one name.
            guard !host.contains(",") else { throw invalid("one host only, not the list \(host)") }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            if host.hasPrefix("/"), host.count > 1, host.hasSuffix("/") { host.removeLast() }
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
                case "host":
                    break
                case "port":
                    // Empty: the URL's port or the default, as libpq reads it.
                    guard !value.isEmpty else { break }
                    guard let number = Int(value) else { throw invalid("port \(value) is not a number") }
                    guard (1...65_535).contains(number) else { throw invalid("port \(value) is out of range") }
                    self.port = number
                case "prepared_statements":
                    switch value {
                    case "on": preparedStatements = true
                    case "off": preparedStatements = false
                    default: throw invalid("prepared_statements \(value) is not on or off")
                    }
                default:
                    throw invalid("unknown parameter \(item.name)")
                }
            }
            do {
                try checkSocket()
            } catch {
                throw invalid(error.message)
            }
        }

        /// Refuses what a Unix-domain socket cannot give: an `sslmode` that requires TLS, or a
        /// path longer than the kernel takes. Nothing to refuse over TCP. ``init(url:)`` and
        /// ``PostgresDatabase/connect(_:logger:)`` check it, so a configuration built field by
        /// field is held to the same rule as a URL.
        /// - Throws: ``SQLDatabaseError`` (`.other`) naming what is wrong.
        public func checkSocket() throws(SQLDatabaseError) {
            guard let socketPath else { return }
            if tls != .disable, tls != .prefer {
                throw SQLDatabaseError(.other, "sslmode \(tls.rawValue) needs TCP: a Unix-domain socket is not encrypted")
            }
            // The kernel's limit on a socket's path (sun_path, with its terminating zero): 108 bytes
            // on Linux, 104 on macOS; the smaller holds on both.
            if socketPath.utf8.count > 103 {
                throw SQLDatabaseError(.other, "the socket's path \(socketPath) is longer than 103 bytes")
            }
        }

        /// The URL without the password, for messages.
        public var redactedURL: String {
            if socketPath != nil {
                let directory = host.addingPercentEncoding(withAllowedCharacters: Self.queryValueCharacters) ?? host
                return "postgres://\(username)@/\(database ?? "")?host=\(directory)&port=\(port)"
            }
            let address = host.contains(":") ? "[\(host)]" : host
            return "postgres://\(username)@\(address):\(port)/\(database ?? "")"
        }

        /// What a query value keeps unescaped: what a query may hold, less its separators.
        private static let queryValueCharacters = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#"))

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

        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            var configuration: PostgresConnection.Configuration
            if let socketPath {
                configuration = .init(unixSocketPath: socketPath, username: username, password: password, database: database)
            } else {
                let tls: PostgresConnection.Configuration.TLS =
                    switch self.tls {
                    case .disable: .disable
                    case .prefer: .prefer(try NIOSSLContext(configuration: tlsConfiguration))
                    case .require, .verifyCA, .verifyFull: .require(try NIOSSLContext(configuration: tlsConfiguration))
                    }
                configuration = .init(host: host, port: port, username: username, password: password, database: database, tls: tls)
            }
            configuration.options.additionalStartupParameters = startupParameters
            let (seconds, attoseconds) = connectTimeout.components
            configuration.options.connectTimeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            return configuration
        }
    }
}
