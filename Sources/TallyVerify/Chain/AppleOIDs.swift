public import SwiftASN1

/// The marker extensions Apple puts in App Store signing certificates.
public enum AppleOIDs: Sendable {
    /// On the intermediate (Apple Worldwide Developer Relations): `1.2.840.113635.100.6.2.1`.
    public static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    /// On the leaf (App Store receipt signing): `1.2.840.113635.100.6.11.1`.
    public static let receiptSigningMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
}
