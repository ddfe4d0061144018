/// The element of one property as a ``Multistatus`` writes
/// it, encoded once (a listing writes the same names for every item): `<D:name>` and `</D:name>`
/// for `DAV:`, `<ns0:name xmlns:ns0="ns">` for another namespace, `<name xmlns="">` for none, and
/// the empty form `<D:name/>`.
package struct PropertyTag: Sendable {
    let open: [UInt8]
    let close: [UInt8]
    let empty: [UInt8]

    /// The tag of `name`, or `nil` when it is not a name XML can spell (the property is then left
    /// out of a body).
    package init?(_ name: PropertyName) {
        guard XMLText.isNCName(name.name) else { return nil }
        var start: [UInt8] = [0x3C]  // <
        var close: [UInt8] = Array("</".utf8)
        switch name.namespace {
        case "DAV:":
            start += "D:".utf8
            XMLText.appendUTF8(name.name, to: &start)
            close += "D:".utf8
        case "":
            XMLText.appendUTF8(name.name, to: &start)
            start += #" xmlns="""#.utf8
        default:
            start += "ns0:".utf8
            XMLText.appendUTF8(name.name, to: &start)
            start += #" xmlns:ns0=""#.utf8
            XMLText.appendEscaped(name.namespace, to: &start)
            start.append(0x22)
            close += "ns0:".utf8
        }
        XMLText.appendUTF8(name.name, to: &close)
        close.append(0x3E)
        open = start + [0x3E]
        empty = start + "/>".utf8
        self.close = close
    }
}
