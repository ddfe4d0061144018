/// What a PROPFIND writes for each item, worked out once a request from its query: each
/// property's tag encoded and its live property resolved, so that an item of a listing costs no
/// name comparisons and no encoding of names (the rendering was a third of a large listing's CPU).
///
/// The responses are the ones the query always gave, byte for byte (`PropfindBytesTests`,
/// `PropfindOutputTests`).
struct PropfindPlan {
    /// One property the query writes: its name, its tag (`nil`: XML cannot spell it, so it is
    /// never written) and, for a live one, which.
    struct Entry {
        let name: PropertyName
        let tag: PropertyTag?
        let live: LiveProperty?

        init(_ name: PropertyName) {
            self.name = name
            tag = PropertyTag(name)
            live = LiveProperty(name)
        }
    }

    let query: PropfindRequest
    /// `allprop`: the live properties it writes, each once, in order; `propname`: the live
    /// properties; a name list: its names, in order.
    let entries: [Entry]
    /// Whether a file's `DAV:getcontentlength` is written (a protected file's plaintext length
    /// is then read).
    let asksContentLength: Bool
    /// Whether `oc:checksums` is asked for (files' checksums are then computed).
    let asksChecksums: Bool
    /// Whether items' dead properties are read: for `allprop` and `propname`, and for a name
    /// list with a name that is neither live nor `oc:checksums`. A live name never takes a dead
    /// value (an app can set any extended attribute on its own files), so the name lists
    /// Finder and rclone send cost one `statx` an item, not a `listxattrat` too.
    let readsDeadProperties: Bool

    init(_ query: PropfindRequest) {
        self.query = query
        switch query {
        case .allProperties(let include):
            // An included name that is not live is never written (the dead properties all are),
            // and a live one named twice is written once.
            var seen: [LiveProperty] = []
            entries = (LiveProperties.allPropNames + include).map(Entry.init).filter { entry in
                guard let live = entry.live, !seen.contains(live) else { return false }
                seen.append(live)
                return true
            }
            asksContentLength = true
            asksChecksums = false
            readsDeadProperties = true
        case .propertyNames:
            entries = LiveProperties.names.map(Entry.init).filter { $0.live != nil }
            asksContentLength = false
            asksChecksums = false
            readsDeadProperties = true
        case .properties(let names):
            entries = names.map(Entry.init)
            asksContentLength = names.contains(.dav("getcontentlength"))
            asksChecksums = names.contains(ContentChecksums.propertyName)
            readsDeadProperties = entries.contains { $0.live == nil && $0.name != ContentChecksums.propertyName }
        }
    }

    /// Writes the `DAV:response` of `item` into `multistatus`: its properties by status (200,
    /// then 404 for names asked for that it lacks; `dead` its dead properties).
    func appendResponse(
        _ item: ItemSnapshot, context: PropertyContext, dead: [PropertyName: String], checksums: ContentChecksums?,
        to multistatus: inout Multistatus
    ) {
        multistatus.beginResponse(path: item.path, isCollection: item.isCollection)
        let propstat = multistatus.count
        multistatus.beginPropstat()
        switch query {
        case .propertyNames:
            var scratch: [UInt8] = []
            for entry in entries {
                guard let live = entry.live, LiveProperties.append(live, for: item, context: context, to: &scratch)
                else { continue }
                scratch.removeAll(keepingCapacity: true)
                if let tag = entry.tag { multistatus.appendProperty(tag) { _ in true } }
            }
            for name in dead.keys.sorted() { multistatus.appendProperty(name) { _ in true } }
        case .allProperties:
            for entry in entries {
                guard let tag = entry.tag, let live = entry.live else { continue }
                multistatus.appendProperty(tag) { xml in
                    LiveProperties.append(live, for: item, context: context, to: &xml)
                }
            }
            for (name, value) in dead.sorted(by: { $0.key < $1.key }) {
                multistatus.appendProperty(name) { xml in
                    xml += value.utf8
                    return true
                }
            }
        case .properties:
            var missing: [Entry] = []
            for entry in entries {
                let value = { (xml: inout [UInt8]) -> Bool in
                    if let live = entry.live {
                        return LiveProperties.append(live, for: item, context: context, to: &xml)
                    }
                    if entry.name == ContentChecksums.propertyName {
                        guard let checksums else { return false }
                        xml += checksums.propertyValue.utf8
                        return true
                    }
                    guard let value = dead[entry.name] else { return false }
                    xml += value.utf8
                    return true
                }
                let present: Bool
                if let tag = entry.tag {
                    present = multistatus.appendProperty(tag, value: value)
                } else {
                    var unwritten: [UInt8] = []
                    present = value(&unwritten)
                }
                if !present { missing.append(entry) }
            }
            if missing.count < entries.count {
                multistatus.endPropstat(status: 200)
            } else {
                multistatus.truncate(to: propstat)
            }
            if !missing.isEmpty {
                multistatus.beginPropstat()
                for entry in missing {
                    if let tag = entry.tag { multistatus.appendProperty(tag) { _ in true } }
                }
                multistatus.endPropstat(status: 404)
            }
            multistatus.endResponse()
            return
        }
        multistatus.endPropstat(status: 200)
        multistatus.endResponse()
    }
}
