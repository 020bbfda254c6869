import Foundation
import TallyTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tally serve` as a user runs it: start, buy with `tally appstore purchase`, post with HTTP,
/// see the balance; SIGTERM stops it cleanly.
@Suite(.serialized) struct ServeCommandTests {
    let folder: URL

    init() throws { folder = try TemporaryFolder().url }

    struct CommandFailure: Error, CustomStringConvertible { let description: String }

    /// Starts a server command on port 0 (any free port: no clash with other tests' servers)
    /// and returns it with the port its log says it listens on.
    static func serve(_ arguments: [String], environment: [String: String] = [:]) throws -> (process: ChildProcess, port: Int) {
        let process = try ChildProcess(
            CommandLine.executable, arguments + ["--port", "0"],
            environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 },
            directory: CommandLine.repository, mergingErrors: true, withInput: false)
        let log = process.output
        var seen = ""
        while true {
            if let range = seen.range(of: #"listening on [^\s]*:(\d+)"#, options: .regularExpression),
                let port = Int(seen[range].split(separator: ":").last ?? "")
            {
                return (process, port)
            }
            let chunk = log.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        process.terminate()
        throw CommandFailure(description: "the server did not say where it listens: \(seen)")
    }

    static func request(
        _ method: String, _ url: String, token: String? = nil, body: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    @Test func aPurchaseMadeWithTheSimulatorShowsUpInTheBalance() async throws {
        let caDir = folder.appendingPathComponent("ca").path
        let database = folder.appendingPathComponent("tally.sqlite").path
        defer { try? FileManager.default.removeItem(at: folder) }

        // A first purchase creates the simulator's CA folder, which the server is then told to trust.
        let warmUp = try await CommandLine.run(["appstore", "purchase", "--ca-dir", caDir, "--product", "com.tally.photo.credits.50"])
        #expect(warmUp.status == 0, "\(warmUp.stderr)")

        let (server, port) = try Self.serve(["serve", "--dev", "--trust-ca-dir", caDir, "--database", database])
        defer { server.terminate() }
        let base = "http://127.0.0.1:\(port)"
        let (created, user) = try await Self.request("POST", base + "/v1/users")
        #expect(created == 201)
        let token = try #require(user["user_token"] as? String)
        let accountToken = try #require(user["app_account_token"] as? String)

        let purchase = try await CommandLine.run([
            "appstore", "purchase", "--ca-dir", caDir, "--product", "com.tally.photo.credits.50",
            "--account-token", accountToken,
        ])
        #expect(purchase.status == 0, "\(purchase.stderr)")
        let jws = purchase.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let body = "{\"signed_transaction\":\"\(jws)\"}"
        let (status, delivered) = try await Self.request("POST", base + "/v1/me/purchases", token: token, body: body)
        #expect(status == 200, "\(delivered)")
        // Posting the same purchase again credits nothing more.
        let (repeated, _) = try await Self.request("POST", base + "/v1/me/purchases", token: token, body: body)
        #expect(repeated == 200)

        // A stop and a start keep everything: the balance is read back from the database.
        server.interrupt()
        server.waitUntilExit()
        #expect(server.terminationStatus == 0)
        let (again, newPort) = try Self.serve(["serve", "--dev", "--trust-ca-dir", caDir, "--database", database])
        defer { again.terminate() }
        let (_, me) = try await Self.request("GET", "http://127.0.0.1:\(newPort)/v1/me", token: token)
        let credits = (me["balances"] as? [[String: Any]])?.first { $0["currency"] as? String == "credits" }
        // 2 signup credits and 50 bought, once.
        #expect(credits?["available"] as? Int == 52, "\(me)")

        // SIGTERM: the server finishes and exits cleanly.
        again.terminate()
        again.waitUntilExit()
        #expect(again.terminationStatus == 0)
    }

    /// Starts `tally serve` with `--metrics-address` on any free port; returns it with both ports.
    static func serveWithMetrics(_ arguments: [String]) throws -> (process: ChildProcess, port: Int, metricsPort: Int) {
        let process = try ChildProcess(
            CommandLine.executable, arguments + ["--port", "0", "--metrics-address", "127.0.0.1:0"], directory: CommandLine.repository,
            mergingErrors: true, withInput: false)
        let log = process.output
        var seen = ""
        func portAfter(_ pattern: String) -> Int? {
            guard let range = seen.range(of: pattern, options: .regularExpression) else { return nil }
            return Int(seen[range].split(separator: ":").last?.prefix { $0.isNumber } ?? "")
        }
        while true {
            if let port = portAfter(#"listening on [^\s]*:(\d+)"#), let metricsPort = portAfter(#"metrics served at http://[^\s]*:(\d+)/"#) {
                return (process, port, metricsPort)
            }
            let chunk = log.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        process.terminate()
        throw CommandFailure(description: "the server did not say where it listens: \(seen)")
    }

    @Test func metricsAreServedOnlyOnTheMetricsAddress() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("tally.sqlite").path
        let (server, port, metricsPort) = try Self.serveWithMetrics(["serve", "--database", database])
        defer { server.terminate() }
        #expect(port != metricsPort)
        let (created, _) = try await Self.request("POST", "http://127.0.0.1:\(port)/v1/users")
        #expect(created == 201)
        // Not on the public listener, whoever asks.
        let (publicStatus, publicBody) = try await Self.request("GET", "http://127.0.0.1:\(port)/metrics")
        #expect(publicStatus == 404)
        #expect((publicBody["error"] as? [String: Any])?["code"] as? String == "not_found")
        // On the metrics listener: the counters, and nothing of the API.
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(metricsPort)/metrics")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains(#"tally_http_requests_total{method="POST",route="/v1/users",status="201"} 1"#))
        let (apiStatus, _) = try await Self.request("POST", "http://127.0.0.1:\(metricsPort)/v1/users")
        #expect(apiStatus == 404)
    }

    @Test func xcodesCertificateIsTrustedOnlyInDevelopmentAndOnlyWhenItIsOne() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let notACertificate = folder.appendingPathComponent("notes.cer")
        try Data("not a certificate".utf8).write(to: notACertificate)
        let withoutDev = try await CommandLine.run(["serve", "--xcode-certificate", notACertificate.path])
        #expect(withoutDev.status != 0)
        #expect(withoutDev.stderr.contains("--xcode-certificate needs --dev"), "\(withoutDev.stderr)")
        let garbage = try await CommandLine.run(["serve", "--dev", "--xcode-certificate", notACertificate.path, "--port", "0"])
        #expect(garbage.status != 0)
        #expect(garbage.stderr.contains("--xcode-certificate \(notACertificate.path)"), "\(garbage.stderr)")
    }

    @Test func aMetricsAddressThatIsNoHostAndPortIsAUsageError() async throws {
        let result = try await CommandLine.run(["serve", "--metrics-address", "9464"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--metrics-address must be host:port"), "\(result.stderr)")
    }

    @Test func aServerWithoutDevRefusesWhatTheSimulatorSignsEvenForProduction() async throws {
        let caDir = folder.appendingPathComponent("ca").path
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port) = try Self.serve(["serve", "--database", folder.appendingPathComponent("tally.sqlite").path])
        defer { server.terminate() }
        let base = "http://127.0.0.1:\(port)"
        let (_, user) = try await Self.request("POST", base + "/v1/users")
        let token = try #require(user["user_token"] as? String)
        let accountToken = try #require(user["app_account_token"] as? String)
        let purchase = try await CommandLine.run([
            "appstore", "purchase", "--ca-dir", caDir, "--product", "com.tally.photo.credits.50",
            "--account-token", accountToken, "--environment", "Production",
        ])
        #expect(purchase.status == 0, "\(purchase.stderr)")
        let jws = purchase.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (status, refusal) = try await Self.request("POST", base + "/v1/me/purchases", token: token, body: "{\"signed_transaction\":\"\(jws)\"}")
        // Signed well, by a chain that does not lead to Apple's root: refused, nothing credited.
        #expect(status == 422, "\(refusal)")
        let error = refusal["error"] as? [String: Any]
        #expect(error?["code"] as? String == "verification_failed", "\(refusal)")
        #expect(error?["verification_code"] as? String == "untrusted_chain", "\(refusal)")
        let (_, me) = try await Self.request("GET", base + "/v1/me", token: token)
        let credits = (me["balances"] as? [[String: Any]])?.first { $0["currency"] as? String == "credits" }
        #expect(credits?["available"] as? Int == 2, "\(me)")
    }

    @Test func withoutDevTheSimulatorsRootIsNotTrusted() async throws {
        let run = try await CommandLine.run(["serve", "--trust-ca-dir", "/tmp/anything"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--trust-ca-dir needs --dev"))
    }

    @Test(arguments: [
        (["--trusted-proxy", "10.0.0.0/33"], [String: String](), "--trusted-proxy '10.0.0.0/33': the prefix length of an IPv4 range is 0 to 32"),
        (["--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "proxy.internal"], [:], "--trusted-proxy 'proxy.internal': not an IP address"),
        (["--trusted-proxy", "192.168.1.10/24"], [:], "the range is 192.168.1.0/24"),
        ([], ["TALLY_TRUSTED_PROXIES": "10.0.0.0/8, nonsense"], "TALLY_TRUSTED_PROXIES: 'nonsense': not an IP address"),
    ])
    func aTrustedProxyThatIsNoRangeIsAUsageError(arguments: [String], environment: [String: String], message: String) async throws {
        let run = try await CommandLine.run(["serve", "--database", folder.appendingPathComponent("unused.sqlite").path] + arguments, environment: environment)
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("unused.sqlite").path))
    }

    @Test func behindATrustedProxyEachForwardedClientHasItsOwnLimit() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // The example catalog with a per-address limit of 1 a minute: a burst of 10, and no
        // token comes back during the test however slowly the machine runs it.
        let example = try Data(contentsOf: CommandLine.repository.appendingPathComponent("Examples/tally.json"))
        var catalog = try #require(try JSONSerialization.jsonObject(with: example) as? [String: Any])
        var limits = try #require(catalog["limits"] as? [String: Any])
        limits["ip_requests_per_minute"] = 1
        catalog["limits"] = limits
        let config = folder.appendingPathComponent("tally.json")
        try JSONSerialization.data(withJSONObject: catalog).write(to: config)

        // The proxies come from the option and from the environment's list.
        let (server, port) = try Self.serve(
            ["serve", "--config", config.path, "--database", folder.appendingPathComponent("tally.sqlite").path, "--trusted-proxy", "127.0.0.1"],
            environment: ["TALLY_TRUSTED_PROXIES": "::1"])
        defer { server.terminate() }
        let signUp = "http://127.0.0.1:\(port)/v1/users"
        var busy: [Int] = []
        for _ in 0..<12 {
            busy.append(try await Self.request("POST", signUp, headers: ["X-Forwarded-For": "203.0.113.7"]).0)
        }
        #expect(busy.prefix(10).allSatisfy { $0 == 201 }, "\(busy)")
        #expect(busy.suffix(2).allSatisfy { $0 == 429 }, "\(busy)")
        // Another client behind the same proxy is not held back.
        for index in 1...5 {
            #expect(try await Self.request("POST", signUp, headers: ["X-Forwarded-For": "198.51.100.\(index)"]).0 == 201)
        }
        // A client cannot leave its bucket by naming another address before its own.
        #expect(try await Self.request("POST", signUp, headers: ["X-Forwarded-For": "192.0.2.1, 203.0.113.7"]).0 == 429)
        server.interrupt()
        server.waitUntilExit()
        #expect(server.terminationStatus == 0)
    }
}
