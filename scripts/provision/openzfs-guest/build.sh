#!/usr/bin/env bash
# Builds the real-OpenZFS guest image into an EMPTY directory OUT (the caller renames it into the cache when this
# exits 0, so a killed build never leaves an image that looks complete). Inputs come from the environment:
#   MIRROR   the Debian mirror this machine already uses (the only place anything is downloaded from)
#   SUITE    the Debian release (bookworm); OpenZFS comes from SUITE-backports' contrib
#   INCLUDE  comma-separated packages debootstrap installs besides the base
#   ZFS_PKGS space-separated OpenZFS packages installed from SUITE-backports (the module is built by DKMS)
# Needs root (debootstrap, chroot, bind mounts). Progress lines go to stdout; each step's log to OUT/*.log.
set -euo pipefail
out=${1:?output directory}; : "${MIRROR:?}" "${SUITE:?}" "${INCLUDE:?}" "${ZFS_PKGS:?}"
root=$out/root
step() { echo "[openzfs-guest] $(date -u +%H:%M:%S) $*"; }

step "debootstrap $SUITE from $MIRROR (≈ 2-4 min)…"
debootstrap --variant=minbase --components=main,contrib --include="$INCLUDE" "$SUITE" "$root" "$MIRROR" >"$out/debootstrap.log" 2>&1

# The guest's own apt sources: contrib (OpenZFS) and SUITE-backports (the newer OpenZFS) on the same mirror.
printf 'Types: deb\nURIs: %s\nSuites: %s %s-backports\nComponents: main contrib\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
  "$MIRROR" "$SUITE" "$SUITE" >"$root/etc/apt/sources.list.d/hostmgr-openzfs.sources"
rm -f "$root/etc/apt/sources.list"

for m in proc sys dev; do mount --bind "/$m" "$root/$m"; done
trap 'for m in dev sys proc; do umount "$root/$m" 2>/dev/null || true; done' EXIT
step "OpenZFS ($ZFS_PKGS) from $SUITE-backports, kernel module built by DKMS (≈ 4-8 min)…"
chroot "$root" env DEBIAN_FRONTEND=noninteractive ZFS_PKGS="$ZFS_PKGS" SUITE="$SUITE" bash -c \
  'apt-get update -qq && apt-get install -y -qq -t "$SUITE-backports" $ZFS_PKGS && apt-get clean' >"$out/zfs.log" 2>&1
for m in dev sys proc; do umount "$root/$m"; done
trap - EXIT
ls "$root"/lib/modules/*/updates/dkms/zfs.ko >/dev/null

step "guest settings (SSH key, network, zfs module at boot)…"
ssh-keygen -q -t ed25519 -N '' -C hostmgr-openzfs-guest -f "$out/key"
install -d -m 700 "$root/root/.ssh"
install -m 600 "$out/key.pub" "$root/root/.ssh/authorized_keys"
printf 'auto lo\niface lo inet loopback\nauto eth0\niface eth0 inet static\n  address 10.0.2.15/24\n  gateway 10.0.2.2\n' >"$root/etc/network/interfaces"
echo zfsguest >"$root/etc/hostname"
echo zfs >"$root/etc/modules-load.d/zfs.conf"
echo '/dev/vda / ext4 defaults 0 1' >"$root/etc/fstab"
sed -i 's/^#\?PermitRootLogin.*/PermitRootLogin prohibit-password/; s/^#\?UseDNS.*/UseDNS no/' "$root/etc/ssh/sshd_config"
# many short SSH sessions in parallel (the executor opens one per command)
printf 'MaxStartups 100:30:200\nMaxSessions 100\n' >"$root/etc/ssh/sshd_config.d/hostmgr.conf"
chroot "$root" systemctl enable ssh >/dev/null 2>&1
# the guest imports no pool at boot: every boot starts with none
chroot "$root" systemctl disable zfs-import-cache.service zfs-import-scan.service zfs-mount.service zfs-zed.service >/dev/null 2>&1 || true
cp "$root"/boot/vmlinuz-* "$out/vmlinuz"
cp "$root"/boot/initrd.img-* "$out/initrd.img"
chroot "$root" dpkg-query -W -f '${Version}' zfsutils-linux >"$out/zfs-version"

step "ext4 image (4 GiB sparse)…"
truncate -s 4G "$out/rootfs.img"
mkfs.ext4 -q -F -d "$root" "$out/rootfs.img"
rm -rf "$root"
step "built $out (OpenZFS $(cat "$out/zfs-version"))"
