# anim: `make demo` runs the main example, `make test` runs the specs.
# Both install missing Debian packages first (scripts/deps.sh).
LUA      ?= lua5.4
LUA_INC  ?= /usr/include/lua5.4
CC       ?= cc
CFLAGS   ?= -O2 -g
WARN      = -std=c99 -pedantic -Wall -Wextra -Werror
# the noise and curve maths must give the same bits everywhere: no FMA contraction
FPFLAGS   = -ffp-contract=off

CORE_SRC  = $(wildcard csrc/*.c)
CORE_HDR  = $(wildcard csrc/*.h)
CORE_SO   = build/anim/core.so

RUN = LUA_PATH="lua/?.lua;lua/?/init.lua;./?.lua;;" LUA_CPATH="build/?.so;;" \
      LUA_PATH_5_4="lua/?.lua;lua/?/init.lua;./?.lua;;" LUA_CPATH_5_4="build/?.so;;" $(LUA)

EXAMPLES  = walk events retarget convert

.PHONY: all build deps deps-test demo test memcheck bench lint clean $(EXAMPLES)

all: build

deps:
	@LUA=$(LUA) LUA_INC=$(LUA_INC) sh scripts/deps.sh

deps-test:
	@LUA=$(LUA) LUA_INC=$(LUA_INC) sh scripts/deps.sh test

build: $(CORE_SO)

$(CORE_SO): $(CORE_SRC) $(CORE_HDR)
	@mkdir -p build/anim
	$(CC) $(WARN) $(FPFLAGS) $(CFLAGS) -fPIC -shared -I$(LUA_INC) $(CORE_SRC) -o $@ -lm

demo: deps
	@$(MAKE) --no-print-directory build
	$(RUN) examples/walk.lua

# `make events`, `make retarget`, `make convert`: the other examples.
$(EXAMPLES): deps
	@$(MAKE) --no-print-directory build
	$(RUN) examples/$@.lua

# The C core on its own, from C (csrc/ without the lua_*.c binding files).
CORE_ONLY = $(filter-out csrc/lua_%.c,$(CORE_SRC))
build/core_test: tests/c/core_test.c $(CORE_ONLY) $(CORE_HDR)
	@mkdir -p build
	$(CC) $(WARN) $(FPFLAGS) $(CFLAGS) -Icsrc tests/c/core_test.c $(CORE_ONLY) -o $@ -lm

# A test-only Lua module that fails a chosen allocation (spec/oom_spec.lua).
build/failalloc.so: tests/c/failalloc.c
	@mkdir -p build
	$(CC) $(WARN) $(CFLAGS) -fPIC -shared -I$(LUA_INC) $< -o $@ -ldl

test: deps-test
	@$(MAKE) --no-print-directory build build/core_test build/failalloc.so
	build/core_test
	$(RUN) $$(command -v busted) spec

# The specs that create and drop clips, rigs, animators and tracks, under
# valgrind: any definite leak or memory error fails.
MEMCHECK_SPECS = spec/animator_spec.lua spec/callbacks_spec.lua spec/timing_spec.lua spec/sampling_spec.lua \
                 spec/retarget_spec.lua spec/errors_spec.lua
memcheck: deps-test
	@command -v valgrind >/dev/null || { echo "memcheck needs valgrind: apt-get install valgrind" >&2; exit 1; }
	@$(MAKE) --no-print-directory build build/core_test build/failalloc.so
	valgrind --quiet --leak-check=full --errors-for-leak-kinds=all --error-exitcode=99 build/core_test
	ANIM_MEMCHECK=1 $(RUN:$(LUA)=valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $(LUA)) \
	  $$(command -v busted) $(MEMCHECK_SPECS)

# Workload W1 of ../shared/bench (prints figures, asserts nothing).
bench: deps
	@$(MAKE) --no-print-directory build
	$(RUN) bench/w1.lua
	$(RUN) bench/w1.lua --euler

# Lua lint (Debian's lua-check) and C warnings as errors (the build).
lint:
	@command -v luacheck >/dev/null || { echo "lint needs luacheck: apt-get install lua-check" >&2; exit 1; }
	luacheck -q lua spec bin/anim bench examples

clean:
	rm -rf build csrc/*.o
