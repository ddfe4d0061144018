/// One live property of the share (``LiveProperties``), resolved from its name once a request,
/// so that a listing looks each item's properties up by case rather than by comparing names.
package enum LiveProperty: Sendable, CaseIterable {
    case creationDate, displayName, contentLength, contentType, entityTag, lastModified, resourceType
    case supportedLock, lockDiscovery, quotaAvailable, quotaUsed

    /// The live property `name` names, or `nil` for any other (a dead property, `oc:checksums`).
    package init?(_ name: PropertyName) {
        guard name.namespace == "DAV:" else { return nil }
        switch name.name {
        case "creationdate": self = .creationDate
        case "displayname": self = .displayName
        case "getcontentlength": self = .contentLength
        case "getcontenttype": self = .contentType
        case "getetag": self = .entityTag
        case "getlastmodified": self = .lastModified
        case "resourcetype": self = .resourceType
        case "supportedlock": self = .supportedLock
        case "lockdiscovery": self = .lockDiscovery
        case "quota-available-bytes": self = .quotaAvailable
        case "quota-used-bytes": self = .quotaUsed
        default: return nil
        }
    }
}
