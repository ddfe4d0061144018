import Sandbox
import SandboxCore

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
        guard let property = LiveProperty(name) else { return false }
        return append(property, for: item, context: context, to: &bytes)
    }

    /// The value of `property` appended to `bytes`, as the look-up by name appends it.
    ///
    /// - Returns: `false`, with nothing appended, when the item has no such property.
    package static func append(
        _ property: LiveProperty, for item: ItemSnapshot, context: PropertyContext, to bytes: inout [UInt8]
    ) -> Bool {
        let attributes = item.attributes
        switch property {
        case .creationDate:
            PropertyDates.appendCreationDate(attributes.creationDate ?? attributes.modificationDate, to: &bytes)
        case .displayName: XMLText.appendEscaped(item.path.lastName ?? "", to: &bytes)
        case .contentLength:
            guard !item.isCollection else { return false }
            ASCIIDecimal.append(item.contentLength ?? attributes.size, to: &bytes)
        case .contentType:
            guard !item.isCollection else { return false }
            XMLText.appendUTF8(ContentType.forName(item.path.lastName ?? ""), to: &bytes)
        case .entityTag:
            guard !item.isCollection else { return false }
            EntityTag.append(attributes, to: &bytes)
        case .lastModified: PropertyDates.appendLastModified(attributes.modificationDate, to: &bytes)
        case .resourceType: if item.isCollection { bytes += collection }
        case .supportedLock: bytes += supportedLock
        case .lockDiscovery: for lock in context.locks { bytes += lock.activeLockXML(now: context.now).utf8 }
        case .quotaAvailable:
            guard let volume = context.volume else { return false }
            ASCIIDecimal.append(max(volume.availableBytes, 0), to: &bytes)
        case .quotaUsed:
            guard let volume = context.volume else { return false }
            ASCIIDecimal.append(max(volume.capacity - volume.freeBytes, 0), to: &bytes)
        }
        return true
    }

    private static let collection = Array("<D:collection/>".utf8)

    private static let supportedLock = Array(
        ["exclusive", "shared"].map {
            "<D:lockentry><D:lockscope><D:\($0)/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>"
        }.joined().utf8)
}
