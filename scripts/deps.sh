#!/bin/sh
# deps.sh: checks what `make demo` and `make test` need and, when it is
# missing, installs it from Debian's archive (as root with apt-get), or
# says exactly what to install.  Usage: scripts/deps.sh [test|ci|lint|love]
# `ci` is `test` plus what the CI checks need: valgrind (make memcheck),
# clang and its runtimes (ASan, UBSan and libFuzzer: make asan, make fuzz);
# `lint` is what `make lint` needs (luacheck, a C compiler, Lua's headers).
LUA=${LUA:-lua5.4}
LUA_INC=${LUA_INC:-/usr/include/lua5.4}
# The packages are looked for where Debian puts them: a shell's own Lua
# paths (a LUA_PATH without ";;" leaves the system's folders out) do not
# decide what is installed.
unset LUA_PATH LUA_CPATH LUA_INIT
for v in 5_1 5_2 5_3 5_4; do unset "LUA_PATH_$v" "LUA_CPATH_$v" "LUA_INIT_$v"; done
# Debian's packages of the Lua asked for: the interpreter and its headers
case "$LUA" in
  luajit) LUA_PKG=luajit; LUA_DEV=libluajit-5.1-dev ;;
  lua5.1) LUA_PKG=lua5.1; LUA_DEV=liblua5.1-0-dev ;;
  lua5.2|lua5.3|lua5.4) LUA_PKG=$LUA; LUA_DEV=lib$LUA-dev ;;
  *) LUA_PKG=$LUA; LUA_DEV=lib$LUA-dev ;;
esac
missing=""
need() { case " $missing " in *" $1 "*) ;; *) missing="$missing $1" ;; esac; }

check() {
  missing=""
  mode=$1
  [ "$mode" = ci ] && set -- test
  if [ "$mode" = love ]; then
    # the LÖVE example: love, Xvfb for its test, and the core's needs for LuaJIT
    command -v love >/dev/null 2>&1 || need love
    command -v xvfb-run >/dev/null 2>&1 || need xvfb
    command -v luajit >/dev/null 2>&1 || need luajit
    [ -f /usr/include/luajit-2.1/lua.h ] || need libluajit-5.1-dev
    command -v luajit >/dev/null 2>&1 && { luajit -e 'require "cjson"' >/dev/null 2>&1 || need lua-cjson; }
    command -v cc >/dev/null 2>&1 || need gcc
    return
  fi
  if [ "$mode" = lint ]; then
    command -v luacheck >/dev/null 2>&1 || need lua-check
    # scripts/sizes.lua and scripts/callgraph.lua run on lua5.4 (luac5.4 lists functions)
    command -v luac5.4 >/dev/null 2>&1 || need lua5.4
    command -v cc >/dev/null 2>&1 || need gcc
    [ -f "$LUA_INC/lua.h" ] || need "$LUA_DEV"
    return
  fi
  command -v "$LUA" >/dev/null 2>&1 || need "$LUA_PKG"
  [ -f "$LUA_INC/lua.h" ] || need "$LUA_DEV"
  command -v cc >/dev/null 2>&1 || need gcc
  if command -v "$LUA" >/dev/null 2>&1; then
    "$LUA" -e 'require "cjson"' >/dev/null 2>&1 || need lua-cjson
    # the Blockbench importer parses Molang with LPeg
    "$LUA" -e 'require "lpeg"' >/dev/null 2>&1 || need lua-lpeg
    # the legacy XML importer parses with expat
    "$LUA" -e 'require "lxp"' >/dev/null 2>&1 || need lua-expat
    # the command parses its command line with lua-argparse
    "$LUA" -e 'require "argparse"' >/dev/null 2>&1 || need lua-argparse
    if [ "$1" = test ]; then
      "$LUA" -e 'require "busted.runner"' >/dev/null 2>&1 || need lua-busted
    fi
  else
    need lua-cjson
    need lua-lpeg
    need lua-expat
    need lua-argparse
    [ "$1" = test ] && need lua-busted
  fi
  if [ "$1" = test ]; then
    command -v luarocks >/dev/null 2>&1 || need luarocks
    # spec/locale_spec.lua makes a collating locale (en_US.UTF-8) with
    # localedef from the definitions this package holds
    [ -f /usr/share/i18n/locales/en_US ] && [ -f /usr/share/i18n/charmaps/UTF-8.gz ] || need locales
  fi
  if [ "$mode" = ci ]; then
    command -v valgrind >/dev/null 2>&1 || need valgrind
    command -v clang >/dev/null 2>&1 || need clang
    # clang's runtimes: libFuzzer, and ASan + UBSan (make asan preloads
    # libclang_rt.asan-x86_64.so into lua5.4)
    if command -v clang >/dev/null 2>&1; then
      [ -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a)" ] || need libclang-rt-14-dev
      [ -f "$(clang -print-file-name=libclang_rt.asan-x86_64.so)" ] || need libclang-rt-14-dev
    else
      need libclang-rt-14-dev
    fi
  fi
}

check "$1"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing missing Debian packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq$missing || exit 1
  check "$1"
  [ -z "$missing" ] && exit 0
  echo "still missing after apt-get:$missing" >&2
  exit 1
fi
echo "missing packages:$missing" >&2
echo "install them with:  sudo apt-get install$missing" >&2
exit 1
