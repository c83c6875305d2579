/// "Did you mean …?" for an unknown key of the config file: the nearest known key (edit
/// distance), or the right key in the wrong section.
extension ConfigFile {
    /// " (did you mean 'x'?)" for a key close to a known one, or one that belongs in
    /// another section; "" otherwise.
    static func suggestion(for key: String, section: String?) -> String {
        let known = section == nil ? topKeys : (sectionKeys[section!] ?? [])
        let threshold = key.count <= 4 ? 1 : key.count <= 8 ? 2 : 3
        let normalized = key.lowercased().replacingOccurrences(of: "-", with: "_")
        var best: (key: String, distance: Int)? = nil
        for k in known {
            let d = editDistance(k, normalized)
            if best == nil || d < best!.distance || (d == best!.distance && k < best!.key) { best = (k, d) }
        }
        if let best, best.distance <= threshold {
            let prefix = section.map { "\($0)." } ?? ""
            return " (did you mean '\(prefix)\(best.key)'?)"
        }
        // The right key in the wrong place: `mode = …` above [display], `port = …` under it.
        if section == nil, let (s, _) = sectionKeys.first(where: { $0.value.contains(normalized) }) {
            return " (did you mean '\(s).\(normalized)', in the [\(s)] section?)"
        }
        if section != nil, topKeys.contains(normalized) {
            return " (did you mean the top-level '\(normalized)'? top-level keys go above the first [section])"
        }
        return ""
    }

    /// Optimal-string-alignment distance: Levenshtein plus transposition of neighbours
    /// ("prot" → "port" is 1).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
