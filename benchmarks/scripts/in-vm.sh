#!/usr/bin/env bash
# Runs a command in a throw-away QEMU guest that sees this machine's file system read-only (writes go to a tmpfs in
# the guest) and has no open-files limit beyond the kernel's: for benchmarks this machine's limits forbid, such as
# 50,000 MQTT connections held by one broker process (the open-files hard limit here is 20,000 and cannot be raised
# without CAP_SYS_RESOURCE). The guest is Debian's own kernel (apt-get download) with a busybox initramfs; it gets
# CPUS cores and MEMORY of memory, and its output directory is shared as /tmp/vmshare (printed at the end).
# ACCEL=tcg (the default) emulates the CPU in software, slow but it runs everywhere; ACCEL=kvm where nested KVM works
# (here it hung before the kernel printed anything). Figures that depend on speed mean nothing under tcg; memory per
# connection does not depend on it.
# Needs: apt-get install -y --no-install-recommends qemu-system-x86
# Usage: [CPUS=2] [MEMORY=12G] [ACCEL=tcg] benchmarks/scripts/in-vm.sh COMMAND...   (run from the repository)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$#" -gt 0 ] || { echo "usage: $0 COMMAND..." >&2; exit 2; }
work="$(mktemp -d)"
share="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

kernel_pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
(cd "$work" && apt-get download -q "$kernel_pkg" busybox-static >/dev/null 2>&1)
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
version="${kernel_pkg#linux-image-}"
modules="$work/root/lib/modules/$version/kernel"

initrd="$work/initrd"
mkdir -p "$initrd"/{bin,modules,proc,sys,dev,lower,upper,newroot}
cp "$work/root/bin/busybox" "$initrd/bin/"
for m in drivers/virtio/virtio drivers/virtio/virtio_ring drivers/virtio/virtio_pci_legacy_dev \
    drivers/virtio/virtio_pci_modern_dev drivers/virtio/virtio_pci net/9p/9pnet net/9p/9pnet_virtio fs/netfs/netfs \
    fs/fscache/fscache fs/9p/9p fs/overlayfs/overlay; do
  cp "$modules/$m.ko" "$initrd/modules/"
done
cp benchmarks/scripts/vm/init "$initrd/init"
chmod +x "$initrd/init"
(cd "$initrd" && find . | "$work/root/bin/busybox" cpio -o -H newc 2>/dev/null | gzip -1 >"$work/initrd.gz")

{
  echo '#!/bin/bash'
  echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
  echo 'ulimit -Hn 1048576; ulimit -Sn 1048576'
  echo 'sysctl -q -w net.ipv4.ip_local_port_range="1024 65000"'
  printf 'cd %q\n' "$PWD"
  printf '%q ' "$@"
  echo '>/tmp/vmshare/output.txt 2>&1'
  echo 'echo $? >/tmp/vmshare/exit-code'
} >"$share/run.sh"

accel="${ACCEL:-tcg}"
[ "$accel" = tcg ] && accel="tcg,thread=multi"
qemu-system-x86_64 -accel "$accel" -smp "${CPUS:-2}" -m "${MEMORY:-12G}" -nographic -no-reboot \
  -kernel "$work/root/boot/vmlinuz-$version" -initrd "$work/initrd.gz" -append "console=ttyS0 panic=-1 loglevel=4" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs "local,path=$share,mount_tag=share,security_model=none" >"$share/console.txt" 2>&1
cat "$share/output.txt" 2>/dev/null || tail -20 "$share/console.txt"
echo "guest output in $share"
exit "$(cat "$share/exit-code" 2>/dev/null || echo 1)"
