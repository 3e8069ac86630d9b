#!/usr/bin/env bash
# Makes sure Debian's chromium is installed for the proving ground (make eval, make test).
# It installs it with apt-get when it is missing and we are root; otherwise it says what to do.
set -euo pipefail

if [ -n "${CHROMIUM_PATH:-}" ]; then
	[ -x "$CHROMIUM_PATH" ] && exit 0
	echo "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file" >&2
	exit 1
fi
if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "chromium is missing: install Debian's chromium package (sudo apt-get install -y chromium), or set CHROMIUM_PATH to a Chromium binary" >&2
	exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "chromium is missing and apt-get is not available: install Chromium and put it on PATH, or set CHROMIUM_PATH" >&2
	exit 1
fi
echo "installing chromium with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
command -v chromium >/dev/null 2>&1 || { echo "apt-get ran but chromium is still missing" >&2; exit 1; }
