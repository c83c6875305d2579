#!/usr/bin/env python3
"""Helper of board/vboard/vboard: talks to QEMU's human monitor (HMP) on a unix socket, checks
PPM screendumps, extracts a PVH-bootable vmlinux from a bzImage. Standard library only.

  helper.py hmp SOCKET COMMAND...      run one monitor command, print its output
  helper.py screendump SOCKET OUT.ppm  screendump into OUT.ppm, wait until complete, print WxH
  helper.py ppm-info FILE.ppm          print "W H nonblack_pixels distinct_colours(<=256)"
  helper.py vnc-resize SOCKET W H      ask QEMU's VNC server (as a client would on a window
                                       resize: RFB SetDesktopSize) for a W x H display; virtio-gpu
                                       passes it on to the guest as a display-change event
  helper.py uevents [SUBSYSTEM]         (in the guest) print kernel uevents, one a line, as
                                       they arrive on a NETLINK_KOBJECT_UEVENT socket
  helper.py extract-vmlinux BZIMAGE OUT
                                       decompress the kernel (xz or gzip) into OUT if it is an
                                       ELF with a PVH entry note (QEMU then boots it directly,
                                       skipping firmware and decompression: ~4 s less under TCG)
"""
import lzma
import os
import struct
import re
import socket
import sys
import time

PROMPT = b"(qemu) "


def connect(path, timeout):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    # unix socket paths are limited to ~107 bytes: connect by a relative name
    d, base = os.path.split(os.path.abspath(path))
    old = os.getcwd()
    os.chdir(d)
    try:
        s.connect(base)
    finally:
        os.chdir(old)
    return s


def read_until_prompt(s, buf=b""):
    while not buf.endswith(PROMPT):
        chunk = s.recv(65536)
        if not chunk:
            return buf, False
        buf += chunk
    return buf, True


def hmp(path, command, timeout=30.0):
    s = connect(path, timeout)
    try:
        read_until_prompt(s)  # banner + first prompt
        s.sendall(command.encode() + b"\n")
        out, prompt = read_until_prompt(s)
    finally:
        s.close()
    text = out.decode("utf-8", "replace")
    if prompt:
        text = text[: -len(PROMPT)]
    # QEMU echoes the command line (with terminal escapes) before the output
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text).replace("\r", "")
    lines = text.split("\n")[1:]  # the first line is QEMU's echo of the command line
    return "\n".join(lines).strip("\n")


def ppm_header(data):
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), m.end()


def ppm_complete(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    h = ppm_header(data)
    if not h:
        return None
    w, hh, _, off = h
    return (w, hh) if len(data) >= off + w * hh * 3 else None


def screendump(path, out, timeout=30.0):
    out = os.path.abspath(out)
    try:
        os.unlink(out)
    except FileNotFoundError:
        pass
    # HMP splits arguments at spaces unless they are in double quotes (with \ escapes)
    quoted = '"%s"' % out.replace("\\", "\\\\").replace('"', '\\"')
    reply = hmp(path, "screendump " + quoted, timeout)
    if reply.strip() and not os.path.exists(out):
        raise SystemExit("screendump: QEMU said: %s" % reply.strip())
    deadline = time.monotonic() + timeout
    while True:
        size = ppm_complete(out)
        if size:
            return size
        if time.monotonic() > deadline:
            raise SystemExit("screendump: %s not complete after %.0f s (monitor said: %r)"
                             % (out, timeout, reply))
        time.sleep(0.05)


def ppm_info(path):
    with open(path, "rb") as f:
        data = f.read()
    h = ppm_header(data)
    if not h:
        raise SystemExit("%s: not a binary PPM" % path)
    w, hh, _, off = h
    px = data[off: off + w * hh * 3]
    nonblack = sum(1 for i in range(0, len(px), 3) if px[i] or px[i + 1] or px[i + 2]) \
        if len(px) < 3 * 4096 * 4096 else -1
    colours = set()
    for i in range(0, len(px), 3 * 97):  # a sample is enough
        colours.add(px[i: i + 3])
        if len(colours) > 256:
            break
    return w, hh, nonblack, len(colours)


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        chunk = s.recv(n - len(b))
        if not chunk:
            raise OSError("VNC server closed the connection")
        b += chunk
    return b


def vnc_resize(path, w, h, timeout=10.0, same=False):
    s = connect(path, timeout)
    try:
        version = recv_exact(s, 12)
        if not version.startswith(b"RFB 003."):
            raise OSError("not a VNC server: %r" % version)
        s.sendall(b"RFB 003.008\n")
        n = recv_exact(s, 1)[0]
        if n == 0:
            raise OSError("VNC server refused the connection")
        types = recv_exact(s, n)
        if 1 not in types:
            raise OSError("VNC server wants authentication (types %r)" % list(types))
        s.sendall(b"\x01")
        if struct.unpack(">I", recv_exact(s, 4))[0] != 0:
            raise OSError("VNC security handshake failed")
        s.sendall(b"\x01")  # ClientInit: shared
        cur_w, cur_h = struct.unpack(">HH", recv_exact(s, 4))
        if same:
            w, h = cur_w, cur_h
        recv_exact(s, 16)
        name_len = struct.unpack(">I", recv_exact(s, 4))[0]
        recv_exact(s, name_len)
        # SetEncodings: raw, DesktopSize (-223), ExtendedDesktopSize (-308)
        encs = [0, -223, -308]
        s.sendall(struct.pack(">BBH", 2, 0, len(encs)) + b"".join(struct.pack(">i", e) for e in encs))
        # SetDesktopSize: one screen, id 0, at 0,0
        s.sendall(struct.pack(">BBHHBB", 251, 0, w, h, 1, 0) + struct.pack(">IHHHHI", 0, 0, 0, w, h, 0))
        # wait for the server's answer (ExtendedDesktopSize rectangle) or a short while
        s.settimeout(2.0)
        try:
            s.recv(4096)
        except socket.timeout:
            pass
        return cur_w, cur_h
    finally:
        s.close()


def uevents(subsystem=None):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)  # NETLINK_KOBJECT_UEVENT
    s.bind((0, 1))  # multicast group 1: the kernel's own events (udev re-broadcasts on 2)
    print("listening for uevents%s" % (" of " + subsystem if subsystem else ""), flush=True)
    while True:
        parts = s.recv(1 << 16).split(b"\0")
        if parts[0].startswith(b"libudev"):
            continue
        env = [p.decode("utf-8", "replace") for p in parts[1:] if p]
        if subsystem and "SUBSYSTEM=" + subsystem not in env:
            continue
        print(" ".join(env), flush=True)


def has_pvh_note(elf):
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        return False
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", elf, phoff + i * phentsize)
        if p_type != 4:  # PT_NOTE
            continue
        off, end = p_offset, p_offset + p_filesz
        while off + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", elf, off)
            name = elf[off + 12: off + 12 + namesz].rstrip(b"\0")
            if name == b"Xen" and ntype == 18:  # XEN_ELFNOTE_PHYS32_ENTRY
                return True
            off += 12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3)
    return False


def extract_vmlinux(src, out):
    data = open(src, "rb").read()
    for magic, decomp in ((b"\xfd7zXZ\x00", lambda b: lzma.LZMADecompressor().decompress(b)),
                          (b"\x1f\x8b\x08", lambda b: zlib_gunzip(b))):
        start = 0
        while True:
            i = data.find(magic, start)
            if i < 0:
                break
            start = i + 1
            try:
                elf = decomp(data[i:])
            except Exception:
                continue
            if has_pvh_note(elf):
                tmp = out + ".tmp%d" % os.getpid()
                with open(tmp, "wb") as f:
                    f.write(elf)
                os.replace(tmp, out)
                return True
    return False


def zlib_gunzip(b):
    import zlib
    return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(b)


def main(argv):
    if len(argv) >= 3 and argv[0] == "hmp":
        print(hmp(argv[1], " ".join(argv[2:])))
    elif len(argv) == 3 and argv[0] == "screendump":
        w, h = screendump(argv[1], argv[2])
        print("%dx%d" % (w, h))
    elif len(argv) == 4 and argv[0] == "vnc-resize":
        cw, ch = vnc_resize(argv[1], int(argv[2]), int(argv[3]))
        print("%dx%d -> %sx%s" % (cw, ch, argv[2], argv[3]))
    elif len(argv) == 2 and argv[0] == "vnc-prime":
        # QEMU forwards a size only when it differs from the last one asked for, and that
        # starts as 0x0: `boot` asks for the current size once, so 0x0 later is a change.
        cw, ch = vnc_resize(argv[1], 0, 0, same=True)
        print("%dx%d" % (cw, ch))
    elif len(argv) == 2 and argv[0] == "vnc-unplug":
        # 0x0: virtio-gpu disables its output, the guest sees the connector disconnected.
        cw, ch = vnc_resize(argv[1], 0, 0)
        print("%dx%d -> unplugged" % (cw, ch))
    elif len(argv) in (1, 2) and argv[0] == "uevents":
        uevents(argv[1] if len(argv) == 2 else None)
    elif len(argv) == 3 and argv[0] == "extract-vmlinux":
        if not extract_vmlinux(argv[1], argv[2]):
            sys.stderr.write("helper.py: no PVH-bootable kernel in %s\n" % argv[1])
            return 1
    elif len(argv) == 2 and argv[0] == "ppm-info":
        print("%d %d %d %d" % ppm_info(argv[1]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, socket.timeout) as e:
        sys.stderr.write("monitor.py: %s\n" % e)
        sys.exit(1)
