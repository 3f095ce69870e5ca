import HTTPTypes

extension HTTPFields {
    /// A field's value as `self[name]` reads it (several fields of one name joined with commas), without the
    /// subscript's generic join when there is one field, as there almost always is: through the subscript, reading
    /// a lookup's `Content-Type` cost ~4k instructions, a fiftieth of the whole request.
    func value(_ name: HTTPField.Name) -> String? {
        guard let first = firstIndex(where: { $0.name == name }) else { return nil }
        if self[index(after: first)...].contains(where: { $0.name == name }) { return self[name] }
        return self[first].value
    }
}
