import Glibc

/// Names the calling thread where the kernel keeps it (/proc/<pid>/task/<tid>/comm, `top
/// -H`, gdb), at most 15 bytes. A thread calls it first thing: Foundation's `Thread.name`
/// reaches the kernel only when set on the thread itself, and not reliably at its start.
public enum ThreadName {
    private typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    /// glibc's pthread_setname_np (the Glibc module doesn't declare it); nil: names stay.
    private static let setName = LibcSymbol.lookup("pthread_setname_np", as: SetName.self)

    public static func set(_ name: String) {
        _ = setName?(pthread_self(), String(decoding: name.utf8.prefix(15), as: UTF8.self))
    }
}
