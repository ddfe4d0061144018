import Foundation
import SandboxTesting
import Testing

/// `api/list` a page at a time over real HTTP against a real `sandbox share`: `limit`, the `next`
/// cursor, and the refusals of a hostile cursor or limit.
@Suite struct WebListingTests {
    struct Listing: Decodable {
        struct Item: Decodable { let name: String }
        let items: [Item]
        let next: String?
    }

    @Test func pagesFollowTheCursorAndAHostileCursorIsRefused() async throws {
        try await ShareServerProcess.with { server in
            for name in ["c.txt", "a.txt", "b.txt", "Folder/inside.txt", ".hidden", "Inbox/delivered.txt"] {
                try server.plant(name)
            }
            let (cookie, _, base) = try await WebPageTests().login(server)
            func list(_ query: String) async throws -> (status: Int, text: String) {
                let response = try await server.send(
                    "GET", "\(base)api/list?path=%2F\(query)", headers: [("Cookie", cookie)], credentials: .none)
                return (response.status, response.text)
            }
            // Pages of two, joined by their cursors; the Inbox (hidden by the container's policy)
            // takes a place in the first page but is never sent: that page holds one item.
            var names: [[String]] = []
            var query = "&limit=2"
            while true {
                let answer = try await list(query)
                #expect(answer.status == 200, "\(answer)")
                let page = try JSONDecoder().decode(Listing.self, from: Data(answer.text.utf8))
                names.append(page.items.map(\.name))
                guard let next = page.next else { break }
                query = "&limit=2&after=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                if names.count > 10 { break }
            }
            #expect(names == [["Folder"], ["a.txt", "b.txt"], ["c.txt"]], "\(names)")
            // Without a limit: the whole of a small folder, as before (never the Inbox nor a dot-file).
            let whole = try JSONDecoder().decode(Listing.self, from: Data(try await list("").text.utf8))
            #expect(whole.items.map(\.name) == ["Folder", "a.txt", "b.txt", "c.txt"] && whole.next == nil)
            // A cursor is a name compared, never a path: a path, `..` or garbage is a 400 that says so.
            for hostile in ["f..%2F..%2Fetc%2Fpasswd", "d..", "x", "f%00a", "", "f%2F"] {
                let refused = try await list("&after=\(hostile)")
                #expect(refused.status == 400 && refused.text.contains("cursor"), "\(hostile): \(refused)")
            }
            for limit in ["0", "-1", "abc", "99999999999999999999"] {
                let refused = try await list("&limit=\(limit)")
                #expect(refused.status == 400 && refused.text.contains("limit"), "\(limit): \(refused)")
            }
        }
    }
}
