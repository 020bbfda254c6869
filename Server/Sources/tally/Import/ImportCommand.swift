import ArgumentParser
import Foundation
import TallyCore
import TallySQL
import TallyServer
import TallyVerify
import X509

/// `tally import`: customers from elsewhere, their histories pulled from Apple.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import customers' App Store histories into a Tally database, granting each transaction once.",
        discussion: """
            Each line of --original-transaction-ids is a customer: TRANSACTION_ID (their original transaction id,
            or any of theirs), or APP_USER_ID,TRANSACTION_ID to grant to that user of the app (made when missing,
            with the catalog's sign-up grants). The server asks the App Store Server API (the key as for tally serve)
            for each customer's transaction history and replays it through the normal grant path: a transaction
            Tally has already grants nothing, so an import may run again, and what devices post later is a replay.
            Without an app user id, transactions are recorded as a notification would record them: granted to the
            user whose app account token they carry, else to the first user who presents them. A customer with
            subscriptions then gets what Apple says of them now (Get All Subscription Statuses), taken in as a
            subscription refresh takes it: billing grace keeps access, billing retry shows as such.
            --dry-run reads Apple and the database, writes nothing, and reports the counts the run would (a
            transaction several lines bring is new once). Prints a JSON report; exits 1 when a customer or a
            transaction failed.
            """)

    @Option(help: "The catalog (JSON).")
    var config: String = "Examples/tally.json"

    @Option(help: "An SQLite file path, or a postgres:// URL.")
    var database: String = "tally.sqlite"

    @Option(name: .customLong("original-transaction-ids"), help: ArgumentHelp("The customers, one per line.", valueName: "FILE"))
    var originalTransactionIDs: String

    @Flag(name: .customLong("dry-run"), help: "Show what would change; change nothing.")
    var dryRun = false

    @Flag(help: "Development mode: also accept Sandbox and Xcode data, and trust --trust-ca-dir's root.")
    var dev = false

    @Option(name: .customLong("trust-ca-dir"), help: "With --dev: a simulated App Store's certificate folder whose roots to trust.")
    var trustCADir: String?

    @OptionGroup var apple: AppleAPIOptions

    func validate() throws {
        if trustCADir != nil, !dev { throw ValidationError("--trust-ca-dir needs --dev: test roots are trusted only in development") }
    }

    func run() async throws {
        let catalog: TallyCatalog
        do {
            catalog = try TallyCatalog.load(contentsOf: URL(fileURLWithPath: config))
        } catch {
            throw ValidationError("--config \(config): \(error)")
        }
        let customers: [AppleImport.Customer]
        do {
            customers = try AppleImport.customers(String(contentsOfFile: originalTransactionIDs, encoding: .utf8))
        } catch {
            throw ValidationError("--original-transaction-ids \(originalTransactionIDs): \(error)")
        }
        let environments: [AppStoreEnvironment] =
            dev ? [.production, .sandbox] : [.production] + (catalog.app.environments.contains("Sandbox") ? [.sandbox] : [])
        guard let api = try apple.configuration(bundleID: catalog.app.bundleID, environments: environments) else {
            throw ValidationError("tally import asks Apple: give --apple-key, --apple-key-id and --apple-issuer-id")
        }
        let roots = try dev ? (trustCADir.map(ServeCommand.testRoots) ?? []) : []
        let verifier = catalog.verifier(development: dev, testRoots: roots, now: { Date() })

        let opened: any SQLDatabase =
            database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
            ? try await PostgresDatabase.connect(url: database) : try SQLiteDatabase(path: database)
        let report: AppleImport.Report
        do {
            try await opened.migrate(Migrations.all)
            let storage = SQLStorage(database: opened, catalog: catalog, now: { Date() })
            report = await AppleImport(apple: AppStoreServerClient(configuration: api, verifier: verifier), storage: storage).run(customers, dryRun: dryRun)
            await opened.close()
        } catch {
            await opened.close()
            throw error
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
        if !report.failures.isEmpty { throw ExitCode(1) }
    }
}
