import Crypto
public import Foundation
import TallyCore

/// StoreKit 2's binding of signed data to one device: a transaction, renewal info or app
/// transaction that StoreKit hands an app carries `deviceVerification`, the SHA-384 of its
/// `deviceVerificationNonce` followed by the device's `AppStore.deviceVerificationID` (both as
/// lowercase UUID strings), in base64. A JWS copied from another device does not match.
///
/// The App Store Server API and notifications carry no such value: it is checked on the device only.
///
/// ```swift
/// let mine = DeviceVerification.matches(payload.deviceVerification, nonce: payload.deviceVerificationNonce,
///                                       deviceVerificationID: AppStore.deviceVerificationID!)
/// ```
public enum DeviceVerification: Sendable {
    /// The value StoreKit puts in `deviceVerification` for `nonce` on the device `deviceVerificationID`.
    /// - Parameters:
    ///   - nonce: the `deviceVerificationNonce`, a UUID string in any case.
    ///   - deviceVerificationID: the device's `AppStore.deviceVerificationID`.
    /// - Returns: the base64 of the SHA-384 digest.
    public static func value(nonce: String, deviceVerificationID: UUID) -> String {
        let input = nonce.lowercased() + deviceVerificationID.uuidString.lowercased()
        return Data(SHA384.hash(data: Data(input.utf8))).base64EncodedString()
    }

    /// Whether signed data's `deviceVerification` was made for the device `deviceVerificationID`;
    /// `false` when either value is missing.
    /// - Parameters:
    ///   - verification: the payload's `deviceVerification`.
    ///   - nonce: the payload's `deviceVerificationNonce`.
    ///   - deviceVerificationID: the device's `AppStore.deviceVerificationID`.
    public static func matches(_ verification: String?, nonce: String?, deviceVerificationID: UUID) -> Bool {
        guard let verification, let nonce, let expected = Data(base64Encoded: value(nonce: nonce, deviceVerificationID: deviceVerificationID)),
            let given = Data(base64Encoded: verification)
        else { return false }
        return given == expected
    }
}
