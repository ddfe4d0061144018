/// One `DAV:propstat` of a multistatus response: properties sharing a status.
package struct Propstat: Sendable {
    /// The HTTP status of these properties, e.g. 200 or 404.
    package var status: Int
    /// The properties, each with its value as an XML fragment, or `nil` for an empty element (a
    /// property name without value, or a property that failed).
    package var properties: [(PropertyName, value: String?)]
    /// A `DAV:` precondition element naming why these failed, e.g. `cannot-modify-protected-property`.
    package var error: String?

    package init(status: Int, properties: [(PropertyName, value: String?)], error: String? = nil) {
        self.status = status
        self.properties = properties
        self.error = error
    }
}
