import LecternModel
import LecternProtocol

/// The config's rules between keys (sizes, ports, TLS, passcodes), checked once every key
/// of every file is known (ConfigSchema.swift reads the keys one by one).
extension ConfigFile {
    /// Where a key is written: its file and line.
    struct Spot {
        var file: String?
        var line: Int?
    }

    static func problem(_ spot: Spot?, _ message: String) -> ConfigProblem {
        ConfigProblem(line: spot?.line, message, file: spot?.file)
    }

    /// The problems and warnings of `config` as a whole; `spots`: where each key was last
    /// written, by path (absent: left at its default).
    static func relations(_ config: Config, at spots: [String: Spot]) -> (problems: [ConfigProblem], warnings: [ConfigProblem]) {
        var problems: [ConfigProblem] = []
        var warnings: [ConfigProblem] = []
        if config.maxUploadMB > config.diskQuotaMB {
            problems.append(
                problem(
                    spots["max_upload_mb"],
                    "'max_upload_mb' (\(config.maxUploadMB)) is larger than 'disk_quota_mb' (\(config.diskQuotaMB)): an upload that size could never be stored"))
        }
        if config.connectionsReservedForDevices >= config.maxConnections {
            problems.append(
                problem(
                    nil,
                    "'connections_reserved_for_devices' (\(config.connectionsReservedForDevices)) must be smaller than 'max_connections' (\(config.maxConnections)): nobody new could connect"
                ))
        }
        if config.port < 1024 {
            warnings.append(problem(spots["port"], "'port' \(config.port) is below 1024: binding it needs CAP_NET_BIND_SERVICE, which the shipped unit does not grant"))
        }
        if let http = config.httpPort {
            if http == config.port {
                problems.append(problem(spots["http_port"], "'http_port' is the same as 'port' (\(http)): the web remote needs a port of its own (0: no web remote)"))
            } else if http < 1024 {
                warnings.append(
                    problem(spots["http_port"], "'http_port' \(http) is below 1024: binding it needs CAP_NET_BIND_SERVICE, which the shipped unit does not grant"))
            }
        }

        if (config.tlsCertificate == nil) != (config.tlsKey == nil) {
            problems.append(
                problem(
                    spots["tls_certificate"] ?? spots["tls_key"],
                    config.tlsKey == nil
                        ? "'tls_certificate' is set but 'tls_key' is not: give both (the certificate chain and its private key), or neither for a self-signed certificate"
                        : "'tls_key' is set but 'tls_certificate' is not: give both (the certificate chain and its private key), or neither for a self-signed certificate"))
        }
        if !config.tls && config.tlsCertificate != nil {
            problems.append(problem(spots["tls"], "'tls' is false but 'tls_certificate' is set: remove the certificate, or set tls = true"))
        }
        if !config.tls {
            warnings.append(problem(spots["tls"], "'tls' is false: passcode proofs, slides and everything else travel unencrypted on the room's network"))
        }

        func checkPasscode(_ value: String?, key: String, line: Spot?, required: Bool) {
            guard let value else {
                if required {
                    problems.append(
                        problem(
                            line,
                            key == "moderator_passcode"
                                ? "'moderator_passcode' is empty but floor is \"moderated\": set one, or use floor = \"open\""
                                : "'passcode' is empty: nobody could connect"))
                }
                return
            }
            if isPlaceholder(value) {
                problems.append(
                    problem(
                        line,
                        "'\(key)' is still the placeholder of the installed file: set the room's \(key == "passcode" ? "presenter" : "moderator") passcode (plain, or the hash `lectern hash-passcode` prints)"
                    ))
            } else if PasscodeHash.isHashForm(value) {
                do { _ = try PasscodeHash.parse(value) } catch { problems.append(problem(line, "'\(key)' is not a valid hash: \(error)")) }
            } else if value.count < config.passcodeMinLength {
                problems.append(problem(line, "'\(key)' is \(value.count) characters, shorter than passcode_min_length (\(config.passcodeMinLength))"))
            }
        }
        if config.screenCode {
            // The code on the wall is the presenter passcode: a fixed one beside it would be
            // the passcode "anyone who ever had it" uses from the corridor.
            if config.passcode != nil {
                problems.append(
                    problem(
                        spots["passcode"] ?? spots["screen_code"],
                        "'passcode' is set but so is 'screen_code = true': the code on the wall is the presenter passcode, so remove 'passcode' (or set screen_code = false)"))
            }
        } else {
            checkPasscode(config.passcode, key: "passcode", line: spots["passcode"], required: true)
        }
        checkPasscode(config.moderatorPasscode, key: "moderator_passcode", line: spots["moderator_passcode"], required: config.floor == .moderated)
        if let passcode = config.passcode, passcode == config.moderatorPasscode, !isPlaceholder(passcode) {
            problems.append(problem(spots["moderator_passcode"], "'moderator_passcode' is the same as 'passcode': every presenter could moderate"))
        }
        return (problems, warnings)
    }

    static func isPlaceholder(_ passcode: String) -> Bool {
        passcode.uppercased().hasPrefix(placeholderPasscode)
    }
}
