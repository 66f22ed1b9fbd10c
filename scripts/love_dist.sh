#!/bin/sh
# scripts/love_dist.sh OUT CORE: lays out in the folder OUT what a LÖVE 11
# game needs beside its main.lua to `require "anim"` (make love-dist):
#   OUT/anim/...       the Lua modules (LÖVE's require finds ?/init.lua
#                      and ?.lua in the game's folder)
#   OUT/anim/core.so   CORE, the core built for LÖVE's LuaJIT (LÖVE's C
#                      loader finds anim/core.so there, luaopen_anim_core)
#   OUT/cjson.so       lua-cjson for LuaJIT, which LÖVE does not bundle
# With LOVE_IMPORTERS=1, also LPeg (lpeg.so: the Blockbench importer's
# Molang) and expat (lxp.so: the legacy XML importer); playing clips
# needs neither.  What else is in OUT (main.lua, the game's files) stays.
# LÖVE loads C modules from real folders only (the game's folder when it
# runs from one, or its save folder), not from inside a .love archive or
# a fused executable: README.md ("In a LÖVE game") says where they go then.
set -eu
OUT=$1 CORE=$2
[ -f "$CORE" ] || { echo "love_dist.sh: no core at $CORE (make build LUA=luajit)" >&2; exit 1; }
here=$(cd "$(dirname "$0")/.." && pwd)
# a C module as LuaJIT finds it (Debian's lua-cjson, lua-lpeg, lua-expat)
find_c() {
  luajit -e "local p = package.searchpath('$1', package.cpath); if p then io.write(p) end"
}
mkdir -p "$OUT"
rm -rf "$OUT/anim"
cp -R "$here/lua/anim" "$OUT/anim"
cp "$CORE" "$OUT/anim/core.so"
mods="cjson"
[ "${LOVE_IMPORTERS:-}" = 1 ] && mods="$mods lpeg lxp"
for m in $mods; do
  p=$(find_c "$m")
  [ -n "$p" ] || { echo "love_dist.sh: $m for LuaJIT not found (scripts/deps.sh love installs lua-cjson; lua-lpeg, lua-expat for the importers)" >&2; exit 1; }
  cp -L "$p" "$OUT/$m.so"
done
echo "love-dist: $OUT holds anim/ (with core.so for LuaJIT) and$(for m in $mods; do printf ' %s.so' "$m"; done): put main.lua beside them"
