/// A URL's path, query and fragment, prepared once per decision in each form that some
/// component compares against: as written or percent-decoded, exact or case-folded.
final class MatchSubject {
    /// One way of looking at the URL.
    final class Form {
        let path: ArraySlice<UInt8>
        let query: ArraySlice<UInt8>
        let fragment: ArraySlice<UInt8>
        /// The query's items (`name=value`, split at `&`), when some component needs them.
        let items: [(name: ArraySlice<UInt8>, value: ArraySlice<UInt8>)]

        init(path: ArraySlice<UInt8>, query: ArraySlice<UInt8>, fragment: ArraySlice<UInt8>, items: [(name: ArraySlice<UInt8>, value: ArraySlice<UInt8>)]) {
            self.path = path
            self.query = query
            self.fragment = fragment
            self.items = items
        }
    }

    /// Form index: bit 1 is "percent-decoded", bit 0 is "case-folded".
    static func formIndex(percentEncoded: Bool, caseSensitive: Bool) -> Int {
        (percentEncoded ? 0 : 2) | (caseSensitive ? 0 : 1)
    }

    private let forms: [Form?]

    /// - Parameters:
    ///   - neededForms: a bit set of form indexes to prepare.
    ///   - needsItems: whether to split the query into items.
    init(url: SplitURL, neededForms: UInt8, needsItems: Bool) {
        let bytes = url.bytes
        let rawPath: ArraySlice<UInt8> = url.pathRange.isEmpty ? [UInt8(ascii: "/")] : bytes[url.pathRange]
        let rawQuery: ArraySlice<UInt8> = url.queryRange.map { bytes[$0] } ?? []
        let rawFragment: ArraySlice<UInt8> = url.fragmentRange.map { bytes[$0] } ?? []
        let rawItems = needsItems ? Self.splitItems(rawQuery) : []
        var forms: [Form?] = [nil, nil, nil, nil]
        for index in 0..<4 where neededForms & (1 << index) != 0 {
            let decode = index & 2 != 0, fold = index & 1 != 0
            func transform(_ slice: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
                var bytes = decode ? PercentDecoding.decode(slice)[...] : slice
                if fold { bytes = WildcardPattern.fold(Array(bytes))[...] }
                return bytes
            }
            let form: Form
            if index == 0 {
                form = Form(path: rawPath, query: rawQuery, fragment: rawFragment, items: rawItems)
            } else {
                form = Form(path: transform(rawPath), query: transform(rawQuery), fragment: transform(rawFragment),
                            items: rawItems.map { (transform($0.name), transform($0.value)) })
            }
            forms[index] = form
        }
        self.forms = forms
    }

    func form(_ index: Int) -> Form? {
        forms[index]
    }

    /// Splits a raw query at `&` into items, each at its first `=`. Empty items (`a=1&&b=2`) are
    /// skipped; an item without `=` has an empty value.
    static func splitItems(_ query: ArraySlice<UInt8>) -> [(name: ArraySlice<UInt8>, value: ArraySlice<UInt8>)] {
        var items: [(name: ArraySlice<UInt8>, value: ArraySlice<UInt8>)] = []
        for item in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = item.firstIndex(of: UInt8(ascii: "=")) {
                items.append((item[..<equals], item[(equals + 1)...]))
            } else {
                items.append((item, []))
            }
        }
        return items
    }
}
