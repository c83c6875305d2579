import Glibc

/// A glibc function Swift's Glibc module doesn't declare (`memfd_create`, `mallopt`,
/// `malloc_trim`), looked up by name in the running process; nil where the C library
/// lacks it, so the caller falls back.
public enum LibcSymbol {
    public static func lookup<T>(_ name: String, as type: T.Type) -> T? {
        guard let p = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(p, to: type)
    }
}
