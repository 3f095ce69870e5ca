import GRDB

/// The columns one statement selects from a table, in select order: each is named once, the select list is built
/// from the cases, and a value is read back at its column's place, so no reader counts columns by hand. (GRDB's
/// lookup by name lower-cases the name on every read; a place is found from a table built once per type.)
protocol SQLiteColumn: CaseIterable, Hashable, RawRepresentable where RawValue == String, AllCases == [Self] {
    /// Where the first of these columns stands in the row: columns of a joined table follow the first table's.
    static var offset: Int { get }
    /// Each column's place, `positionTable()` kept in a static of the conforming type.
    static var positions: [Self: Int] { get }
}

extension SQLiteColumn {
    static var offset: Int { 0 }

    static func positionTable() -> [Self: Int] {
        Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($1, offset + $0) })
    }

    /// `alias.a, alias.b, …`, in case order.
    static func selectList(_ alias: String) -> String {
        allCases.map { "\(alias).\($0.rawValue)" }.joined(separator: ", ")
    }

    /// `a, b, …`, in case order.
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

extension Row {
    /// The value of `column` in a row selected with its type's `selectList`.
    subscript<Column: SQLiteColumn, Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ column: Column
    ) -> Value {
        self[Column.positions[column]!]
    }
}
