import ArgumentParser
import Crypto
import Foundation
import TallyVerify

/// `tally keys root|intermediate`: the keys that sign answers to `/v1/me…`.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make the keys that sign the server's answers, so that an app can tell them from forged ones.",
        discussion: """
            A root key pair, made once and kept offline: its public half goes into the app
            (ServerDelivery's ResponseVerifier). An intermediate key, made from the root for a few months at
            a time: tally serve --response-signing-key FILE signs with it. A new intermediate needs no app update.
            """,
        subcommands: [Root.self, Intermediate.self])

    struct RootFile: Codable {
        var privateKey: String
        var publicKey: String
    }

    struct Root: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a root key pair; prints the public key for the app.",
            discussion: "The file holds the private key: keep it offline, readable by you only.")

        @Option(help: "Where to write the root key pair (JSON); an existing file is not replaced.")
        var out: String

        func run() async throws {
            let key = Curve25519.Signing.PrivateKey()
            let file = RootFile(
                privateKey: key.rawRepresentation.base64EncodedString(), publicKey: key.publicKey.rawRepresentation.base64EncodedString())
            try KeysCommand.write(try JSONEncoder().encode(file), to: out)
            print(file.publicKey)
        }
    }

    struct Intermediate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an intermediate signing key from the root, valid for --days.",
            discussion: "Give the file to tally serve --response-signing-key (or TALLY_RESPONSE_SIGNING_KEY); make the next one before it expires.")

        @Option(help: "The root key pair file made by tally keys root.")
        var root: String

        @Option(help: "How many days the key signs (1–365).")
        var days = 90

        @Option(help: "Where to write the intermediate key (JSON).")
        var out: String

        func validate() throws {
            guard (1...365).contains(days) else { throw ValidationError("--days must be 1 to 365") }
        }

        func run() async throws {
            let file: RootFile
            do {
                file = try JSONDecoder().decode(RootFile.self, from: Data(contentsOf: URL(fileURLWithPath: root)))
            } catch {
                throw ValidationError("--root \(root): \(error)")
            }
            guard let raw = Data(base64Encoded: file.privateKey), let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
                throw ValidationError("--root \(root) holds no Ed25519 private key")
            }
            let intermediate = try ResponseSigningKey.issue(root: key, expiresAt: Date().addingTimeInterval(Double(days) * 86_400))
            try KeysCommand.write(try intermediate.fileData(), to: out)
            print("signing key valid until \(intermediate.expiresAt.formatted(.iso8601)) written to \(out)")
        }
    }

    /// Writes a secret to a new file, readable by its owner only from the moment it exists.
    static func write(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw ValidationError("cannot create \(path): \(String(cString: strerror(errno))) (an existing key file is never replaced)")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: data)
        try handle.close()
    }
}
