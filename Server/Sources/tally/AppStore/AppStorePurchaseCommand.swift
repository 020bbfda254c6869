import ArgumentParser
import Foundation
import TallyTesting

/// `tally appstore purchase`: one signed transaction on standard output.
struct AppStorePurchaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purchase",
        abstract: "Buy one product from the simulated App Store and print the signed transaction (JWS).",
        discussion: """
            The JWS verifies with `tally verify --root <ca-dir>/root.cer`. Each run makes a new
            transaction with a new identifier, signed now.
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: "The product identifier.")
    var product: String

    @Option(name: .customLong("account-token"), help: "The app account token (a UUID) to carry in the transaction.")
    var accountToken: String?

    @Option(help: "How many units of a consumable (1–10).")
    var quantity: Int = 1

    func validate() throws {
        if let accountToken, UUID(uuidString: accountToken) == nil {
            throw ValidationError("--account-token must be a UUID, not '\(accountToken)'")
        }
    }

    func run() async throws {
        let simulated = try SimulatedAppStore(
            configuration: try store.storeConfiguration(), authority: try store.authority(), time: .system(now: { Date() }))
        do {
            let result = try await simulated.purchase(
                product,
                options: SimulatedAppStore.PurchaseOptions(appAccountToken: accountToken.flatMap(UUID.init(uuidString:)), quantity: quantity, outcome: .success)
            )
            guard case .success(let transaction) = result else {
                throw SimulatedAppStoreError(.invalidState, "the purchase did not complete")
            }
            print(transaction.jws)
        } catch let error as SimulatedAppStoreError {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
