#!/bin/sh
# Install Debian's chromium for the headless-browser test of the HTML review page
# (tests/review/test_review_browser.py) when it is not there yet. Quiet and non-interactive.
set -eu

if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-chromium: no apt-get here; install chromium yourself (the browser test is skipped without it)" >&2
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq chromium >/dev/null
/usr/bin/chromium --version
