#!/usr/bin/env python3
"""The host's end of the image tests' command agent (rootfs/usr/lib/lectern-image/test-agent),
over QEMU's second serial port (a unix socket): board/image/vm run and wait-agent.

  agent.py run SOCKET TIMEOUT COMMAND     prints the command's output, exits with its status
  agent.py wait SOCKET TIMEOUT            until the agent answers (it may not be up yet)
"""
import base64, os, socket, sys, time


def connect(path, deadline):
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                raise SystemExit("agent.py: cannot connect to %s" % path)
            time.sleep(0.2)


def ask(s, command, deadline, resend=None):
    ident = os.urandom(6).hex()
    line = ("%s %s\n" % (ident, base64.b64encode(command.encode()).decode())).encode()
    s.sendall(line)
    sent = time.monotonic()
    buf = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        s.settimeout(min(left, resend) if resend else left)
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            if resend and time.monotonic() - sent >= resend:
                s.sendall(line)
                sent = time.monotonic()
            continue
        if not chunk:
            return None
        buf += chunk
        while b"\n" in buf:
            got, buf = buf.split(b"\n", 1)
            # "= ID STATUS BASE64": anything else (the tty echoing our own line before the
            # agent turned echo off, boot noise) is not an answer.
            parts = got.strip().split(b" ")
            if len(parts) >= 3 and parts[0] == b"=" and parts[1].decode(errors="replace") == ident and parts[2].isdigit():
                out = base64.b64decode(parts[3]) if len(parts) > 3 and parts[3] else b""
                return int(parts[2]), out


def main(argv):
    if len(argv) < 4 or argv[1] not in ("run", "wait"):
        sys.stderr.write(__doc__)
        return 2
    path, timeout = argv[2], float(argv[3])
    deadline = time.monotonic() + timeout
    s = connect(path, deadline)
    if argv[1] == "wait":
        r = ask(s, "true", deadline, resend=2.0)
        if r is None:
            sys.stderr.write("agent.py: the guest's agent did not answer within %g s\n" % timeout)
            return 1
        return 0
    r = ask(s, " ".join(argv[4:]), deadline)
    if r is None:
        sys.stderr.write("agent.py: no answer within %g s to: %s\n" % (timeout, " ".join(argv[4:])))
        return 124
    rc, out = r
    sys.stdout.buffer.write(out)
    if out and not out.endswith(b"\n"):
        sys.stdout.buffer.write(b"\n")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
