import Sandbox

/// The live properties the share computes (RFC 4918 §15, RFC 4331 for the quotas): none can be
/// set or removed by PROPPATCH.
package enum LiveProperties {
    /// Every live property the share serves. (`oc:checksums` is computed by the PROPFIND itself,
    /// ``ChecksumStore``, and listed here to be protected: never a dead property a client sets.)
    package static let names: [PropertyName] =
        allPropNames + [quotaAvailable, quotaUsed, ContentChecksums.propertyName]

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
        var bytes: [UInt8] = []
        guard append(name, for: item, context: context, to: &bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``value(of:for:context:)`` appended to `bytes` (a PROPFIND's body, written in place).
    ///
    /// - Returns: `false`, with nothing appended, when the item has no such property.
    package static func append(
        _ name: PropertyName, for item: ItemSnapshot, context: PropertyContext, to bytes: inout [UInt8]
    ) -> Bool {
        guard name.namespace == "DAV:" else { return false }
        let attributes = item.attributes
        switch name.name {
        case "creationdate":
            PropertyDates.appendCreationDate(attributes.creationDate ?? attributes.modificationDate, to: &bytes)
        case "displayname": XMLText.appendEscaped(item.path.lastName ?? "", to: &bytes)
        case "getcontentlength":
            guard !item.isCollection else { return false }
            appendDecimal(item.contentLength ?? attributes.size, to: &bytes)
        case "getcontenttype":
            guard !item.isCollection else { return false }
            XMLText.appendUTF8(ContentType.forName(item.path.lastName ?? ""), to: &bytes)
        case "getetag":
            guard !item.isCollection else { return false }
            XMLText.appendUTF8(EntityTag.of(attributes), to: &bytes)
        case "getlastmodified": XMLText.appendUTF8(PropertyDates.lastModified(attributes.modificationDate), to: &bytes)
        case "resourcetype": if item.isCollection { bytes += collection }
        case "supportedlock": bytes += supportedLock
        case "lockdiscovery": for lock in context.locks { bytes += lock.activeLockXML(now: context.now).utf8 }
        case "quota-available-bytes":
            guard let volume = context.volume else { return false }
            appendDecimal(max(volume.availableBytes, 0), to: &bytes)
        case "quota-used-bytes":
            guard let volume = context.volume else { return false }
            appendDecimal(max(volume.capacity - volume.freeBytes, 0), to: &bytes)
        default: return false
        }
        return true
    }

    private static func appendDecimal(_ value: some BinaryInteger, to bytes: inout [UInt8]) {
        XMLText.appendUTF8(String(value), to: &bytes)
    }

    private static let collection = Array("<D:collection/>".utf8)

    private static let supportedLock = Array(
        ["exclusive", "shared"].map {
            "<D:lockentry><D:lockscope><D:\($0)/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>"
        }.joined().utf8)
}
