import HTTPTypes

extension HTTPFields {
    /// The value of the field `name`, as `self[name]` gives it — `nil` when absent, the values
    /// joined with `, ` (`; ` for `Cookie`) when it occurs several times — in one pass over the
    /// fields.
    ///
    /// HTTP Types' subscript always joins through a lazy sequence, whose generic metadata is
    /// looked up at run time: it cost a small GET about 2 % of its time in its few look-ups.
    func fieldValue(_ name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            guard found == nil else { return self[name] }  // several: joined, as the subscript does
            found = field.value
        }
        return found
    }
}
