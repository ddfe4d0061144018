import Testing

@testable import SandboxShare

/// What a share announces, without a daemon: the types by scheme, the TXT record, the interface
/// by bound address, the name's bounds.
@Suite struct AnnouncedServicesTests {
    let credentials = ShareCredentials(user: "sandbox", password: "k7m2-p9qx-3hwf")
    let interfaces: [AnnouncedServices.InterfaceAddress] = [
        .init(index: 1, address: "127.0.0.1"), .init(index: 2, address: "192.168.1.20"),
        .init(index: 3, address: "fe80::1"),
    ]

    @Test func tlsAnnouncesTheSecureTypesAndTheTextNeverHoldsTheCode() throws {
        var configuration = ShareConfiguration(host: "0.0.0.0", credentials: credentials)
        let plain = AnnouncedServices(name: "n", configuration: configuration, port: 8080, interfaces: interfaces)
        #expect(plain.types == ["_webdav._tcp", "_http._tcp"])
        configuration.tls = try TLSFixture.identity()
        let secure = AnnouncedServices(name: "n", configuration: configuration, port: 8443, interfaces: interfaces)
        #expect(secure.types == ["_webdavs._tcp", "_https._tcp"])
        #expect(secure.port == 8443)
        #expect(secure.text == ["path=/", "u=sandbox"])
        #expect(!secure.text.contains { $0.contains(credentials.password) })
    }

    @Test func theRecordsGoWhereTheBoundAddressIs() {
        #expect(
            AnnouncedServices.scope(host: "0.0.0.0", interfaces: interfaces) == .init(interface: nil, family: .ipv4))
        #expect(AnnouncedServices.scope(host: "::", interfaces: interfaces) == .init(interface: nil, family: .ipv6))
        #expect(
            AnnouncedServices.scope(host: "192.168.1.20", interfaces: interfaces) == .init(interface: 2, family: .ipv4))
        #expect(
            AnnouncedServices.scope(host: "127.0.0.1", interfaces: interfaces) == .init(interface: 1, family: .ipv4))
        #expect(AnnouncedServices.scope(host: "FE80::1", interfaces: interfaces) == .init(interface: 3, family: .ipv6))
    }

    @Test func theNameIsOneDNSLabelWithoutControlCharacters() {
        #expect(ShareAnnouncement.name(app: "Notes", host: "studio.example.com") == "Notes on studio")
        let long = ShareAnnouncement.name(app: String(repeating: "é", count: 40), host: "studio")
        #expect(long.utf8.count <= 63)
        #expect(long == String(repeating: "é", count: 31))
        #expect(ShareAnnouncement(name: "Notes\u{1B}[2J\n on studio").name == "Notes[2J on studio")
    }
}
