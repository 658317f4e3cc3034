#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make deps: install the Debian packages named on the command line that are
# missing, then make sure that the test-only daemons among them
# (prometheus, prometheus-node-exporter: the tests start their own
# node_exporter on 127.0.0.1) are neither running nor enabled, under
# systemd or sysvinit, and whether or not systemd is PID 1.
#
# usage: tests/deps.sh PACKAGE...
set -eu

# packages whose postinst enables (and would start) a service
SERVICE_DEBS="prometheus prometheus-node-exporter"

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

missing=""
for p in "$@"; do
	installed "$p" || missing="$missing $p"
done

if [ -n "$missing" ]; then
	echo "installing:$missing"
	# No service starts during the install: a policy-rc.d that refuses
	# every action (invoke-rc.d and deb-systemd-invoke obey it), unless
	# one is already there (containers ship one), removed afterwards.
	policy=/usr/sbin/policy-rc.d
	ours=""
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\n# bqltool make deps: no service starts during the install\nexit 101\n' > "$policy"
		chmod 0755 "$policy"
		ours=1
		trap 'rm -f "$policy"' EXIT INT TERM
	fi
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
	if [ -n "$ours" ]; then
		rm -f "$policy"
		trap - EXIT INT TERM
	fi
else
	echo "deps: all installed"
fi

# The daemons: stopped and disabled, every unit and init script they ship
# (node_exporter's also has collector timers). Idempotent, so it runs on
# every `make deps`, also when nothing was missing.
systemd_pid1=""
[ -d /run/systemd/system ] && systemd_pid1=1
for p in $SERVICE_DEBS; do
	installed "$p" || continue
	for f in $(dpkg-query -L "$p" | grep -E '^(/usr)?/lib/systemd/system/[^/]+\.(service|timer|socket|path)$'); do
		u=${f##*/}
		case $u in *@.*) continue ;; esac	# templates have no instance enabled
		if [ -n "$systemd_pid1" ]; then
			systemctl stop "$u" >/dev/null 2>&1 || true
		fi
		# systemctl enable/disable work on the unit files without a
		# running systemd too
		if systemctl is-enabled --quiet "$u" 2>/dev/null; then
			systemctl disable --quiet "$u" 2>/dev/null ||
				deb-systemd-helper disable "$u" 2>/dev/null || true
		fi
	done
	for f in $(dpkg-query -L "$p" | grep -E '^/etc/init\.d/[^/]+$'); do
		s=${f##*/}
		if [ -z "$systemd_pid1" ] && [ -x "$f" ]; then
			"$f" stop >/dev/null 2>&1 || true
		fi
		if ls /etc/rc[2-5].d/S[0-9][0-9]"$s" >/dev/null 2>&1; then
			update-rc.d "$s" disable >/dev/null 2>&1 || true
		fi
	done
done

# check: nothing of theirs runs or is enabled
bad=""
for p in $SERVICE_DEBS; do
	installed "$p" || continue
	for f in $(dpkg-query -L "$p" | grep -E '^(/usr)?/lib/systemd/system/[^/]+\.(service|timer|socket|path)$'); do
		u=${f##*/}
		case $u in *@.*) continue ;; esac
		if systemctl is-enabled --quiet "$u" 2>/dev/null; then bad="$bad $u(enabled)"; fi
		if [ -n "$systemd_pid1" ] && systemctl is-active --quiet "$u" 2>/dev/null; then
			bad="$bad $u(active)"
		fi
	done
	for f in $(dpkg-query -L "$p" | grep -E '^/etc/init\.d/[^/]+$'); do
		s=${f##*/}
		if ls /etc/rc[2-5].d/S[0-9][0-9]"$s" >/dev/null 2>&1; then bad="$bad $s(rc.d)"; fi
	done
done
# a daemon that runs as the packages' user "prometheus" was started by them
if getent passwd prometheus >/dev/null 2>&1 && pgrep -u prometheus >/dev/null 2>&1; then
	bad="$bad $(pgrep -u prometheus -l | tr '\n' ' ')"
fi
if [ -n "$bad" ]; then
	echo "deps: still running or enabled:$bad" >&2
	exit 1
fi
echo "deps: $SERVICE_DEBS: not running, not enabled"
