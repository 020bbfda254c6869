public import Foundation

/// The device identifier a receipt's hash is computed with: `identifierForVendor` as its 16
/// UUID bytes on iOS, tvOS, visionOS and watchOS; the MAC address of the built-in network
/// interface (6 bytes) on macOS.
///
/// ```swift
/// let device = DeviceIdentifier(uuid: UIDevice.current.identifierForVendor!)
/// await verifier.verify(receipt, deviceIdentifier: device)
/// ```
public struct DeviceIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The bytes that enter the hash.
    public let bytes: [UInt8]

    /// An identifier from its bytes.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// An `identifierForVendor`, as its 16 bytes in UUID order.
    public init(uuid: UUID) {
        let value = uuid.uuid
        bytes = [
            value.0, value.1, value.2, value.3, value.4, value.5, value.6, value.7,
            value.8, value.9, value.10, value.11, value.12, value.13, value.14, value.15,
        ]
    }

    /// An identifier written in hexadecimal, with or without `-` or `:` between digits:
    /// a UUID string (`E621E1F8-C36C-495A-93FC-0C247A3E6E5F`), a MAC address
    /// (`00:1b:63:84:45:e6`) or plain hex. `nil` when it is empty or not hexadecimal.
    public init?(hex: String) {
        var digits: [UInt8] = []
        for character in hex.utf8 where character != UInt8(ascii: "-") && character != UInt8(ascii: ":") {
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(character - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digits.append(character - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digits.append(character - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        guard !digits.isEmpty, digits.count.isMultiple(of: 2) else { return nil }
        bytes = stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    /// The bytes in lowercase hexadecimal.
    public var description: String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
