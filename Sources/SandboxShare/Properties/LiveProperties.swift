import Sandbox

/// The live properties the share computes (RFC 4918 §15, RFC 4331 for the quotas): none can be
/// set or removed by PROPPATCH.
package enum LiveProperties {
    /// Every live property the share serves.
    package static let names: [PropertyName] = allPropNames + [quotaAvailable, quotaUsed]

    /// What `DAV:allprop` returns: the live properties of RFC 4918 (RFC 4331 keeps the quotas out).
    package static let allPropNames: [PropertyName] = [
        "creationdate", "displayname", "getcontentlength", "getcontenttype", "getetag", "getlastmodified",
        "resourcetype", "supportedlock", "lockdiscovery",
    ].map(PropertyName.dav)

    private static let quotaAvailable = PropertyName.dav("quota-available-bytes")
    private static let quotaUsed = PropertyName.dav("quota-used-bytes")
    private static let nameSet = Set(names)

    /// Whether `name` is live, hence protected: PROPPATCH on it is `403` with
    /// `cannot-modify-protected-property`.
    package static func isProtected(_ name: PropertyName) -> Bool { nameSet.contains(name) }

    /// The value of the live property `name` of `item` as an XML fragment (elements with the `D:`
    /// prefix, which the enclosing document binds to `DAV:`; text escaped), or `nil` when the item
    /// has no such property (the `get*` ones of a collection, the quotas without a volume, any
    /// dead property): a `404` propstat.
    package static func value(of name: PropertyName, for item: ItemSnapshot, context: PropertyContext) -> String? {
        guard name.namespace == "DAV:" else { return nil }
        let attributes = item.attributes
        switch name.name {
        case "creationdate":
            return PropertyDates.creationDate(attributes.creationDate ?? attributes.modificationDate)
        case "displayname": return XMLText.escape(item.path.lastName ?? "")
        case "getcontentlength": return item.isCollection ? nil : String(item.contentLength ?? attributes.size)
        case "getcontenttype":
            return item.isCollection ? nil : ContentType.forName(item.path.lastName ?? "")
        case "getetag": return item.isCollection ? nil : EntityTag.of(attributes)
        case "getlastmodified": return PropertyDates.lastModified(attributes.modificationDate)
        case "resourcetype": return item.isCollection ? "<D:collection/>" : ""
        case "supportedlock": return supportedLock
        case "lockdiscovery": return context.locks.map { $0.activeLockXML(now: context.now) }.joined()
        case "quota-available-bytes": return context.volume.map { String(max($0.availableBytes, 0)) }
        case "quota-used-bytes": return context.volume.map { String(max($0.capacity - $0.freeBytes, 0)) }
        default: return nil
        }
    }

    private static let supportedLock = ["exclusive", "shared"].map {
        "<D:lockentry><D:lockscope><D:\($0)/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>"
    }.joined()
}
