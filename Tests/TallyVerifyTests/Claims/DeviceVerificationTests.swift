import Foundation
import TallyVerify
import Testing

/// StoreKit 2's device binding: SHA-384 of the lowercase nonce followed by the lowercase
/// `deviceVerificationID`, in base64.
@Suite struct DeviceVerificationTests {
    static let device = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let nonce = "3b6c2b1a-3c53-4e0f-9d0e-8b1c7f6e5a41"
    // Computed with Python: base64(hashlib.sha384((nonce + device.lower()).encode("ascii")).digest())
    static let expected = "kiOG4Djx3gRNHxORivicWY097ng82N/yQl7VIB2bhlii/PDsMbj5mjL3rIITYgQU"

    @Test func theValueIsTheDigestOfTheLowercaseNonceAndDevice() {
        #expect(DeviceVerification.value(nonce: Self.nonce, deviceVerificationID: Self.device) == Self.expected)
        #expect(DeviceVerification.value(nonce: Self.nonce.uppercased(), deviceVerificationID: Self.device) == Self.expected)
    }

    @Test func onlyThisDevicesValueMatches() {
        #expect(DeviceVerification.matches(Self.expected, nonce: Self.nonce, deviceVerificationID: Self.device))
        #expect(!DeviceVerification.matches(Self.expected, nonce: Self.nonce, deviceVerificationID: UUID()), "another device")
        #expect(!DeviceVerification.matches(Self.expected, nonce: UUID().uuidString, deviceVerificationID: Self.device), "another nonce")
        #expect(!DeviceVerification.matches(nil, nonce: Self.nonce, deviceVerificationID: Self.device), "no value: not this device's")
        #expect(!DeviceVerification.matches(Self.expected, nonce: nil, deviceVerificationID: Self.device))
        #expect(!DeviceVerification.matches("not base64!", nonce: Self.nonce, deviceVerificationID: Self.device))
    }
}
