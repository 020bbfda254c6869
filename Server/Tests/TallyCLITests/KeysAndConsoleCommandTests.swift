import Foundation
import TallyTestSupport
import TallyVerify
import Testing

/// `tally keys` makes the keys an app and a server need; `tally console operator` manages who
/// signs in to the console.
@Suite struct KeysAndConsoleCommandTests {
    static func folder() throws -> URL {
        try TemporaryFolder().url
    }

    @Test func aRootThenIntermediatesFromIt() async throws {
        let folder = try Self.folder()
        let root = folder.appendingPathComponent("root.json").path
        let made = try await CommandLine.run(["keys", "root", "--out", root])
        #expect(made.status == 0, "\(made.stderr)")
        let publicKey = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Data(base64Encoded: publicKey)?.count == 32)
        #expect(try FileManager.default.attributesOfItem(atPath: root)[.posixPermissions] as? Int == 0o600)
        #expect(try await CommandLine.run(["keys", "root", "--out", root]).status != 0, "a key file is never replaced")
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root))) as? [String: String]
        #expect(file?["publicKey"] == publicKey)

        // Two intermediates (a rotation): both sign answers the app's one root key accepts.
        let verifier = try ResponseVerifier(rootKeys: [publicKey])
        for name in ["first.json", "second.json"] {
            let path = folder.appendingPathComponent(name).path
            let issued = try await CommandLine.run(["keys", "intermediate", "--root", root, "--days", "30", "--out", path])
            #expect(issued.status == 0, "\(issued.stderr)")
            let key = try ResponseSigningKey(fileData: try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(abs(key.expiresAt.timeIntervalSinceNow - 30 * 86_400) < 120)
            let request = SignedRequest(nonce: Data(repeating: 1, count: 16), method: "GET", target: "/v1/me", body: Data(), userID: "u")
            let now = Int64(Date().timeIntervalSince1970)
            let signature = try key.sign(request, signedAt: now, body: Data("{}".utf8))
            #expect(verifier.check(signature: signature, signedAt: String(now), request: request, body: Data("{}".utf8)) == nil)
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        }
        #expect(
            try await CommandLine.run(["keys", "intermediate", "--root", root, "--days", "0", "--out", folder.appendingPathComponent("x").path]).status == 2)
    }

    @Test func operatorsAreAddedListedAndRemoved() async throws {
        let database = try Self.folder().appendingPathComponent("tally.sqlite").path
        let short = try await CommandLine.run(["console", "operator", "add", "--database", database, "--name", "alice"], stdin: "short\n")
        #expect(short.status != 0 && short.stderr.contains("at least 12"))
        let added = try await CommandLine.run(
            ["console", "operator", "add", "--database", database, "--name", "alice", "--role", "read-only"], stdin: "correct horse battery\n")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try await CommandLine.run(["console", "operator", "list", "--database", database]).stdout == "alice\tread-only\n")
        #expect(
            try await CommandLine.run(["console", "operator", "add", "--database", database, "--name", "a b"], stdin: "correct horse battery\n").status == 2)
        #expect(try await CommandLine.run(["console", "operator", "remove", "--database", database, "--name", "alice"]).status == 0)
        #expect(try await CommandLine.run(["console", "operator", "remove", "--database", database, "--name", "alice"]).status != 0)
        #expect(try await CommandLine.run(["console", "operator", "list", "--database", database]).stdout.isEmpty)
    }
}
