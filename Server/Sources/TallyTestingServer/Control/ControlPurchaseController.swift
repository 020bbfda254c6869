import Foundation
import Hummingbird
import TallyCore
import TallyTesting
import TallyVerify

/// Buying: a purchase (StoreKit 2, or StoreKit 1 on a device with its app receipt), the
/// purchases waiting for Ask to Buy or an interruption, and a device's app receipt.
struct ControlPurchaseController: Sendable {
    let store: SimulatedAppStore

    var endpoints: RouteCollection<ControlRequestContext> {
        RouteCollection(context: ControlRequestContext.self)
            .post("purchases") { request, context in try await purchase(try await request.decode(as: PurchaseBody.self, context: context)) }
            .get("pending") { _, _ in await store.pendingPurchases.map(PendingBody.init) }
            .post("pending/:id/approve") { _, context in TransactionBody(try await store.approveAskToBuy(context.parameters.require("id"))) }
            .post("pending/:id/decline") { _, context in
                try await store.declineAskToBuy(context.parameters.require("id"))
                return EmptyBody()
            }
            .post("pending/:id/resolve") { _, context in
                TransactionBody(try await store.resolveInterruptedPurchase(context.parameters.require("id")))
            }
            .get("receipt") { request, _ in
                ReceiptBody(try await store.appReceipt(for: try Self.device(request.uri.queryParameters["device_id"].map(String.init))))
            }
            .post("receipt/refresh") { request, context in
                let body = try await request.decode(as: DeviceBody.self, context: context)
                return ReceiptBody(try await store.refreshAppReceipt(for: try Self.device(body.deviceID)))
            }
    }

    /// The failures a purchase can be told to end in.
    static let failures: Set<String> = ["network_error", "payment_declined", "payment_not_allowed", "product_unavailable"]

    struct PurchaseBody: Decodable {
        var productID: String
        var appAccountToken: String?
        var quantity: Int?
        var promotionalOfferID: String?
        /// success, user_cancelled, ask_to_buy, interrupted, unverified, or a store error code to fail with.
        var outcome: String?
        /// 1 for a StoreKit 1 payment on `device_id`; 2 (the default) for StoreKit 2.
        var storekit: Int?
        /// StoreKit 1: the device whose app receipt the purchase updates (a UUID, or hexadecimal).
        var deviceID: String?
        /// StoreKit 1: `SKMutablePayment.applicationUsername`; kept as the app account token only when it is a UUID.
        var applicationUsername: String?
    }

    struct PurchaseResultBody: ResponseEncodable {
        var result: String
        var transactionID: String?
        var signedTransaction: String?
        var pendingID: String?
        /// StoreKit 1: the device's app receipt after the purchase, base64.
        var receipt: String?
    }

    func purchase(_ body: PurchaseBody) async throws -> PurchaseResultBody {
        var token: UUID?
        if let text = body.appAccountToken {
            guard let uuid = UUID(uuidString: text) else { throw ControlError.invalid("app_account_token must be a UUID") }
            token = uuid
        }
        switch body.storekit {
        case nil, 2:
            guard body.deviceID == nil, body.applicationUsername == nil else {
                throw ControlError.invalid("device_id and application_username are for StoreKit 1 payments (\"storekit\": 1)")
            }
        case 1:
            guard body.appAccountToken == nil, body.promotionalOfferID == nil else {
                throw ControlError.invalid("a StoreKit 1 payment carries application_username, not app_account_token or promotional_offer_id")
            }
        case let other?:
            throw ControlError.invalid("storekit must be 1 or 2, not \(other)")
        }
        let outcome = try Self.outcome(body.outcome)
        if body.storekit == 1 {
            let device = try Self.device(body.deviceID)
            let payment = SimulatedAppStore.StoreKit1Payment(
                productID: body.productID, quantity: body.quantity ?? 1, applicationUsername: body.applicationUsername, outcome: outcome)
            let result = try await store.purchase(payment, on: device)
            var answer = Self.answer(result)
            if case .success = result { answer.receipt = try await store.appReceipt(for: device).base64 }
            return answer
        }
        let options = SimulatedAppStore.PurchaseOptions(
            appAccountToken: token, quantity: body.quantity ?? 1, promotionalOfferID: body.promotionalOfferID, outcome: outcome)
        return Self.answer(try await store.purchase(body.productID, options: options))
    }

    /// How the purchase is told to end: automatic (the store's settings) when not said.
    static func outcome(_ text: String?) throws -> SimulatedAppStore.Outcome {
        switch text {
        case nil, "automatic": .automatic
        case "success": .success
        case "user_cancelled": .userCancelled
        case "ask_to_buy": .askToBuy
        case "interrupted": .interrupted
        case "unverified": .unverified
        case let code? where failures.contains(code): .failure(SimulatedAppStoreError.Code(rawValue: code))
        case let other?:
            throw ControlError.invalid(
                "outcome must be automatic, success, user_cancelled, ask_to_buy, interrupted, unverified or one of \(failures.sorted()), not \(other)")
        }
    }

    static func answer(_ result: SimulatedAppStore.PurchaseResult) -> PurchaseResultBody {
        switch result {
        case .success(let transaction):
            return PurchaseResultBody(result: "success", transactionID: transaction.transactionID, signedTransaction: transaction.jws)
        case .userCancelled:
            return PurchaseResultBody(result: "user_cancelled")
        case .pending(let pending):
            return PurchaseResultBody(result: "pending", pendingID: pending.id)
        }
    }

    struct PendingBody: ResponseEncodable {
        var id: String
        var reason: String
        var productID: String
        var quantity: Int
        var requestedAt: String
        init(_ pending: SimulatedAppStore.PendingPurchase) {
            id = pending.id
            reason = pending.reason.rawValue
            productID = pending.productID
            quantity = pending.quantity
            requestedAt = pending.requestedAt.formatted(.iso8601)
        }
    }

    /// A device identifier as the control API takes it: a UUID (`identifierForVendor`) or hexadecimal.
    static func device(_ text: String?) throws -> DeviceIdentifier {
        guard let text, !text.isEmpty else { throw ControlError.invalid("device_id is required: the device's identifier, a UUID") }
        guard text.utf8.count <= 128, let device = DeviceIdentifier(hex: text) else {
            throw ControlError.invalid("device_id must be a UUID or hexadecimal, not \(text.prefix(128))")
        }
        return device
    }

    struct DeviceBody: Decodable {
        var deviceID: String?
    }

    struct ReceiptBody: ResponseEncodable {
        var deviceID: String
        /// The PKCS#7 receipt, base64, as a device sends it.
        var receipt: String
        var createdAt: String?
        var transactionIDs: [String]

        enum CodingKeys: String, CodingKey {
            case deviceID, receipt, createdAt
            case transactionIDs = "transactionIds"
        }

        init(_ receipt: SimulatedAppStore.SignedReceipt) {
            deviceID = receipt.device.description
            self.receipt = receipt.base64
            createdAt = receipt.payload.receiptCreationDate?.formatted(.iso8601)
            transactionIDs = receipt.transactionIDs
        }
    }
}
