public import Foundation
public import TallyCore

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension SimulatedAppStore {
    // MARK: - Starting and changing a subscription

    func subscribe(
        _ product: StoreKitConfiguration.Product, appAccountToken: String?, promotionalOfferID: String?
    ) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        guard let info = product.subscription else {
            throw SimulatedAppStoreError(.invalidState, "\(product.id) is not an auto-renewable subscription")
        }
        let inGroup = state.subscriptions.firstIndex { $0.groupID == info.groupID }
        if let index = inGroup, [.active, .billingGracePeriod, .billingRetry].contains(state.subscriptions[index].status) {
            return try change(subscriptionAt: index, to: product, promotionalOfferID: promotionalOfferID)
        }

        // A new subscriber, or one coming back to the group (same original transaction, as Apple keeps it).
        let originalID = inGroup.map { state.subscriptions[$0].originalTransactionID }
        let transactionID = nextTransactionID()
        var payload = basePayload(product, transactionID: transactionID, originalTransactionID: originalID ?? transactionID, appAccountToken: appAccountToken)
        payload.transactionReason = .purchase
        payload.subscriptionGroupIdentifier = info.groupID
        payload.webOrderLineItemID = nextWebOrderLineItemID()

        var offer: RunningOffer?
        if let offerID = promotionalOfferID, let promotional = info.promotionalOffers.first(where: { $0.id == offerID }) {
            offer = running(promotional, type: .promotional, product: product)
        } else if inGroup == nil, let introductory = info.introductoryOffer {
            offer = running(introductory, type: .introductory, product: product)
        }
        let expires = try periodEnd(for: product, offer: offer, from: now)
        apply(offer, to: &payload, product: product)
        payload.expiresDate = expires
        state.transactions.append(TransactionRecord(payload: payload))

        // Apple ignores short lapses: 60 days in production, 10 minutes in the sandbox.
        let tolerance: TimeInterval = configuration.environment == .production ? 60 * 86_400 : 600
        var recentStart = now
        if let index = inGroup, now.timeIntervalSince(state.subscriptions[index].expiresDate) < tolerance {
            recentStart = state.subscriptions[index].recentSubscriptionStartDate
        }
        let record = SubscriptionRecord(
            originalTransactionID: payload.originalTransactionID!, groupID: info.groupID, productID: product.id,
            autoRenewProductID: product.id, autoRenew: true, expiresDate: expires, status: .active,
            latestTransactionID: transactionID, appAccountToken: appAccountToken, recentSubscriptionStartDate: recentStart,
            offer: offer.flatMap { $0.periodsLeft > 0 ? $0 : nil })
        if let index = inGroup {
            state.subscriptions[index] = record
        } else {
            state.subscriptions.append(record)
        }
        let transaction = try signed(state.transactions[state.transactions.count - 1])
        try notify(
            .subscribed, subtype: inGroup == nil ? .initialBuy : .resubscribe, transaction: transaction.payload, subscription: record.originalTransactionID)
        return transaction
    }

    /// Buying a product of the group the customer already subscribes to.
    private func change(
        subscriptionAt index: Int, to product: StoreKitConfiguration.Product, promotionalOfferID: String?
    ) throws(SimulatedAppStoreError) -> SimulatedAppStore.SignedTransaction {
        var subscription = state.subscriptions[index]
        guard let current = self.product(subscription.productID), let currentLevel = current.subscription?.level,
            let newInfo = product.subscription
        else {
            throw SimulatedAppStoreError(.invalidState, "subscription \(subscription.originalTransactionID) has no known product")
        }
        if product.id == subscription.productID {
            if let offerID = promotionalOfferID, let promotional = newInfo.promotionalOffers.first(where: { $0.id == offerID }) {
                // The offer starts at the next renewal.
                var offer = running(promotional, type: .promotional, product: product)
                offer.periodsLeft += 1
                subscription.offer = offer
                state.subscriptions[index] = subscription
                let transaction = try signedTransaction(subscription.latestTransactionID)
                try notify(.offerRedeemed, subtype: nil, transaction: transaction.payload, subscription: subscription.originalTransactionID)
                return transaction
            }
            if !subscription.autoRenew {
                // Buying the current product again turns renewal back on.
                subscription.autoRenew = true
                subscription.expirationIntent = nil
                state.subscriptions[index] = subscription
                let transaction = try signedTransaction(subscription.latestTransactionID)
                try notify(
                    .didChangeRenewalStatus, subtype: .autoRenewEnabled, transaction: transaction.payload, subscription: subscription.originalTransactionID)
                return transaction
            }
            if subscription.autoRenewProductID != product.id {
                // Buying the current product again cancels a pending downgrade.
                subscription.autoRenewProductID = product.id
                state.subscriptions[index] = subscription
                let transaction = try signedTransaction(subscription.latestTransactionID)
                try notify(.didChangeRenewalPref, subtype: nil, transaction: transaction.payload, subscription: subscription.originalTransactionID)
                return transaction
            }
            return try signedTransaction(subscription.latestTransactionID)
        }

        let immediate = newInfo.level < currentLevel || (newInfo.level == currentLevel && newInfo.period == current.subscription?.period)
        // Choosing a plan is choosing to renew.
        subscription.autoRenew = true
        subscription.expirationIntent = nil
        guard immediate else {
            // A downgrade (or a crossgrade to another duration) takes effect at the next renewal.
            subscription.autoRenewProductID = product.id
            state.subscriptions[index] = subscription
            let transaction = try signedTransaction(subscription.latestTransactionID)
            try notify(.didChangeRenewalPref, subtype: .downgrade, transaction: transaction.payload, subscription: subscription.originalTransactionID)
            return transaction
        }

        // An upgrade starts now; the old period is marked upgraded.
        if let old = state.transactionIndex(subscription.latestTransactionID) {
            state.transactions[old].payload.isUpgraded = true
        }
        let transactionID = nextTransactionID()
        var payload = basePayload(
            product, transactionID: transactionID, originalTransactionID: subscription.originalTransactionID, appAccountToken: subscription.appAccountToken)
        payload.transactionReason = .purchase
        payload.subscriptionGroupIdentifier = newInfo.groupID
        payload.webOrderLineItemID = nextWebOrderLineItemID()
        let expires = try periodEnd(for: product, offer: nil, from: now)
        payload.expiresDate = expires
        state.transactions.append(TransactionRecord(payload: payload))
        subscription.productID = product.id
        subscription.autoRenewProductID = product.id
        subscription.expiresDate = expires
        subscription.latestTransactionID = transactionID
        subscription.status = .active
        subscription.offer = nil
        state.subscriptions[index] = subscription
        let transaction = try signed(state.transactions[state.transactions.count - 1])
        try notify(.didChangeRenewalPref, subtype: .upgrade, transaction: transaction.payload, subscription: subscription.originalTransactionID)
        return transaction
    }

    func running(_ offer: SubscriptionOffer, type: OfferType, product: StoreKitConfiguration.Product) -> RunningOffer {
        let discount: OfferDiscountType =
            switch offer.paymentMode {
            case .freeTrial: .freeTrial
            case .payUpFront: .payUpFront
            default: .payAsYouGo
            }
        // Free trials and pay-up-front offers are one period of offer.period × numberOfPeriods;
        // pay-as-you-go offers discount that many periods of offer.period. `offerPeriod` names
        // the offer's whole duration either way (2 × P1M is P2M).
        let periodsLeft = discount == .payAsYouGo ? offer.numberOfPeriods - 1 : 0
        let whole = Self.multiplied(offer.period, offer.numberOfPeriods).iso8601
        return RunningOffer(
            type: type, identifier: offer.id, discountType: discount, period: whole,
            periodLength: discount == .payAsYouGo ? offer.period.iso8601 : whole,
            price: offer.price, periodsLeft: periodsLeft)
    }

    func apply(_ offer: RunningOffer?, to payload: inout TransactionPayload, product: StoreKitConfiguration.Product) {
        guard let offer else { return }
        payload.offerType = offer.type
        payload.offerIdentifier = offer.identifier
        payload.offerDiscountType = offer.discountType
        payload.offerPeriod = offer.period
        payload.price = offer.price
    }

    static func multiplied(_ period: SubscriptionPeriod, _ times: Int) -> SubscriptionPeriod {
        var result = period
        result.value *= max(1, times)
        return result
    }

    /// When a period that starts at `start` ends, under the store's time rate.
    func periodEnd(for product: StoreKitConfiguration.Product, offer: RunningOffer?, from start: Date) throws(SimulatedAppStoreError) -> Date {
        guard let ordinary = product.subscription?.period else {
            throw SimulatedAppStoreError(.invalidState, "\(product.id) has no subscription period")
        }
        var period = ordinary
        if let offer, let offerPeriod = SubscriptionPeriod(iso8601: offer.periodLength ?? offer.period) {
            period = offerPeriod
        }
        return end(of: period, from: start)
    }

    func end(of period: SubscriptionPeriod, from start: Date) -> Date {
        if let interval = timeRate.renewalInterval(for: period) {
            return start.addingTimeInterval(Self.seconds(interval))
        }
        return period.advance(start)
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }

    // MARK: - Controls, as SKTestSession's

    /// Turns auto-renew on or off, as the customer does in Settings.
    /// - Throws: ``SimulatedAppStoreError`` `notFound` for an unknown subscription.
    public func setAutoRenew(originalTransactionID: String, enabled: Bool) throws(SimulatedAppStoreError) {
        let index = try subscriptionIndex(originalTransactionID)
        guard state.subscriptions[index].autoRenew != enabled else { return }
        state.subscriptions[index].autoRenew = enabled
        state.subscriptions[index].expirationIntent = enabled ? nil : .customerCancelled
        let transaction = try signedTransaction(state.subscriptions[index].latestTransactionID)
        try notify(
            .didChangeRenewalStatus, subtype: enabled ? .autoRenewEnabled : .autoRenewDisabled,
            transaction: transaction.payload, subscription: originalTransactionID)
        try save()
    }

    /// Makes the subscription's next renewal fail with a billing issue.
    /// - Throws: ``SimulatedAppStoreError`` `notFound` for an unknown subscription.
    public func failNextRenewal(originalTransactionID: String) throws(SimulatedAppStoreError) {
        let index = try subscriptionIndex(originalTransactionID)
        state.subscriptions[index].failNextRenewal = true
        try save()
    }

    /// Resolves a billing issue: the subscription renews now (`DID_RENEW`, `BILLING_RECOVERY`).
    /// - Throws: ``SimulatedAppStoreError`` `invalidState` when the subscription is not in billing retry or grace.
    public func resolveBillingIssue(originalTransactionID: String) throws(SimulatedAppStoreError) {
        let index = try subscriptionIndex(originalTransactionID)
        let subscription = state.subscriptions[index]
        guard [.billingRetry, .billingGracePeriod].contains(subscription.status) else {
            throw SimulatedAppStoreError(.invalidState, "subscription \(originalTransactionID) has no billing issue")
        }
        // Recovered within grace, the paid days run on from the old expiry; after it, from now.
        let start = subscription.status == .billingGracePeriod ? subscription.expiresDate : now
        try renew(at: index, at: start, subtype: .billingRecovery)
        try save()
    }

    /// Renews the subscription now, ahead of its expiry, as `forceRenewalOfSubscription`.
    /// - Throws: ``SimulatedAppStoreError`` `invalidState` when it is not active.
    public func forceRenewal(originalTransactionID: String) throws(SimulatedAppStoreError) {
        let index = try subscriptionIndex(originalTransactionID)
        guard state.subscriptions[index].status == .active else {
            throw SimulatedAppStoreError(.invalidState, "subscription \(originalTransactionID) is not active")
        }
        try renew(at: index, at: now, subtype: nil)
        try save()
    }

    /// Ends the subscription now, as `expireSubscription` (`EXPIRED`, `VOLUNTARY`).
    /// - Throws: ``SimulatedAppStoreError`` `invalidState` when it already ended.
    public func expire(originalTransactionID: String) throws(SimulatedAppStoreError) {
        let index = try subscriptionIndex(originalTransactionID)
        guard state.subscriptions[index].status != .expired, state.subscriptions[index].status != .revoked else {
            throw SimulatedAppStoreError(.invalidState, "subscription \(originalTransactionID) already ended")
        }
        let moment = now
        if let latest = state.transactionIndex(state.subscriptions[index].latestTransactionID),
            (state.transactions[latest].payload.expiresDate ?? moment) > moment
        {
            state.transactions[latest].payload.expiresDate = moment
        }
        state.subscriptions[index].expiresDate = moment
        try end(at: index, intent: .customerCancelled, subtype: .voluntary)
        try save()
    }

    func subscriptionIndex(_ originalTransactionID: String) throws(SimulatedAppStoreError) -> Int {
        guard let index = state.subscriptionIndex(originalTransactionID: originalTransactionID) else {
            throw SimulatedAppStoreError(.notFound, "no subscription with original transaction \(originalTransactionID)")
        }
        return index
    }

    // MARK: - Time

    /// Moves the store's clock forward, processing every renewal, expiry, grace period end and
    /// notification retry that falls due on the way, each at its own moment.
    /// - Throws: ``SimulatedAppStoreError`` when the state cannot be saved.
    public func advance(by duration: Duration) async throws(SimulatedAppStoreError) {
        let target = now.addingTimeInterval(Self.seconds(duration))
        try await run(until: target)
        state.timeOffset += target.timeIntervalSince(now)
        try save()
    }

    /// Processes what is due now and delivers due notifications. `tally appstore serve` calls
    /// it a few times a second; tests call it after a purchase to deliver its notification.
    /// - Throws: ``SimulatedAppStoreError`` when the state cannot be saved.
    public func tick() async throws(SimulatedAppStoreError) {
        try await run(until: now)
    }

    private func run(until target: Date) async throws(SimulatedAppStoreError) {
        while true {
            let renewal = nextSubscriptionEvent()
            // Deliveries are events only when this pass can make them: not while another pass
            // is posting (it re-reads what is due), and not without a URL to post to.
            let delivery = delivering || configuration.notificationURL == nil ? nil : nextDeliveryDate()
            let next = [renewal?.date, delivery].compactMap { $0 }.min()
            guard let next, next <= target else { break }
            if next > now { state.timeOffset += next.timeIntervalSince(now) }
            if let renewal, renewal.date == next {
                try processSubscriptionEvent(at: renewal.index)
            } else {
                let before = attemptsMade
                await deliverDueNotifications()
                if attemptsMade == before { break }  // nothing was attempted: never spin
            }
        }
        // One write per call, not per event: a long advance stays linear in its events.
        try save()
    }

    private func nextSubscriptionEvent() -> (index: Int, date: Date)? {
        var best: (Int, Date)?
        for (index, subscription) in state.subscriptions.enumerated() {
            let date: Date? =
                switch subscription.status {
                case .active: subscription.expiresDate
                case .billingGracePeriod: subscription.gracePeriodExpiresDate
                case .billingRetry: subscription.billingRetryEndsDate
                default: nil
                }
            if let date, best == nil || date < best!.1 { best = (index, date) }
        }
        return best
    }

    private func processSubscriptionEvent(at index: Int) throws(SimulatedAppStoreError) {
        let subscription = state.subscriptions[index]
        switch subscription.status {
        case .active:
            let moment = subscription.expiresDate
            if !subscription.autoRenew {
                try end(at: index, intent: .customerCancelled, subtype: .voluntary)
            } else if subscription.failNextRenewal || state.settings.billingRetryOnRenewal {
                try enterBillingRetry(at: index, at: moment)
            } else {
                try renew(at: index, at: moment, subtype: nil)
            }
        case .billingGracePeriod:
            state.subscriptions[index].status = .billingRetry
            state.subscriptions[index].gracePeriodExpiresDate = nil
            let transaction = try signedTransaction(subscription.latestTransactionID)
            try notify(.gracePeriodExpired, subtype: nil, transaction: transaction.payload, subscription: subscription.originalTransactionID)
        case .billingRetry:
            try end(at: index, intent: .billingError, subtype: .billingRetry)
        default:
            break
        }
    }

    /// A new paid period: a RENEWAL transaction, `DID_RENEW`, published to updates.
    func renew(at index: Int, at moment: Date, subtype: NotificationSubtype?) throws(SimulatedAppStoreError) {
        var subscription = state.subscriptions[index]
        guard let product = self.product(subscription.autoRenewProductID) else {
            try end(at: index, intent: .productNotAvailable, subtype: .productNotForSale)
            return
        }
        var offer = subscription.offer
        if let running = offer {
            offer = running.periodsLeft > 0 ? running : nil
        }
        let transactionID = nextTransactionID()
        var payload = basePayload(
            product, transactionID: transactionID, originalTransactionID: subscription.originalTransactionID, appAccountToken: subscription.appAccountToken)
        payload.purchaseDate = moment
        payload.transactionReason = .renewal
        payload.subscriptionGroupIdentifier = subscription.groupID
        payload.webOrderLineItemID = nextWebOrderLineItemID()
        var applied: RunningOffer?
        if var running = offer {
            running.periodsLeft -= 1
            apply(running, to: &payload, product: product)
            subscription.offer = running.periodsLeft > 0 ? running : nil
            applied = running
        } else {
            subscription.offer = nil
        }
        let expires = try periodEnd(for: product, offer: applied, from: moment)
        payload.expiresDate = expires
        state.transactions.append(TransactionRecord(payload: payload))
        subscription.productID = product.id
        subscription.expiresDate = expires
        subscription.latestTransactionID = transactionID
        subscription.status = .active
        subscription.gracePeriodExpiresDate = nil
        subscription.billingRetryEndsDate = nil
        subscription.expirationIntent = nil
        subscription.failNextRenewal = false
        state.subscriptions[index] = subscription
        let transaction = try signed(state.transactions[state.transactions.count - 1])
        try notify(.didRenew, subtype: subtype, transaction: transaction.payload, subscription: subscription.originalTransactionID)
        publish(transaction)
    }

    private func enterBillingRetry(at index: Int, at moment: Date) throws(SimulatedAppStoreError) {
        var subscription = state.subscriptions[index]
        let period = product(subscription.productID)?.subscription?.period ?? SubscriptionPeriod(iso8601: "P1M")!
        let windows = billingWindows(for: period)
        subscription.billingRetryEndsDate = moment.addingTimeInterval(windows.retry)
        subscription.failNextRenewal = false
        subscription.expirationIntent = .billingError
        if state.settings.billingGracePeriodEnabled {
            subscription.status = .billingGracePeriod
            subscription.gracePeriodExpiresDate = moment.addingTimeInterval(windows.grace)
        } else {
            subscription.status = .billingRetry
        }
        state.subscriptions[index] = subscription
        let transaction = try signedTransaction(subscription.latestTransactionID)
        try notify(
            .didFailToRenew, subtype: state.settings.billingGracePeriodEnabled ? .gracePeriod : nil,
            transaction: transaction.payload, subscription: subscription.originalTransactionID)
    }

    /// Grace and billing retry windows, in seconds: Apple's tables for the time rate, or the
    /// real-time calendar values.
    func billingWindows(for period: SubscriptionPeriod) -> (grace: TimeInterval, retry: TimeInterval) {
        if let windows = timeRate.billingWindows(for: period) {
            return (Self.seconds(windows.gracePeriod), Self.seconds(windows.billingRetryPeriod))
        }
        return (TimeInterval(TimeRate.realTimeGraceDays(for: period) * 86_400), TimeInterval(TimeRate.realTimeBillingRetryDays * 86_400))
    }

    /// The subscription ends: `EXPIRED` with the subtype, no more renewals.
    func end(at index: Int, intent: ExpirationIntent, subtype: NotificationSubtype) throws(SimulatedAppStoreError) {
        state.subscriptions[index].status = .expired
        state.subscriptions[index].expirationIntent = intent
        state.subscriptions[index].autoRenew = false
        state.subscriptions[index].gracePeriodExpiresDate = nil
        state.subscriptions[index].billingRetryEndsDate = nil
        let subscription = state.subscriptions[index]
        let transaction = try signedTransaction(subscription.latestTransactionID)
        try notify(.expired, subtype: subtype, transaction: transaction.payload, subscription: subscription.originalTransactionID)
    }

    // MARK: - Renewal info and status

    /// Whether the customer may still take a group's introductory offer, as
    /// `Product.SubscriptionInfo.isEligibleForIntroOffer`: only if they never subscribed in it.
    public func isEligibleForIntroductoryOffer(groupID: String) -> Bool {
        !state.subscriptions.contains { $0.groupID == groupID }
    }

    /// The subscription's renewal info, signed now.
    /// - Throws: ``SimulatedAppStoreError`` `notFound` for an unknown subscription.
    public func renewalInfo(originalTransactionID: String) throws(SimulatedAppStoreError) -> String {
        try sign(renewalPayload(state.subscriptions[subscriptionIndex(originalTransactionID)]))
    }

    func renewalPayload(_ subscription: SubscriptionRecord) -> RenewalInfoPayload {
        var payload = RenewalInfoPayload()
        payload.originalTransactionID = subscription.originalTransactionID
        payload.productID = subscription.productID
        payload.autoRenewProductID = subscription.autoRenewProductID
        payload.autoRenewStatus = subscription.autoRenew ? .on : .off
        payload.isInBillingRetryPeriod = subscription.status == .billingRetry || subscription.status == .billingGracePeriod
        payload.gracePeriodExpiresDate = subscription.gracePeriodExpiresDate
        payload.expirationIntent = subscription.status == .expired || subscription.status == .billingRetry ? subscription.expirationIntent : nil
        payload.signedDate = now
        payload.environment = configuration.environment
        payload.recentSubscriptionStartDate = subscription.recentSubscriptionStartDate
        // Present even when the subscription will not renew, as Apple's is.
        payload.renewalDate = subscription.expiresDate
        payload.currency = currency
        payload.renewalPrice = subscription.offer?.price ?? product(subscription.autoRenewProductID)?.price
        payload.appAccountToken = subscription.appAccountToken
        payload.appTransactionID = state.appTransactionID
        if let offer = subscription.offer {
            payload.offerType = offer.type
            payload.offerIdentifier = offer.identifier
            payload.offerDiscountType = offer.discountType
            payload.offerPeriod = offer.period
        }
        return payload
    }

    /// The status of every subscription of the customer: status, latest transaction and renewal info, signed now.
    ///
    /// - Parameter deviceVerificationID: the device that asks, as StoreKit 2's
    ///   `AppStore.deviceVerificationID`: its transactions and renewal info then carry that
    ///   device's `deviceVerification`, as StoreKit hands them to an app; `nil` for none, as the
    ///   App Store Server API answers.
    public func subscriptionStatuses(
        boundTo deviceVerificationID: UUID? = nil
    ) throws(SimulatedAppStoreError) -> [(
        groupID: String, status: SubscriptionStatus, transaction: SimulatedAppStore.SignedTransaction, renewalInfo: String
    )] {
        var result: [(String, SubscriptionStatus, SimulatedAppStore.SignedTransaction, String)] = []
        for subscription in state.subscriptions {
            var renewal = renewalPayload(subscription)
            var transaction = try signedTransaction(subscription.latestTransactionID)
            if let deviceVerificationID {
                Self.bind(&renewal.deviceVerification, &renewal.deviceVerificationNonce, to: deviceVerificationID)
                transaction = try self.transaction(transaction, boundTo: deviceVerificationID)
            }
            result.append((subscription.groupID, subscription.status, transaction, try sign(renewal)))
        }
        return result
    }
}
