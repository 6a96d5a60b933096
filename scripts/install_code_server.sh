#!/usr/bin/env bash
# Install code-server 4.100.3 (VS Code 1.100.3, the newest that runs on Node 20)
# from the npm registry alone, into a cache folder keyed by version; a second
# run with the cache in place does nothing. Prints the install folder.
#
# Needs Debian's `ripgrep` (its rg pre-seeds @vscode/ripgrep's download cache),
# `libkrb5-dev` (kerberos builds from source) and node/npm. Chromium (Debian's
# `chromium`) is only needed to run the tests. See docs/editors/vscode.md.
set -euo pipefail
VERSION=4.100.3
CACHE=${AGENT_DOC_VSCODE_CACHE:-$HOME/.cache/agent-doc-vscode}
DEST="$CACHE/code-server-$VERSION"
if [ -f "$DEST/.complete" ]; then echo "$DEST"; exit 0; fi
for tool in node npm rg tar flock; do
  command -v "$tool" >/dev/null || { echo "install_code_server: $tool is not installed" >&2; exit 3; }
done
mkdir -p "$CACHE"
# One install at a time per cache (parallel CI jobs on one machine).
exec 9>"$CACHE/.install.lock"
flock 9
if [ -f "$DEST/.complete" ]; then echo "$DEST"; exit 0; fi
WORK=$(mktemp -d "$CACHE/.install-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export TMPDIR="$WORK/tmp" npm_config_cache="$CACHE/npm-cache" npm_config_yes=true
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
export JOBS=2
mkdir -p "$TMPDIR"

# 1. @vscode/ripgrep downloads rg from GitHub at install: hand it Debian's rg.
seed="$TMPDIR/vscode-ripgrep-cache-1.15.11"
mkdir -p "$seed" "$WORK/rg"
cp "$(command -v rg)" "$WORK/rg/rg"
tar -C "$WORK/rg" -czf "$seed/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" rg

# 2. code-server and its dependencies without their install scripts.
root="$WORK/root"
mkdir -p "$root"
cd "$root"
printf '{"name":"agent-doc-code-server","private":true,"dependencies":{"code-server":"%s"}}\n' "$VERSION" > package.json
npm install --ignore-scripts --no-audit --no-fund --loglevel=error

# 3. argon2: its prebuilt download fails; build it from source.
printf 'allow-scripts=argon2\nnodedir=/usr\n' > .npmrc
npm rebuild argon2 --loglevel=error

# 4. code-server's postinstall, by hand.
vs="$root/node_modules/code-server/lib/vscode"
cd "$vs"
printf 'allow-scripts=@parcel/watcher,@vscode/deviceid,@vscode/ripgrep,@vscode/spdlog,kerberos,native-watchdog,node-pty\nnodedir=/usr\n' > .npmrc
npm install --omit=dev --no-audit --no-fund --loglevel=error
ln -sfn node_modules node_modules.asar
ln -sfn code-linux.sh bin/remote-cli/code-server
ln -sfn browser-linux.sh bin/helpers/browser.sh
cd "$vs/extensions"
printf 'allow-scripts=@parcel/watcher\nnodedir=/usr\n' > .npmrc
npm install --omit=dev --no-audit --no-fund --loglevel=error

rm -rf "$DEST"
mv "$root" "$DEST"
touch "$DEST/.complete"
echo "$DEST"
