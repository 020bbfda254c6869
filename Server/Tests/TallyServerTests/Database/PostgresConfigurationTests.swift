import PostgresNIO
import TallySQL
import Testing

@testable import TallyServer

@Suite struct PostgresConfigurationTests {
    struct Parsed: Equatable, CustomTestStringConvertible {
        var host: String
        var port: Int
        var username: String
        var password: String?
        var database: String?
        var tls: TallyServer.PostgresDatabase.Configuration.TLSMode
        var searchPath: String? = nil
        var applicationName: String? = nil
        var connectTimeout: Duration = .seconds(10)
        var preparedStatements = true

        var testDescription: String { "\(username)@\(host):\(port)/\(database ?? "")" }

        init(
            _ host: String, _ port: Int, _ username: String, _ password: String?, _ database: String?, _ tls: TallyServer.PostgresDatabase.Configuration.TLSMode
        ) {
            (self.host, self.port, self.username, self.password, self.database, self.tls) = (host, port, username, password, database, tls)
        }

        init(_ configuration: TallyServer.PostgresDatabase.Configuration) {
            self.init(configuration.host, configuration.port, configuration.username, configuration.password, configuration.database, configuration.tls)
            (searchPath, applicationName, connectTimeout) = (configuration.searchPath, configuration.applicationName, configuration.connectTimeout)
            preparedStatements = configuration.preparedStatements
        }
    }

    static let valid: [(String, Parsed)] = {
        var options = Parsed("db.internal", 5432, "u", nil, "d", .verifyFull)
        options.searchPath = "tenant_1"
        options.applicationName = "tally"
        options.connectTimeout = .seconds(3)
        var unprepared = Parsed("db.internal", 5432, "u", nil, "d", .prefer)
        unprepared.preparedStatements = false
        return [
            // Loopback is plain TCP by default; anywhere else TLS when offered.
            ("postgres://tally@localhost/tally", Parsed("localhost", 5432, "tally", nil, "tally", .disable)),
            ("postgres://tally@127.0.0.1:55432/postgres", Parsed("127.0.0.1", 55432, "tally", nil, "postgres", .disable)),
            ("postgres://u@[::1]:5433/d", Parsed("::1", 5433, "u", nil, "d", .disable)),
            ("postgres://u@db.example.com", Parsed("db.example.com", 5432, "u", nil, nil, .prefer)),
            (
                "postgresql://tally:s%40cret@db.internal:6543/app%20db?sslmode=require",
                Parsed("db.internal", 6543, "tally", "s@cret", "app db", .require)
            ),
            ("postgres://u@db.internal/d?sslmode=allow", Parsed("db.internal", 5432, "u", nil, "d", .prefer)),
            ("postgres://u@localhost/d?sslmode=verify-ca", Parsed("localhost", 5432, "u", nil, "d", .verifyCA)),
            ("POSTGRES://u@db.internal/d?sslmode=disable", Parsed("db.internal", 5432, "u", nil, "d", .disable)),
            ("postgres://u@db.internal/d?sslmode=verify-full&search_path=tenant_1&application_name=tally&connect_timeout=3", options),
            ("postgres://u@db.internal/d?prepared_statements=off", unprepared),
            ("postgres://u@db.internal/d?prepared_statements=on", Parsed("db.internal", 5432, "u", nil, "d", .prefer)),
            // A host that begins with `/` is the directory of a Unix-domain socket: never encrypted.
            ("postgres://tally@/tally?host=/var/run/postgresql", Parsed("/var/run/postgresql", 5432, "tally", nil, "tally", .disable)),
            ("postgres://u:p@/d?host=/tmp/pg/&port=5433", Parsed("/tmp/pg", 5433, "u", "p", "d", .disable)),
            ("postgres://u@/d?host=/run/pg&sslmode=prefer", Parsed("/run/pg", 5432, "u", nil, "d", .prefer)),
            ("postgres://u@%2Frun%2Fpg:5433/d", Parsed("/run/pg", 5433, "u", nil, "d", .disable)),
            ("postgres://u@/d?host=/run/pg&port=", Parsed("/run/pg", 5432, "u", nil, "d", .disable)),
            ("postgres://u@%2Frun%2Fpg:5433/d?port=", Parsed("/run/pg", 5433, "u", nil, "d", .disable)),
            // `?host=` and `?port=` name the host and port instead of the URL's.
            ("postgres://u@db.internal:6000/d?host=db2.internal&port=6001", Parsed("db2.internal", 6001, "u", nil, "d", .prefer)),
        ]
    }()

    @Test(arguments: valid)
    func urlsAreReadAsLibpqReadsThem(url: String, expected: Parsed) throws {
        #expect(Parsed(try TallyServer.PostgresDatabase.Configuration(url: url)) == expected)
    }

    static let invalid: [(String, String)] = [
        ("mysql://u@db.internal/d", "scheme"),
        ("postgres:///d", "no host"),
        ("postgres://u@/d?host=", "no host"),
        ("postgres://u@/d?host=/a,/b", "one host only"),
        ("postgres://u@db1,db2/d", "one host only"),
        ("postgres://u@db.internal/d?port=70000", "port 70000 is out of range"),
        ("postgres://u@db.internal/d?port=five", "port five is not a number"),
        ("postgres://u:secret@/d?host=/run/pg&sslmode=require", "sslmode require needs TCP"),
        ("postgres://u:secret@/d?host=/run/pg&sslmode=verify-full", "sslmode verify-full needs TCP"),
        // At port 5432 a directory of 89 bytes fits (103 with the socket's file name: below); one of 90 does not.
        ("postgres://u@/d?host=/\(String(repeating: "p", count: 89))", "longer than 103 bytes"),
        ("postgres://db.internal/d", "no user"),
        ("postgres://u@db.internal:0/d", "port 0"),
        ("postgres://u@db.internal/d/more", "path"),
        ("postgres://u:secret@db.internal/d?sslmode=sometimes", "sslmode sometimes"),
        ("postgres://u:secret@db.internal/d?connect_timeout=0", "connect_timeout 0"),
        ("postgres://u@db.internal/d?connect_timeout=3601", "connect_timeout 3601"),
        ("postgres://u@db.internal/d?connect_timeout=soon", "connect_timeout soon"),
        ("postgres://u@db.internal/d?prepared_statements=yes", "prepared_statements yes is not on or off"),
        ("postgres://u:secret@db.internal/d?colour=blue", "unknown parameter colour"),
        ("db.internal:5432", "scheme"),
    ]

    @Test(arguments: invalid)
    func aMalformedUrlSaysWhatIsWrongAndNeverTheSecret(url: String, reason: String) {
        let error = #expect(throws: SQLDatabaseError.self) { try TallyServer.PostgresDatabase.Configuration(url: url) }
        #expect(error?.kind == .other)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("secret") == false)
    }

    @Test(arguments: [
        ("postgres://tally:secret@db.internal:6543/app", "postgres://tally@db.internal:6543/app"),
        ("postgres://u:p@[::1]/d", "postgres://u@[::1]:5432/d"),
        ("postgres://u@localhost", "postgres://u@localhost:5432/"),
        ("postgres://u:p@/d?host=/run/pg", "postgres://u@/d?host=/run/pg&port=5432"),
        ("postgres://u:p@/d?host=/run/my%26pg", "postgres://u@/d?host=/run/my%26pg&port=5432"),
        // A directory whose name holds `%26` itself prints escaped, and reads back as itself.
        ("postgres://u@/d?host=/run/my%2526pg", "postgres://u@/d?host=/run/my%2526pg&port=5432"),
    ])
    func theRedactedUrlLeavesThePasswordOut(url: String, redacted: String) throws {
        #expect(try TallyServer.PostgresDatabase.Configuration(url: url).redactedURL == redacted)
    }

    @Test(arguments: [
        (TallyServer.PostgresDatabase.Configuration.TLSMode.disable, CertificateVerification.none),
        (.prefer, .none), (.require, .none), (.verifyCA, .noHostnameVerification), (.verifyFull, .fullVerification),
    ])
    func certificatesAreCheckedAsTheModeSays(mode: TallyServer.PostgresDatabase.Configuration.TLSMode, verification: CertificateVerification) {
        let configuration = TallyServer.PostgresDatabase.Configuration(host: "db.internal", username: "u", tls: mode)
        #expect(configuration.tlsConfiguration.certificateVerification == verification)
    }

    /// A socket's directory connects to the file the server makes in it; a host name over TCP.
    @Test func aSocketsDirectoryIsConnectedToThroughItsFile() throws {
        let local = try TallyServer.PostgresDatabase.Configuration(url: "postgres://u@/d?host=/run/pg&port=5433")
        #expect(local.socketPath == "/run/pg/.s.PGSQL.5433")
        #expect(try local.connectionConfiguration().unixSocketPath == "/run/pg/.s.PGSQL.5433")
        #expect(try local.connectionConfiguration().host == nil)
        let remote = try TallyServer.PostgresDatabase.Configuration(url: "postgres://u@db.internal:5433/d")
        #expect(remote.socketPath == nil)
        #expect(try remote.connectionConfiguration().unixSocketPath == nil)
        #expect(try remote.connectionConfiguration().host == "db.internal")
        // The longest path the kernel takes everywhere: 103 bytes.
        let longest = try TallyServer.PostgresDatabase.Configuration(url: "postgres://u@/d?host=/\(String(repeating: "p", count: 88))")
        #expect(longest.socketPath?.utf8.count == 103)
    }

    /// A configuration built field by field is held to the URL's rule: no TLS on a socket, no
    /// path longer than the kernel takes; refused before any connection is tried.
    @Test func connectingRefusesWhatASocketCannotGive() async {
        let encrypted = TallyServer.PostgresDatabase.Configuration(host: "/run/pg", username: "u", tls: .verifyFull)
        let long = TallyServer.PostgresDatabase.Configuration(host: "/" + String(repeating: "p", count: 89), username: "u")
        for (configuration, reason) in [(encrypted, "sslmode verify-full needs TCP"), (long, "longer than 103 bytes")] {
            let error = await #expect(throws: SQLDatabaseError.self) { _ = try await TallyServer.PostgresDatabase.connect(configuration) }
            #expect(error?.kind == .other)
            #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        }
        #expect(throws: Never.self) { try TallyServer.PostgresDatabase.Configuration(host: "/run/pg", username: "u").checkSocket() }
        #expect(throws: Never.self) { try TallyServer.PostgresDatabase.Configuration(host: "db.internal", username: "u", tls: .verifyFull).checkSocket() }
    }

    @Test func startupParametersCarryTheSchemaAndTheName() throws {
        let configuration = try TallyServer.PostgresDatabase.Configuration(url: "postgres://u@db.internal/d?search_path=s1&application_name=api")
        #expect(configuration.startupParameters.map { "\($0.0)=\($0.1)" } == ["search_path=s1", "application_name=api"])
    }
}
