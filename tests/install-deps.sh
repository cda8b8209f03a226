#!/bin/sh
# install-deps: install the Debian packages named as arguments that are missing.
# As root it installs them with apt-get; otherwise it names them and fails.
# Where there is no dpkg (a cluster with modules), it does nothing.
set -eu
command -v dpkg-query >/dev/null 2>&1 || exit 0
missing=""
for p in "$@"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in *" installed") ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "pfsread needs these Debian packages; ask your administrator to install them:" >&2
	echo "  apt-get install$missing" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq -o DPkg::Lock::Timeout=300
# shellcheck disable=SC2086
apt-get install -y -qq -o DPkg::Lock::Timeout=300 $missing
