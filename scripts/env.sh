#!/bin/sh
# scripts/env.sh LUADIR COREDIR: the shell lines that make `require "anim"`
# find this checkout's Lua files (LUADIR) and core (COREDIR/anim/core.so)
# for the Lua that LUA names (`make env` runs it: eval "$(make env)").
# Each line puts the checkout in front of what the variable held (or of
# Lua's default path, ";;", when it was unset), so that other modules of
# the user's stay found.  Lua 5.2 to 5.4 read LUA_PATH_5_x before
# LUA_PATH: both are set for them.
set -eu
LUA=${LUA:-lua5.4}
lua_dir=$1 core_dir=$2
# a path quoted for the shell: in single quotes, a quote as '\''
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
emit() { # VAR VALUE: export VAR=VALUE in front of what VAR held
  printf 'export %s=%s"${%s:-;}"\n' "$1" "$(quote "$2;")" "$1"
}
path="$lua_dir/?.lua;$lua_dir/?/init.lua"
cpath="$core_dir/?.so"
emit LUA_PATH "$path"
emit LUA_CPATH "$cpath"
case "$LUA" in
  lua5.2|lua5.3|lua5.4)
    v=$(echo "$LUA" | sed 's/^lua5\./5_/')
    emit "LUA_PATH_$v" "$path"
    emit "LUA_CPATH_$v" "$cpath"
    ;;
esac
