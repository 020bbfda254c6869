import Foundation
import TallyTestSupport
import Testing

/// The crash matrix, with real processes: `tally device purchase --crash-at STEP` dies by
/// SIGKILL at each step of a purchase, on the device and against a `tally serve` process,
/// with StoreKit 2 (a JWS) and StoreKit 1 (the app receipt); the next launch delivers the
/// credit, and it arrives exactly once.
@Suite(.timeLimit(.minutes(3))) struct DeviceCrashTests {
    /// Every step of `PurchaseStep`, in order; `stepsAreEveryStepOfAPurchase` keeps the list whole.
    static let steps = ["paid", "journaled", "delivered", "recorded", "finished"]

    enum Mode: String, CaseIterable, Sendable { case onDevice = "on-device", server }

    /// Where the credit is delivered, and which StoreKit proves the purchase.
    struct Setup: Sendable, CustomTestStringConvertible {
        var mode: Mode
        var storeKit: Int
        var testDescription: String { "\(mode.rawValue), StoreKit \(storeKit)" }
        static let all = [1, 2].flatMap { storeKit in Mode.allCases.map { Setup(mode: $0, storeKit: storeKit) } }
    }

    /// One phone: its folder and the simulated App Store's certificate authority.
    struct Phone {
        var folder: URL
        var server: String?
        var storeKit: Int

        /// A phone in `folder`, or in one not made yet in a new temporary folder (a usage error
        /// must leave it unmade).
        init(folder: URL? = nil, server: String? = nil, storeKit: Int = 2) throws {
            self.folder = try folder ?? TemporaryFolder().fileURL("phone")
            self.server = server
            self.storeKit = storeKit
        }
        var caDir: String { folder.appendingPathComponent("ca").path }

        func run(_ subcommand: String, _ extra: [String] = []) async throws -> CommandLine.Run {
            var arguments = ["device", subcommand, "--ca-dir", caDir, "--state", folder.appendingPathComponent("state").path]
            if let server { arguments += ["--server", server] }
            if storeKit != 2 { arguments += ["--storekit", "\(storeKit)"] }
            return try await CommandLine.run(arguments + extra)
        }

        func launch() async throws -> [String: Any] {
            let run = try await run("launch")
            #expect(run.status == 0, "\(run.stderr)")
            return CommandLine.json(run.stdout)
        }
    }

    /// What one purchase must leave, and nothing more: a report credit on the device; on the
    /// server, 10 credits on top of the 2 every new user gets.
    static func product(_ mode: Mode) -> (id: String, currency: String, balance: Int) {
        mode == .onDevice ? ("com.tally.zorya.report.career", "report.career", 1) : ("com.tally.photo.credits.10", "credits", 12)
    }

    /// Runs `body` with a `tally serve` on a fresh database that trusts the phone's App Store.
    static func withServer(_ phone: inout Phone, _ body: (Phone) async throws -> Void) async throws {
        // The authority's folder must exist before the server is told to trust it.
        let created = try await CommandLine.run(["appstore", "purchase", "--ca-dir", phone.caDir, "--product", "com.tally.photo.credits.10"])
        #expect(created.status == 0, "\(created.stderr)")
        // So is its receipt chain, for StoreKit 1 devices (minted at the first receipt).
        let receipt = try await CommandLine.run(["appstore", "receipt", "--ca-dir", phone.caDir, "--device-id", UUID().uuidString])
        #expect(receipt.status == 0, "\(receipt.stderr)")
        let database = phone.folder.appendingPathComponent("server.sqlite").path
        let (server, port) = try ServeCommandTests.serve(["serve", "--dev", "--trust-ca-dir", phone.caDir, "--database", database])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        phone.server = "http://127.0.0.1:\(port)"
        try await body(phone)
    }

    @Test(arguments: Setup.all, steps)
    func aCrashAtEveryStepDeliversTheCreditExactlyOnce(setup: Setup, step: String) async throws {
        let mode = setup.mode
        var phone = try Phone(storeKit: setup.storeKit)
        defer { try? FileManager.default.removeItem(at: phone.folder) }
        let check = { (phone: Phone) async throws in
            let (product, currency, balance) = Self.product(mode)
            let crashed = try await phone.run("purchase", ["--product", product, "--crash-at", step])
            #expect(crashed.status == 9, "the purchase was to die by SIGKILL at \(step): \(crashed.stdout) \(crashed.stderr)")
            #expect(crashed.stderr.contains("crashing at \(step)"))

            // The next launch takes up what the crash left; the one after finds nothing to do.
            for launch in 1...2 {
                let state = try await phone.launch()
                let balances = state["balances"] as? [String: Int] ?? [:]
                #expect(balances[currency] == balance, "launch \(launch) after a crash at \(step): \(state)")
                #expect(state["unfinished_in_store"] as? Int == 0, "\(state)")
                let journal = state["journal"] as? [[String: String]] ?? []
                #expect(journal.count == 1 && journal.allSatisfy { $0["state"] == "finished" }, "\(journal)")
            }
        }
        if mode == .server { try await Self.withServer(&phone, check) } else { try await check(phone) }
    }

    @Test func aCrashedPurchaseIsDeliveredAtALaterLaunchWhenTheServerIsBack() async throws {
        var phone = try Phone()
        defer { try? FileManager.default.removeItem(at: phone.folder) }
        var server = ""
        // Paid and journaled, then the app dies; the server goes away too.
        try await Self.withServer(&phone) { phone async throws in
            server = phone.server ?? ""
            let crashed = try await phone.run("purchase", ["--product", "com.tally.photo.credits.10", "--crash-at", "journaled"])
            #expect(crashed.status == 9)
        }
        // A launch without the server cannot deliver and says why; the journal keeps the transaction.
        let offline = try Phone(folder: phone.folder, server: server)
        let failed = try await offline.run("launch")
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("network_error") || failed.stderr.contains("server_unavailable"), "\(failed.stderr)")

        // The server back on the same database: the next launch delivers it, once.
        let (restarted, port) = try ServeCommandTests.serve(
            ["serve", "--dev", "--trust-ca-dir", phone.caDir, "--database", phone.folder.appendingPathComponent("server.sqlite").path])
        defer {
            restarted.terminate()
            restarted.waitUntilExit()
        }
        let back = try Phone(folder: phone.folder, server: "http://127.0.0.1:\(port)")
        for _ in 1...2 {
            let state = try await back.launch()
            #expect((state["balances"] as? [String: Int])?["credits"] == 12, "\(state)")
            #expect(state["unfinished_in_store"] as? Int == 0)
        }
    }

    @Test func withoutTheServerAPurchaseIsNotStarted() async throws {
        var phone = try Phone()
        defer { try? FileManager.default.removeItem(at: phone.folder) }
        var server = ""
        // Signed up while the server runs; then it is gone.
        try await Self.withServer(&phone) { phone async throws in
            server = phone.server ?? ""
            let state = try await phone.launch()
            #expect(state["mode"] as? String == "server")
        }
        let offline = try Phone(folder: phone.folder, server: server)
        let before = try? Data(contentsOf: phone.folder.appendingPathComponent("state/appstore.json"))
        let run = try await offline.run("purchase", ["--product", "com.tally.photo.credits.10"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("network_error"), "\(run.stderr)")
        // The order could not be made, so no payment sheet: the App Store's record is unchanged.
        let after = try? Data(contentsOf: phone.folder.appendingPathComponent("state/appstore.json"))
        #expect(before == after)
    }

    @Test(arguments: [
        (["--server", "ftp://127.0.0.1:1"], "--server"),
        (["--catalog", "/nonexistent/tally.json"], "--catalog"),
    ])
    func badOptionsAreUsageErrorsAndTouchNothing(extra: [String], option: String) async throws {
        let phone = try Phone()
        let run = try await CommandLine.run(["device", "launch", "--ca-dir", phone.caDir, "--state", phone.folder.path] + extra)
        #expect(run.status == 2)
        #expect(run.stderr.contains(option), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: phone.folder.path))
    }

    @Test func stepsAreEveryStepOfAPurchase() async throws {
        let run = try await CommandLine.run(["device", "purchase", "--ca-dir", "/tmp/x", "--state", "/tmp/y", "--product", "p", "--crash-at", "nowhere"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("must be one of \(Self.steps.joined(separator: ", "))"), "\(run.stderr)")
    }
}
