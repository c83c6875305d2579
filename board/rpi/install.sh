#!/bin/sh
# Installs Lectern on the board it runs on (Debian 12 / Raspberry Pi OS bookworm, as root).
#
#   install.sh lectern_1.0.0_arm64.deb      the package (preferred): apt resolves the
#                                            runtime libraries, dpkg tracks every file
#   install.sh --bindir DIR                  loose binaries: DIR/lecternd and DIR/lectern
#                                            (a release build with -static-stdlib), plus
#                                            the unit, config, Avahi file from this repo
#   --boot                                   also append board/rpi/config.txt to the
#                                            firmware config and force HDMI-A-1 on in
#                                            cmdline.txt (once; reboot afterwards)
#   --no-start                               enable the service but don't start it
#
# Safe to run again: an existing /etc/lectern/lectern.toml is never overwritten.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
deb="" bindir="" boot=0 start=1

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case "$1" in
        --bindir) bindir=${2:?--bindir needs a directory}; shift 2 ;;
        --boot) boot=1; shift ;;
        --no-start) start=0; shift ;;
        -h|--help) usage 0 ;;
        *.deb) deb=$1; shift ;;
        *) echo "install.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
done
[ -n "$deb" ] || [ -n "$bindir" ] || { echo "install.sh: give a .deb or --bindir DIR" >&2; usage 2 >&2; }
[ "$(id -u)" -eq 0 ] || { echo "install.sh: run as root (sudo $0 …)" >&2; exit 1; }

say() { echo "install.sh: $*"; }
have_systemd() { [ -d /run/systemd/system ]; }

if [ -n "$deb" ]; then
    [ -f "$deb" ] || { echo "install.sh: $deb does not exist" >&2; exit 1; }
    case "$deb" in /*) ;; *) deb="./$deb" ;; esac
    say "installing $deb with apt (pulls the runtime libraries)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb"
else
    for b in lecternd lectern; do
        [ -x "$bindir/$b" ] || { echo "install.sh: $bindir/$b is missing (swift build -c release …, see board/rpi/README.md)" >&2; exit 1; }
    done
    if command -v ldd >/dev/null && ldd "$bindir/lecternd" 2>/dev/null | grep -q 'libswiftCore.so => not found'; then
        echo "install.sh: $bindir/lecternd needs the Swift runtime: build with -static-stdlib (board/rpi/README.md)" >&2
        exit 1
    fi
    say "runtime libraries (Debian packages)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        $(sed -n 's/^Depends: //p' "$repo/board/deb/control.in" | tr -d ',' | sed 's/([^)]*)//g') avahi-daemon adduser

    say "system user lectern (groups video, render)"
    if ! getent passwd lectern >/dev/null; then
        adduser --system --group --quiet --home /var/lib/lectern --no-create-home lectern
    fi
    for g in video render audio; do
        if getent group "$g" >/dev/null; then adduser --quiet lectern "$g"; fi
    done

    say "files"
    install -m 0755 "$bindir/lecternd" "$bindir/lectern" /usr/bin/
    install -m 0644 "$repo/systemd/lectern.service" /lib/systemd/system/lectern.service
    install -D -m 0644 "$repo/systemd/lectern.sysusers.conf" /usr/lib/sysusers.d/lectern.conf
    install -D -m 0644 "$repo/systemd/lectern.tmpfiles.conf" /usr/lib/tmpfiles.d/lectern.conf
    install -D -m 0644 "$repo/board/avahi/lectern.service" /etc/avahi/services/lectern.service
    install -D -m 0644 "$repo/docs/config.md" /usr/share/doc/lectern/config.md
    install -d -m 0755 /etc/lectern
    if [ ! -e /etc/lectern/lectern.toml ]; then
        install -m 0640 -o root -g lectern "$repo/board/lectern.toml" /etc/lectern/lectern.toml
    else
        say "keeping the existing /etc/lectern/lectern.toml"
    fi
    install -d -m 0750 -o lectern -g lectern /var/lib/lectern
    if have_systemd; then systemctl daemon-reload; fi
    systemctl enable lectern.service
fi

if [ "$boot" -eq 1 ]; then
    fw=/boot/firmware; [ -f "$fw/config.txt" ] || fw=/boot
    [ -f "$fw/config.txt" ] || { echo "install.sh: no config.txt in /boot/firmware or /boot: not a Raspberry Pi image?" >&2; exit 1; }
    if grep -q -- '--- lectern begin ---' "$fw/config.txt"; then
        say "$fw/config.txt already has the Lectern fragment"
    else
        cp "$fw/config.txt" "$fw/config.txt.before-lectern"
        printf '\n' >>"$fw/config.txt"
        sed -n '/--- lectern begin ---/,/--- lectern end ---/p' "$here/config.txt" >>"$fw/config.txt"
        say "appended the Lectern fragment to $fw/config.txt (backup: config.txt.before-lectern)"
    fi
    if grep -q 'video=HDMI-A-1:' "$fw/cmdline.txt"; then
        say "$fw/cmdline.txt already sets video=HDMI-A-1"
    else
        cp "$fw/cmdline.txt" "$fw/cmdline.txt.before-lectern"
        # One line: append to it, never add a line.
        sed -i '1 s/[[:space:]]*$/ video=HDMI-A-1:1920x1080@60D/' "$fw/cmdline.txt"
        say "forced HDMI-A-1 on in $fw/cmdline.txt (backup: cmdline.txt.before-lectern)"
    fi
    say "reboot for the boot settings to apply"
fi

# Start only with a valid config: the installed file's placeholder passcodes keep it
# from starting until the admin sets them.
if /usr/bin/lecternd --check-config --config /etc/lectern/lectern.toml; then
    if [ "$start" -eq 1 ] && have_systemd; then
        systemctl restart lectern.service
        say "lectern is running: systemctl status lectern"
    fi
else
    say "set the passcodes in /etc/lectern/lectern.toml, check with 'lecternd --check-config', then: systemctl start lectern"
fi
