#if LECTERN_TEST_HOOKS
    import Foundation

    /// A test hook for the watchdog fault (the image tests, docs/image.md "Test hooks"): the
    /// heartbeat's present blocks, as a wedged page flip would, while the file `stall-presents`
    /// in the directory `LECTERN_TEST_HOOKS` names holds this process's id. systemd's
    /// `WatchdogSec` then sees no WATCHDOG=1 and kills the service.
    ///
    /// Not in what ships: compiled only with `LECTERN_TEST_HOOKS` (debug builds, and the image
    /// tests' release build: Package.swift, board/image/test-image). Even there, off unless the
    /// environment names the directory (the unit never does; the image tests put
    /// `systemd.setenv=LECTERN_TEST_HOOKS=…` on the kernel's command line), and honoured only
    /// when that directory and the file belong to root and nobody else may write them (the
    /// service's own user can't arm it). The id in the file makes it one-shot: the restarted
    /// service is another process and presents normally.
    struct PresentStallHook {
        let file: String?
        let pid: Int32

        init(environment: [String: String] = ProcessInfo.processInfo.environment, pid: Int32 = getpid()) {
            if let dir = environment["LECTERN_TEST_HOOKS"], dir.hasPrefix("/") {
                file = dir + "/stall-presents"
            } else {
                file = nil
            }
            self.pid = pid
        }

        /// Whether presents are to stall now (the file is root's, not writable by others, and
        /// names this process).
        func armed() -> Bool {
            guard let file else { return false }
            let dir = (file as NSString).deletingLastPathComponent
            guard Self.rootOnly(dir), Self.rootOnly(file),
                let text = try? String(contentsOfFile: file, encoding: .utf8)
            else { return false }
            return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) == pid
        }

        /// Blocks while `armed()`, looking again every `poll` seconds.
        func waitWhileArmed(poll: Double = 0.2) {
            guard file != nil, armed() else { return }
            FileHandle.standardError.write(Data("lecternd: test hook: presents stalled by \(file!) (LECTERN_TEST_HOOKS)\n".utf8))
            while armed() { usleep(UInt32(poll * 1_000_000)) }
        }

        private static func rootOnly(_ path: String) -> Bool {
            var st = stat()
            guard lstat(path, &st) == 0 else { return false }
            return st.st_uid == 0 && st.st_mode & 0o022 == 0
        }
    }
#endif
