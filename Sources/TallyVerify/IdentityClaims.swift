import TallyCore

/// What a payload says about which app and environment it is for, and which of those
/// claims its kind carries (renewal info names no bundle, transactions no App Apple ID).
struct IdentityClaims {
    var carriesBundleID: Bool
    var bundleID: String?
    var carriesAppAppleID: Bool
    var appAppleID: Int64?
    var environment: AppStoreEnvironment?
}

protocol IdentityClaiming: AppStoreSignedPayload {
    var identityClaims: IdentityClaims { get }
    /// The identifier fields whose shape is checked (see ``IdentifierRule``).
    var signedIdentifiers: [SignedIdentifier] { get }
}

extension TransactionPayload: IdentityClaiming {
    var identityClaims: IdentityClaims {
        IdentityClaims(carriesBundleID: true, bundleID: bundleID, carriesAppAppleID: false, appAppleID: nil, environment: environment)
    }
}

extension RenewalInfoPayload: IdentityClaiming {
    var identityClaims: IdentityClaims {
        IdentityClaims(carriesBundleID: false, bundleID: nil, carriesAppAppleID: false, appAppleID: nil, environment: environment)
    }
}

extension NotificationPayload: IdentityClaiming {
    var identityClaims: IdentityClaims {
        let identity = appIdentity
        return IdentityClaims(
            carriesBundleID: true, bundleID: identity.bundleID,
            carriesAppAppleID: true, appAppleID: identity.appAppleID,
            environment: identity.environment)
    }
}

extension AppTransactionPayload: IdentityClaiming {
    var identityClaims: IdentityClaims {
        IdentityClaims(carriesBundleID: true, bundleID: bundleID, carriesAppAppleID: true, appAppleID: appAppleID, environment: receiptType)
    }
}

extension RealtimeRequestPayload: IdentityClaiming {
    var identityClaims: IdentityClaims {
        IdentityClaims(carriesBundleID: false, bundleID: nil, carriesAppAppleID: true, appAppleID: appAppleID, environment: environment)
    }
}
