import Foundation
import LecternCore

/// Loads `lectern.toml`: reads the file (UTF-8, who may read it) and checks it with
/// `parse` (ConfigSchema.swift); every problem comes back with its line, all at once, so an
/// admin fixes the file in one go (`lecternd --check-config`). docs/config.md documents
/// every key; keep the two in step (LecternApplianceTests checks the shipped
/// board/lectern.toml against this).
public enum ConfigFile {
    public struct Result: Sendable {
        public var config: Config
        /// What makes the file unusable: the service refuses to start (or to reload) on any.
        public var problems: [ConfigProblem]
        /// Worth telling the admin, but the file is used.
        public var warnings: [ConfigProblem]
        public var isValid: Bool { problems.isEmpty }
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let path: String
        public let problems: [ConfigProblem]
        /// Warnings found on the way (file permissions, …), for the log.
        public var warnings: [ConfigProblem] = []
        public init(path: String, problems: [ConfigProblem], warnings: [ConfigProblem] = []) {
            self.path = path; self.problems = problems; self.warnings = warnings
        }
        public var description: String {
            "\(path) is not valid:\n" + problems.map { "  \($0)" }.joined(separator: "\n")
        }
    }

    /// The exit status of `lecternd` when the config file is not valid (sysexits.h
    /// EX_CONFIG). systemd/lectern.service lists it in RestartPreventExitStatus=, so a bad
    /// file stops the service with its message instead of a restart loop.
    public static let invalidExitStatus: Int32 = 78

    /// Reads and checks the file at `path`; throws `Invalid` listing every problem.
    public static func load(path: String) throws -> Result {
        guard let data = FileManager.default.contents(atPath: path) else {
            let why =
                FileManager.default.fileExists(atPath: path)
                ? "can't be read (permissions? it should be owned by root, group lectern, mode 640)" : "does not exist"
            throw Invalid(path: path, problems: [ConfigProblem(line: nil, "the config file \(why)")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Invalid(path: path, problems: [ConfigProblem(line: nil, "the file is not UTF-8 text")])
        }
        var result = parse(text)
        result.warnings.insert(contentsOf: permissionWarnings(path: path), at: 0)
        guard result.isValid else { throw Invalid(path: path, problems: result.problems, warnings: result.warnings) }
        return result
    }

    /// Warnings about who may read or change the file at `path` (it holds the passcodes).
    public static func permissionWarnings(path: String) -> [ConfigProblem] {
        var st = stat()
        guard stat(path, &st) == 0 else { return [] }
        var warnings: [ConfigProblem] = []
        if st.st_mode & 0o002 != 0 {
            warnings.append(
                ConfigProblem(line: nil, "\(path) is writable by every user: anyone on this machine can change the passcodes: chmod 640 it (owner root, group lectern)"))
        } else if st.st_mode & 0o004 != 0 {
            warnings.append(ConfigProblem(line: nil, "\(path) is readable by every user and holds the passcodes: chmod 640 it (owner root, group lectern)"))
        }
        return warnings
    }
}
