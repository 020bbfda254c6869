public import Foundation
public import TallyCore
public import TallyVerify

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedAppStore {
    /// A StoreKit 1 payment, as an app adds an `SKMutablePayment` to the payment queue.
    public struct StoreKit1Payment: Sendable, Hashable {
        /// The product.
        public var productID: String
        /// How many units of a consumable, 1 to 10.
        public var quantity: Int
        /// `SKMutablePayment.applicationUsername`. As with Apple, only a UUID survives: it
        /// becomes the transaction's `appAccountToken`; any other string is dropped. It never
        /// appears in the app receipt.
        public var applicationUsername: String?
        /// What the simulated customer and store do.
        public var outcome: SimulatedAppStore.Outcome

        /// - Parameters:
        ///   - productID: the product.
        ///   - quantity: units of a consumable, 1 to 10.
        ///   - applicationUsername: the app's identifier for its user; kept only when it is a UUID.
        ///   - outcome: what happens; by default, what the store's settings say.
        public init(productID: String, quantity: Int = 1, applicationUsername: String? = nil, outcome: SimulatedAppStore.Outcome = .automatic) {
            self.productID = productID
            self.quantity = quantity
            self.applicationUsername = applicationUsername
            self.outcome = outcome
        }
    }

    /// An app receipt as a device holds it (`Bundle.main.appStoreReceiptURL`): PKCS#7 bytes
    /// signed by the store's receipt authority, and the receipt inside for tests to read.
    public struct SignedReceipt: Sendable, Hashable {
        /// The PKCS#7 `SignedData`, DER, as the App Store writes receipts.
        public let bytes: [UInt8]
        /// The receipt inside ``bytes``.
        public let payload: AppReceipt
        /// The device it was issued to; its hash is computed with this identifier.
        public let device: DeviceIdentifier

        /// ``bytes`` in standard base64, as apps send receipts to servers.
        public var base64: String { Data(bytes).base64EncodedString() }
        /// The transaction identifiers of its in-app purchases, in the receipt's order (DER's,
        /// by encoding, not the order of purchase).
        public var transactionIDs: [String] { payload.inAppPurchases.compactMap(\.transactionID) }
    }

    /// Buys with StoreKit 1 on `device`: the purchase is made as ``purchase(_:options:)``
    /// makes it (with its notification and its JWS, which the App Store Server API returns
    /// for the same transaction identifier), and once it completes the device's app receipt
    /// is issued again, listing it. A pending purchase (Ask to Buy, interrupted) updates the
    /// receipt when it completes.
    /// - Parameters:
    ///   - payment: the payment.
    ///   - device: the device's identifier (`identifierForVendor`), which the receipt's hash binds.
    /// - Returns: the transaction, a cancellation, or a pending purchase.
    /// - Throws: ``SimulatedAppStoreError`` as ``purchase(_:options:)``, or when the receipt cannot be signed.
    public func purchase(_ payment: StoreKit1Payment, on device: DeviceIdentifier) throws(SimulatedAppStoreError) -> SimulatedAppStore.PurchaseResult {
        // Apple keeps applicationUsername as appAccountToken only when it is a UUID.
        let token = payment.applicationUsername.flatMap { UUID(uuidString: $0) }
        let options = SimulatedAppStore.PurchaseOptions(appAccountToken: token, quantity: payment.quantity, outcome: payment.outcome)
        let result = try purchase(payment.productID, options: options)
        switch result {
        case .success:
            try issueReceipt(for: device)
        case .pending(let pending):
            if let index = state.pending.firstIndex(where: { $0.id == pending.id }) {
                state.pending[index].storeKit1Device = device.description
                try save()
            }
        case .userCancelled:
            break
        }
        return result
    }

    /// The device's app receipt as last issued; issued now when the device has none yet.
    /// Finished consumables stay in it until it is issued again (``refreshAppReceipt(for:)``
    /// or the device's next StoreKit 1 purchase), as on Apple's devices.
    /// - Throws: ``SimulatedAppStoreError`` when the receipt cannot be signed or the state saved.
    public func appReceipt(for device: DeviceIdentifier) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedReceipt {
        if let record = state.receipts?[device.description] { return try signedReceipt(record, device: device) }
        return try signedReceipt(try issueReceipt(for: device), device: device)
    }

    /// Issues the device's app receipt again, as `SKReceiptRefreshRequest`: it lists the
    /// customer's purchases now, without consumables the app has finished.
    /// - Throws: ``SimulatedAppStoreError`` when the receipt cannot be signed or the state saved.
    @discardableResult
    public func refreshAppReceipt(for device: DeviceIdentifier) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedReceipt {
        try signedReceipt(try issueReceipt(for: device), device: device)
    }

    /// The authority that signs app receipts: the one the store was opened with, or one minted
    /// now (valid from a day before the store's time) and kept for the store's life. Trust its
    /// ``TestReceiptAuthority/root`` to verify the store's receipts.
    /// - Throws: ``SimulatedAppStoreError`` `invalidState` when a chain cannot be minted.
    public func receiptAuthority() throws(SimulatedAppStoreError) -> TestReceiptAuthority {
        if let receiptSigner { return receiptSigner }
        do {
            let minted = try TestReceiptAuthority(profile: .init(issuedAt: now))
            receiptSigner = minted
            return minted
        } catch {
            throw SimulatedAppStoreError(.invalidState, "cannot mint a receipt chain: \(error)")
        }
    }

    // MARK: - Issuing

    /// Takes a new snapshot of the customer's purchases for `device` and saves it.
    @discardableResult
    func issueReceipt(for device: DeviceIdentifier) throws(SimulatedAppStoreError) -> DeviceReceiptRecord {
        var receipts = state.receipts ?? [:]
        var generator = SystemRandomNumberGenerator()
        let opaque = receipts[device.description]?.opaqueValue ?? Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let issuedAt = Self.wholeSeconds(now)
        if state.appPurchaseDate == nil {
            state.appPurchaseDate = min(issuedAt, state.transactions.compactMap(\.payload.purchaseDate).map(Self.wholeSeconds).min() ?? issuedAt)
        }
        // The customer's own purchases; consumables only while the app has not finished them.
        let listed = state.transactions.filter { record in
            record.payload.inAppOwnershipType == .purchased && !(record.payload.type == .consumable && record.finished)
        }
        let record = DeviceReceiptRecord(opaqueValue: opaque, createdAt: issuedAt, inAppPurchases: listed.map { Self.inAppPurchase($0.payload) })
        receipts[device.description] = record
        state.receipts = receipts
        try save()
        return record
    }

    /// The customer's purchase of the app as StoreKit 2's `AppTransaction.shared` hands it over,
    /// signed now: the same first version and date as the app receipt.
    /// - Parameter deviceVerificationID: the device that asks (its `deviceVerification`), or `nil`.
    public func appTransaction(boundTo deviceVerificationID: UUID? = nil) throws(SimulatedAppStoreError) -> String {
        if state.appPurchaseDate == nil {
            state.appPurchaseDate = min(now, state.transactions.compactMap(\.payload.purchaseDate).map(Self.wholeSeconds).min() ?? now)
            try save()
        }
        var payload = AppTransactionPayload()
        payload.receiptType = configuration.environment
        payload.appAppleID = configuration.appAppleID
        payload.bundleID = configuration.bundleID
        payload.applicationVersion = configuration.bundleVersion
        payload.receiptCreationDate = now
        payload.requestDate = now
        payload.originalPurchaseDate = state.appPurchaseDate
        // The sandbox writes 1.0 whatever the app's version, as in the receipt.
        payload.originalApplicationVersion = configuration.environment == .production ? configuration.bundleVersion : "1.0"
        payload.appTransactionID = state.appTransactionID
        payload.originalPlatform = .iOS
        if let deviceVerificationID { Self.bind(&payload.deviceVerification, &payload.deviceVerificationNonce, to: deviceVerificationID) }
        return try sign(payload)
    }

    func signedReceipt(_ record: DeviceReceiptRecord, device: DeviceIdentifier) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedReceipt {
        let production = configuration.environment == .production
        var receipt = AppReceipt()
        receipt.environment = configuration.environment
        receipt.rawEnvironment = ReceiptBuilder.rawEnvironment(configuration.environment)
        receipt.appAppleID = production ? configuration.appAppleID : nil
        receipt.bundleID = configuration.bundleID
        receipt.applicationVersion = configuration.bundleVersion
        receipt.receiptCreationDate = record.createdAt
        receipt.originalPurchaseDate = state.appPurchaseDate
        // The sandbox writes 1.0 whatever the app's version.
        receipt.originalApplicationVersion = production ? configuration.bundleVersion : "1.0"
        receipt.inAppPurchases = record.inAppPurchases
        var builder = ReceiptBuilder(receipt)
        builder.bind(to: device, opaqueValue: Array(record.opaqueValue))
        let signer = try receiptAuthority()
        do {
            return SimulatedAppStore.SignedReceipt(bytes: try signer.sign(builder), payload: builder.written, device: device)
        } catch {
            throw SimulatedAppStoreError(.invalidState, "cannot sign the receipt: \(error)")
        }
    }

    /// A transaction as a receipt lists it (type 17), dates in whole seconds as receipts write them.
    static func inAppPurchase(_ payload: TransactionPayload) -> InAppPurchaseReceipt {
        var item = InAppPurchaseReceipt()
        item.quantity = payload.quantity ?? 1
        item.productID = payload.productID
        item.transactionID = payload.transactionID
        item.purchaseDate = payload.purchaseDate.map(wholeSeconds)
        item.originalTransactionID = payload.originalTransactionID
        item.originalPurchaseDate = payload.originalPurchaseDate.map(wholeSeconds)
        item.productType = payload.type
        item.rawProductType = payload.type.flatMap(ReceiptBuilder.rawProductType)
        item.expiresDate = payload.expiresDate.map(wholeSeconds)
        item.webOrderLineItemID = payload.webOrderLineItemID.flatMap { Int64($0) }
        item.cancellationDate = payload.revocationDate.map(wholeSeconds)
        if payload.type == .autoRenewableSubscription {
            item.isTrialPeriod = payload.offerDiscountType == .freeTrial
            item.isInIntroOfferPeriod = payload.offerType == .introductory
        }
        if payload.offerType == .promotional { item.promotionalOfferID = payload.offerIdentifier }
        return item
    }

    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
