import ArgumentParser
import Foundation
import TallyCore
import TallySQL
import TallyServer

/// `tally console operator add|remove|list`: the people who may sign in to the web console.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Manage the web console that tally serve answers under /console.",
        subcommands: [OperatorCommand.self])
}

struct OperatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operator",
        abstract: "Add, remove or list the console's operators.",
        discussion: """
            Operators sign in with their name and password; an admin may adjust balances and grant or revoke
            entitlements, a read-only operator sees and exports everything and changes nothing. Anyone with the
            server's secret key may also sign in (as an admin), with an empty operator name.
            """,
        subcommands: [Add.self, Remove.self, List.self])

    struct Store: ParsableArguments {
        @Option(help: "An SQLite file path, or a postgres:// URL.")
        var database: String = "tally.sqlite"

        @Option(help: "The catalog (JSON).")
        var config: String = "Examples/tally.json"

        /// Runs `work` on the migrated database, then closes it.
        func run<T>(_ work: (SQLStorage) async throws -> T) async throws -> T {
            let catalog: TallyCatalog
            do {
                catalog = try TallyCatalog.load(contentsOf: URL(fileURLWithPath: config))
            } catch {
                throw ValidationError("--config \(config): \(error)")
            }
            let opened: any SQLDatabase =
                database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
                ? try await PostgresDatabase.connect(url: database) : try SQLiteDatabase(path: database)
            do {
                try await opened.migrate(Migrations.all)
                let result = try await work(SQLStorage(database: opened, catalog: catalog, now: { Date() }))
                await opened.close()
                return result
            } catch {
                await opened.close()
                throw error
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an operator, or give an existing one a new password and role (their sessions end).",
            discussion: "The password is read from the first line of standard input, so that it is not in the shell's history.")

        @OptionGroup var store: Store

        @Option(help: "The operator's name (1–64 letters, digits, '.', '_', '-' or '@').")
        var name: String

        @Option(help: "admin or read-only.")
        var role: String = "admin"

        func validate() throws {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._-@"))
            guard (1...64).contains(name.count), name.unicodeScalars.allSatisfy(allowed.contains) else {
                throw ValidationError("--name must be 1 to 64 letters, digits, '.', '_', '-' or '@'")
            }
            guard role == "admin" || role == "read-only" else { throw ValidationError("--role must be admin or read-only") }
        }

        func run() async throws {
            guard let password = readLine(strippingNewline: true), password.count >= ConsolePasswords.minimumLength else {
                throw ValidationError("give a password of at least \(ConsolePasswords.minimumLength) characters on standard input")
            }
            let hash = try ConsolePasswords.hash(password)
            try await store.run { try await $0.console.saveOperator(name: name, passwordHash: hash, role: role == "admin" ? .admin : .readOnly) }
            print("operator \(name) (\(role)) saved")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an operator and end their sessions.")

        @OptionGroup var store: Store

        @Option(help: "The operator's name.")
        var name: String

        func run() async throws {
            guard try await store.run({ try await $0.console.removeOperator(name: name) }) else {
                throw ValidationError("there is no operator \(name)")
            }
            print("operator \(name) removed")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the operators and their roles.")

        @OptionGroup var store: Store

        func run() async throws {
            for (name, role) in try await store.run({ try await $0.console.operators() }) {
                print("\(name)\t\(role == .admin ? "admin" : "read-only")")
            }
        }
    }
}
