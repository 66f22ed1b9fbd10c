# anim: `make demo` runs the main example, `make test` runs the specs.
# Both install missing Debian packages first (scripts/deps.sh).
# The Lua to build for and test under: lua5.4 (the default), lua5.3,
# lua5.2, lua5.1 or luajit (`make test LUA=luajit`).  Its headers are
# Debian's for it; the core built for it goes to build/ (5.4) or
# build/$(LUA)/, so that builds for several runtimes live side by side.
LUA      ?= lua5.4
LUA_INC  ?= $(if $(filter luajit,$(LUA)),/usr/include/luajit-2.1,/usr/include/$(LUA))
BUILD    ?= $(if $(filter lua5.4,$(LUA)),build,build/$(LUA))
CC       ?= cc
CFLAGS   ?= -O2 -g
# The flags every build of the core uses, `luarocks make` too (it runs
# `make build` and `make install`: anim-dev-1.rockspec); `make lint` adds
# -Werror.
WARN      = -std=c99 -pedantic -Wall -Wextra
# the noise and curve maths must give the same bits everywhere: no FMA contraction
FPFLAGS   = -ffp-contract=off
# the batch update's worker threads (csrc/core/pool.c)
THREADS   = -pthread
# the module exports luaopen_anim_core alone (csrc/lua/lua_module.c): calls
# inside the core need no procedure linkage table
VISIBLE   = -fvisibility=hidden

# csrc/core/: the C core (no Lua header); csrc/lua/: the binding; csrc/io/:
# the readers' byte and file utilities of the same module (docs/architecture.md)
CORE_ONLY = $(wildcard csrc/core/*.c)
BIND_SRC  = $(wildcard csrc/lua/*.c)
IO_SRC    = $(wildcard csrc/io/*.c)
CORE_SRC  = $(CORE_ONLY) $(BIND_SRC) $(IO_SRC)
CORE_HDR  = $(wildcard csrc/core/*.h csrc/lua/*.h csrc/io/*.h)
CORE_SO   = $(BUILD)/anim/core.so
# the library of that Lua, for the programs that embed it (make tsan's
# interpreter, the fuzz targets)
LUA_LIB   = $(if $(filter luajit,$(LUA)),luajit-5.1,$(LUA))

# ANIM_LUA: the interpreter the specs run subprocesses (bin/anim, the
# examples) with, so that they test the same runtime.
LUA_PATHS = LUA_PATH="lua/?.lua;lua/?/init.lua;./?.lua;;" LUA_CPATH="$(BUILD)/?.so;;"
# (RUN_ENV: the environment alone, for a command in front of the
# interpreter: make memcheck's valgrind)
RUN_ENV = $(LUA_PATHS) LUA_PATH_5_4="lua/?.lua;lua/?/init.lua;./?.lua;;" LUA_CPATH_5_4="$(BUILD)/?.so;;" \
      LUA_PATH_5_3="lua/?.lua;lua/?/init.lua;./?.lua;;" LUA_CPATH_5_3="$(BUILD)/?.so;;" \
      LUA_PATH_5_2="lua/?.lua;lua/?/init.lua;./?.lua;;" LUA_CPATH_5_2="$(BUILD)/?.so;;" \
      ANIM_LUA=$(LUA)
RUN = $(RUN_ENV) $(LUA)

EXAMPLES  = walk events retarget convert sprite character statemachine

.PHONY: all build deps deps-test demo test test-long gltf-ref gltf-ref-deps memcheck bench bench-ref lint clean $(EXAMPLES)

all: build

deps:
	@LUA=$(LUA) LUA_INC=$(LUA_INC) sh scripts/deps.sh

deps-test:
	@LUA=$(LUA) LUA_INC=$(LUA_INC) sh scripts/deps.sh test

build: $(CORE_SO)

# One object per source file, with the headers it includes as its
# dependencies (-MMD, in the .d beside it): touching one file rebuilds
# what includes it, nothing else.
OBJ       = $(BUILD)/obj
CORE_OBJS = $(CORE_SRC:csrc/%.c=$(OBJ)/%.o)
$(OBJ)/%.o: csrc/%.c
	@mkdir -p $(@D)
	$(CC) $(WARN) $(FPFLAGS) $(CFLAGS) $(THREADS) $(VISIBLE) -fPIC -MMD -MP -I$(LUA_INC) -Icsrc -c $< -o $@
$(CORE_SO): $(CORE_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(THREADS) -shared $(CORE_OBJS) -o $@ -lm

# `make install`: what `luarocks make` installs (it sets the INST_* to the
# rock's folders): the core, every Lua file under lua/ (by folder: no list
# to forget one), and the command.
INST_LIBDIR ?= /usr/local/lib/lua/5.4
INST_LUADIR ?= /usr/local/share/lua/5.4
INST_BINDIR ?= /usr/local/bin
LUA_FILES = $(shell find lua -name '*.lua' | sort)
.PHONY: install
install: $(CORE_SO)
	mkdir -p $(INST_LIBDIR)/anim $(INST_BINDIR)
	cp $(CORE_SO) $(INST_LIBDIR)/anim/core.so
	for f in $(LUA_FILES:lua/%=%); do mkdir -p $(INST_LUADIR)/$$(dirname $$f) && cp lua/$$f $(INST_LUADIR)/$$f || exit 1; done
	cp bin/anim $(INST_BINDIR)/anim

demo: deps
	@$(MAKE) --no-print-directory build
	$(RUN) examples/walk.lua

# `make love`: the LÖVE 11 example (examples/love/), on the core built for
# LÖVE's LuaJIT; `make love-test`: its test under Xvfb (spec/love_spec.lua:
# screenshots in build/love/).  Both install love (and xvfb) as the other
# targets install their packages.
.PHONY: love love-test
love:
	@LUA=luajit sh scripts/deps.sh love
	@$(MAKE) --no-print-directory build LUA=luajit
	love examples/love
love-test:
	@LUA=luajit sh scripts/deps.sh love
	@$(MAKE) --no-print-directory build LUA=luajit
	$(RUN) $$(command -v busted) --tags=long spec/love_spec.lua

# `make love3d`: the 3D example (examples/love3d/: the Fox of ../shared/data
# skinned on the GPU; `make love3d ARGS=--crowd` starts in its crowd of 500);
# `make love3d-test`: spec/love3d_spec.lua, the shader's arithmetic
# mirrored in Lua, then the check mode under Xvfb (screenshots in
# build/love3d/, the crowd's frame time printed).
.PHONY: love3d love3d-test
ARGS ?=
love3d:
	@LUA=luajit sh scripts/deps.sh love
	@$(MAKE) --no-print-directory build LUA=luajit
	love examples/love3d $(ARGS)
love3d-test:
	@LUA=luajit sh scripts/deps.sh love
	@$(MAKE) --no-print-directory build LUA=luajit
	@$(MAKE) --no-print-directory build $(BUILD)/bytedata.so
	$(RUN) $$(command -v busted) spec/love3d_spec.lua

# `make love2d`: the 2D example (examples/love2d/: a character from a Spine
# JSON export drawn by anim.love, under a state machine, its arm aiming at
# the mouse by IK); `make love2d-test`: spec/love2d_spec.lua, its check mode
# under Xvfb (screenshots in build/love2d/); `make love2d-hero` writes the
# character's files again (tools/make-love2d-hero.lua; needs rsvg-convert).
.PHONY: love2d love2d-test love2d-hero
love2d:
	@LUA=luajit sh scripts/deps.sh love
	@$(MAKE) --no-print-directory build LUA=luajit
	love examples/love2d $(ARGS)
love2d-test:
	@LUA=luajit sh scripts/deps.sh love
	@$(MAKE) --no-print-directory build LUA=luajit
	$(RUN) $$(command -v busted) --tags=long spec/love2d_spec.lua
love2d-hero:
	@command -v rsvg-convert >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get install -y librsvg2-bin; } || \
	  { echo "love2d-hero needs rsvg-convert: apt-get install librsvg2-bin" >&2; exit 1; }
	$(RUN) tools/make-love2d-hero.lua examples/love2d/hero

# `make env`: the shell lines that let one's own scripts `require "anim"`
# from this checkout (`eval "$(make env)"`, then `lua5.4 mygame.lua` from
# any folder; LUA=luajit for LuaJIT's).  It builds the core first; what
# the build and the package check print goes to stderr, so that stdout
# holds the export lines alone.
.PHONY: env
env:
	@LUA=$(LUA) LUA_INC=$(LUA_INC) sh scripts/deps.sh >&2
	@$(MAKE) --no-print-directory build >&2
	@LUA=$(LUA) sh scripts/env.sh "$(CURDIR)/lua" "$(CURDIR)/$(BUILD)"

# `make love-dist OUT=dir`: what a LÖVE 11 game needs beside its main.lua
# to `require "anim"` (scripts/love_dist.sh: the Lua modules, the core
# built for LÖVE's LuaJIT, lua-cjson for LuaJIT; LOVE_IMPORTERS=1 adds
# the importers' LPeg and expat).  spec/love_dist_spec.lua runs a game
# from it under Xvfb.
.PHONY: love-dist
OUT ?=
LOVE_IMPORTERS ?=
love-dist:
	@[ -n "$(OUT)" ] || { echo "make love-dist: say where: make love-dist OUT=mygame" >&2; exit 2; }
	@LUA=luajit sh scripts/deps.sh love
	@$(MAKE) --no-print-directory build LUA=luajit
	@LOVE_IMPORTERS=$(LOVE_IMPORTERS) sh scripts/love_dist.sh "$(OUT)" build/luajit/anim/core.so

# `make events`, `make retarget`, `make convert`, `make sprite`, `make character`,
# `make statemachine`: the other examples.
$(EXAMPLES): deps
	@$(MAKE) --no-print-directory build
	$(RUN) examples/$@.lua

# spec/data/animated_morph_cube_three.json: three.js's morph target weights of
# ../shared/data/gltf/AnimatedMorphCube at chosen times (spec/gltf_morph_spec.lua
# samples property channels against them).  Needs node and npm; the package
# (three) goes to tools/morph-reference/node_modules, never committed.
.PHONY: morph-reference
morph-reference:
	cd tools/morph-reference && npm install --no-audit --no-fund && npm run reference

# spec/data/skinned_{cesium_man,fox,rigged_figure}_three.json: three.js's
# skinned vertex positions (world space) of ../shared/data/gltf CesiumMan, Fox
# and RiggedFigure, each clip at 5 times (spec/skin_vertices_spec.lua checks
# anim.skin_vertices against them).  Needs node and npm; the package (three)
# goes to tools/skin-reference/node_modules, never committed.
.PHONY: skin-reference
skin-reference:
	cd tools/skin-reference && npm install --no-audit --no-fund && npm run reference

# spec/data/dragonbones_{hero,hero45}.json: DragonBones' own MIT runtime
# (npm @cocos/dragonbones-js) playing spec/fixtures/dragonbones (bones' world
# matrices, slots' display index, colour and draw order, 10 frame instants
# per animation; spec/dragonbones_spec.lua compares the importer against
# them).  Needs node and npm; the package goes to a cache outside the tree
# (tools/dragonbones-reference/run says where), never committed.  The
# fixtures themselves: lua5.4 tools/make-dragonbones-fixtures.
.PHONY: dragonbones-reference dragonbones-fixtures
dragonbones-reference:
	tools/dragonbones-reference/run
dragonbones-fixtures:
	lua5.4 tools/make-dragonbones-fixtures

# spec/fixtures/spine/: the hand-designed Spine skeleton (3.8, 4.0, 4.1 and 4.2
# JSON) and its two atlases, written by tools/make-spine-fixtures; committed
# (spec/spine_spec.lua checks the script still writes them).
.PHONY: spine-fixtures
spine-fixtures:
	$(LUA) tools/make-spine-fixtures spec/fixtures/spine

# The C core on its own, from C (csrc/core/ without the binding).
# The skinning matrices from C alone (tests/c/skin_test.c).
build/skin_test: tests/c/skin_test.c tests/c/check.h $(CORE_ONLY:csrc/%.c=$(OBJ)/%.o) $(CORE_HDR)
	@mkdir -p build
	$(CC) $(WARN) $(FPFLAGS) $(CFLAGS) $(THREADS) -Icsrc/core tests/c/skin_test.c $(CORE_ONLY:csrc/%.c=$(OBJ)/%.o) -o $@ -lm

# A 2D skeleton's attachments in world space from C alone (tests/c/verts2d_test.c).
build/verts2d_test: tests/c/verts2d_test.c tests/c/check.h $(CORE_ONLY:csrc/%.c=$(OBJ)/%.o) $(CORE_HDR)
	@mkdir -p build
	$(CC) $(WARN) $(FPFLAGS) $(CFLAGS) $(THREADS) -Icsrc/core tests/c/verts2d_test.c $(CORE_ONLY:csrc/%.c=$(OBJ)/%.o) -o $@ -lm

build/core_test: tests/c/core_test.c tests/c/check.h $(CORE_ONLY:csrc/%.c=$(OBJ)/%.o) $(CORE_HDR)
	@mkdir -p build
	$(CC) $(WARN) $(FPFLAGS) $(CFLAGS) $(THREADS) -Icsrc/core tests/c/core_test.c $(CORE_ONLY:csrc/%.c=$(OBJ)/%.o) -o $@ -lm

# A test-only Lua module standing in for LÖVE's ByteData (spec/skin_spec.lua).
$(BUILD)/bytedata.so: tests/c/bytedata.c
	@mkdir -p $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -fPIC -shared -I$(LUA_INC) $< -o $@

# A test-only Lua module that fails a chosen allocation (spec/oom_spec.lua).
$(BUILD)/failalloc.so: tests/c/failalloc.c
	@mkdir -p $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -fPIC -shared -I$(LUA_INC) $< -o $@ -ldl

# The tests come in two tiers.  `make test` (the README's command, about
# 40 s): the C test and every spec not tagged `long`.  `make test-long`:
# the specs tagged `long` (#long in a describe or it: out of memory at
# every allocation of every example, forty more random scenes of the
# single and batch paths, ...) and the 24-hour soak.  make test runs each
# spec file in a busted process of its own, JOBS at a time
# (scripts/specs.sh: the slowest first, by the times of the last run in
# $(BUILD)/test/times), so that both cores work until the end; a file's
# process sees only its own heap (spec/oom_spec.lua costs in proportion to
# the heap it finds, and the finalizers of spec/finalized_spec.lua run
# inside a call only while the call allocates a share of the heap).
BUSTED = $(RUN) $$(command -v busted)
JOBS  ?= 2
SPEC_FILES = $(sort $(wildcard spec/*_spec.lua))
# (the runner, with the environment the specs need)
SPECS_RUN = $(RUN_ENV) LUA=$(LUA) JOBS=$(JOBS) sh scripts/specs.sh
# (a spec file takes 10 s at most on any runtime: one that runs 180 s hangs,
# and fails then rather than holding the run up)
TEST_TIMEOUT ?= 180
test: deps-test
	@$(MAKE) --no-print-directory -j$(JOBS) build build/core_test build/skin_test build/verts2d_test $(BUILD)/failalloc.so $(BUILD)/bytedata.so
	@# the LÖVE example's spec runs LÖVE on build/luajit's core when one was built: keep it current
	@if [ -e build/luajit/anim/core.so ] && [ "$(LUA)" != luajit ]; then $(MAKE) --no-print-directory -j$(JOBS) build LUA=luajit; fi
	build/core_test
	build/skin_test
	build/verts2d_test
	LOGS=$(BUILD)/test TIMEOUT=$(TEST_TIMEOUT) $(SPECS_RUN) --exclude-tags=long -- $(SPEC_FILES)

# three.js's reading of the glTF files anim.export_gltf writes is among the
# long specs (it installs three.js first).  Two at once (the machine's two
# cores): the long specs in one busted (the LÖVE ones among them, one
# Xvfb at a time), and beside it the long sweeps of oom_spec, then the
# soak (its log printed after the specs'); either failing fails it.
.PHONY: test-long
test-long: deps-test gltf-ref-deps
	@$(MAKE) --no-print-directory build build/core_test $(BUILD)/failalloc.so $(BUILD)/bytedata.so
	@LUA=luajit sh scripts/deps.sh love
	@$(MAKE) --no-print-directory build LUA=luajit
	@mkdir -p $(BUILD)/test-long
	{ $(BUSTED) --tags=long spec/oom_spec.lua && $(RUN) bench/soak.lua 24; } > $(BUILD)/test-long/oom-soak.log 2>&1 & pid=$$!; \
	  st=0; $(BUSTED) --tags=long --exclude-pattern=oom_spec spec || st=1; \
	  wait $$pid || st=1; cat $(BUILD)/test-long/oom-soak.log; exit $$st
# `make gltf-ref`: three.js (tools/gltf-ref, from the npm registry: node and
# npm needed) loads the glTF files anim.export_gltf writes and plays them;
# spec/gltf_three_spec.lua compares with what the module plays.
GLTF_REF = tools/gltf-ref
gltf-ref-deps: $(GLTF_REF)/node_modules/three/package.json
$(GLTF_REF)/node_modules/three/package.json: $(GLTF_REF)/package.json $(GLTF_REF)/package-lock.json
	@command -v npm >/dev/null || { echo "gltf-ref needs node and npm (Debian: apt-get install nodejs npm)" >&2; exit 1; }
	cd $(GLTF_REF) && npm ci --no-audit --no-fund
	@touch $@
gltf-ref: deps-test gltf-ref-deps
	@$(MAKE) --no-print-directory build
	$(RUN) $$(command -v busted) --tags=long spec/gltf_three_spec.lua

# `make memcheck`: the C test and the specs that reach the C core under
# valgrind's memcheck: any invalid access, use of an uninitialised value
# or definite leak fails.  Each spec file runs in a valgrind process of
# its own, JOBS at a time, the slowest first (scripts/specs.sh: logs and
# times in build/memcheck/).  Left out (MEMCHECK_SKIP): the specs whose
# subject is Lua code or other processes -- the importers, the encoder,
# the exporter, the command (2D too) and the examples (their subprocesses
# never ran under valgrind), the docs' and layers' checks, LuaJIT's
# traversal guards, the installer -- and the
# threaded specs (make tsan runs them under ThreadSanitizer): make asan
# runs all of them but the installer's with the core under ASan and UBSan, and `make
# memcheck-full` runs every spec file under valgrind.  Seven specs do less
# under valgrind (ANIM_MEMCHECK; docs/robustness.md says what).  SPECS=... runs
# some specs only (memcheck, memcheck-full and asan).
SPECS         ?= spec
MEMCHECK_SKIP  = encode cli install examples runtimes love doc_examples architecture_doc layers blockbench molang \
                 xml import_rules import_budget import_fields realfiles gltf_export gltf_three gltf_roundtrip gltf_convert threads own_code lint_scripts docs_refs api_index cli_pictures unknown_fields messages \
                 graph_format graph_cli spine spine_errors spine_atlas dragonbones dragonbones_errors reduce gltf_decode \
                 cli_2d luajit
MEMCHECK_SPECS = $(filter-out $(MEMCHECK_SKIP:%=spec/%_spec.lua),$(SPEC_FILES))
VALGRIND = valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect \
           --errors-for-leak-kinds=definite --error-exitcode=99 --keep-debuginfo=yes
# (one target for both: the list of spec files in $1)
MEMCHECK_RUN = command -v valgrind >/dev/null || { echo "memcheck needs valgrind: apt-get install valgrind" >&2; exit 1; }; \
	$(MAKE) --no-print-directory build build/core_test build/skin_test build/verts2d_test $(BUILD)/failalloc.so $(BUILD)/bytedata.so && \
	valgrind --quiet --leak-check=full --errors-for-leak-kinds=all --error-exitcode=99 build/core_test && \
	valgrind --quiet --leak-check=full --errors-for-leak-kinds=all --error-exitcode=99 build/skin_test && \
	valgrind --quiet --leak-check=full --errors-for-leak-kinds=all --error-exitcode=99 build/verts2d_test && \
	ANIM_MEMCHECK=1 LOGS=build/memcheck PREFIX="$(VALGRIND)" TIMEOUT=2400 $(SPECS_RUN) --exclude-tags=long -- \
	  $$(if [ "$(SPECS)" != spec ]; then echo "$(SPECS)"; else echo "$(1)"; fi) && \
	echo "make memcheck: no valgrind error (99: a valgrind error, in the log of that file)"
.PHONY: memcheck-full
memcheck: deps-test
	@$(call MEMCHECK_RUN,$(MEMCHECK_SPECS))
memcheck-full: deps-test
	@$(call MEMCHECK_RUN,$(SPEC_FILES))

# ---- The CI checks: sanitizers and fuzzing (.ci/run runs them after `make test`;
# `scripts/deps.sh ci` installs valgrind, clang and its libFuzzer runtime) ----
.PHONY: deps-ci asan tsan fuzz fuzz-ci fuzz-build

deps-ci:
	@LUA=$(LUA) LUA_INC=$(LUA_INC) sh scripts/deps.sh ci

# `make asan`: the whole busted suite under AddressSanitizer and UBSan.  The
# core is built with clang's sanitizers into build/asan/anim/core.so (build/
# is left alone), and a copy of the checkout in build/asan/tree has it as its
# build/anim/core.so, so that the specs' subprocesses (bin/anim, the
# examples) run it too.  The stock lua5.4 runs with clang's runtime preloaded
# (one library for ASan, UBSan and LeakSanitizer; gcc's libubsan would not
# write its reports to log_path); every subprocess inherits LD_PRELOAD and
# the options.  Leaks are looked for in every lua5.4 process (the file
# build/asan/options/lua5.4, read through include_if_exists=%b), not in the
# system tools the specs run (sed, script, cc1... free not all at exit): no
# suppression list.  Every report is written to build/asan/logs/ and fails
# the target, whatever the spec did with it.  Each spec file runs in a
# process of its own, JOBS at a time, as in make test.  Left out
# (ASAN_SKIP): spec/install_spec.lua, whose subject is the core luarocks
# compiles with its own flags, not the sanitized one (a quarter of the
# target's time in CI: the compiler ran with the runtime preloaded).
SAN_CC     = clang
SAN_CFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fsanitize=float-cast-overflow \
             -fno-sanitize-recover=all -shared-libsan
# (the runtime of this machine's architecture: x86_64, aarch64, ...)
SAN_RT     = $$($(SAN_CC) -print-file-name=libclang_rt.asan-$$(uname -m).so)
ASAN_DIR   = build/asan
ASAN_SKIP  = install
ASAN_SPECS = $(filter-out $(ASAN_SKIP:%=spec/%_spec.lua),$(SPEC_FILES))
ASAN_SO    = $(ASAN_DIR)/anim/core.so
ASAN_ENV   = ANIM_SHARED="$${ANIM_SHARED:-$(CURDIR)/../shared}" \
  LD_PRELOAD="$(SAN_RT) $(CURDIR)/$(ASAN_DIR)/keep_modules.so" \
  ASAN_OPTIONS="detect_leaks=0:include_if_exists=$(CURDIR)/$(ASAN_DIR)/options/%b:log_path=$(CURDIR)/$(ASAN_DIR)/logs/report:detect_stack_use_after_return=1" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$(CURDIR)/$(ASAN_DIR)/logs/report"

ASAN_OBJS  = $(CORE_SRC:csrc/%.c=$(ASAN_DIR)/obj/%.o)
$(ASAN_DIR)/obj/%.o: csrc/%.c
	@mkdir -p $(@D)
	$(SAN_CC) -std=c99 -pedantic -Wall -Wextra $(FPFLAGS) $(SAN_CFLAGS) $(THREADS) -fPIC -MMD -MP -I$(LUA_INC) -Icsrc -c $< -o $@
$(ASAN_SO): $(ASAN_OBJS)
	@mkdir -p $(@D)
	$(SAN_CC) $(SAN_CFLAGS) $(THREADS) -shared $(ASAN_OBJS) -o $@ -lm

# keep_modules.so makes dlclose a no-op: Lua unloads C modules when its state
# closes, and a leak report is then written at exit with frames no one can
# name any more.
$(ASAN_DIR)/keep_modules.so:
	@mkdir -p $(ASAN_DIR)
	printf 'int dlclose(void *handle);\nint dlclose(void *handle) { (void)handle; return 0; }\n' | \
	  $(SAN_CC) -O1 -fPIC -shared -x c - -o $@

asan: deps-ci
	@$(MAKE) --no-print-directory $(ASAN_SO) $(ASAN_DIR)/keep_modules.so $(BUILD)/failalloc.so $(BUILD)/bytedata.so
	@rm -rf $(ASAN_DIR)/tree $(ASAN_DIR)/logs
	@mkdir -p $(ASAN_DIR)/tree/build/anim $(ASAN_DIR)/logs $(ASAN_DIR)/options
	@for f in * .busted; do case "$$f" in build) ;; *) cp -R "$$f" $(ASAN_DIR)/tree/ ;; esac; done
	@cp $(ASAN_SO) $(ASAN_DIR)/tree/build/anim/core.so
	@cp $(BUILD)/failalloc.so $(ASAN_DIR)/tree/$(BUILD)/failalloc.so
	@cp $(BUILD)/bytedata.so $(ASAN_DIR)/tree/$(BUILD)/bytedata.so
	@echo detect_leaks=1 > $(ASAN_DIR)/options/lua5.4
	@echo "the specs in $(ASAN_DIR)/tree, each file in a lua5.4 of its own with $(SAN_RT) preloaded"
	@cd $(ASAN_DIR)/tree && $(ASAN_ENV) LOGS=$(CURDIR)/$(ASAN_DIR)/specs $(SPECS_RUN) --exclude-tags=long -- \
	  $$(if [ "$(SPECS)" != spec ]; then echo "$(SPECS)"; else echo "$(ASAN_SPECS)"; fi); status=$$?; \
	  cd $(CURDIR); \
	  if [ -n "$$(ls $(ASAN_DIR)/logs)" ]; then \
	    for f in $(ASAN_DIR)/logs/*; do echo "==== $$f"; cat "$$f"; done; \
	    echo "make asan: sanitizer reports above (also in $(ASAN_DIR)/logs/)" >&2; exit 1; \
	  fi; \
	  [ $$status = 0 ] || { echo "make asan: busted failed under the sanitizers" >&2; exit $$status; }; \
	  echo "make asan: no sanitizer report"

# `make tsan`: the threaded specs (TSAN_SPECS) under ThreadSanitizer.  The
# core is built with clang's -fsanitize=thread into build/tsan/anim/core.so;
# TSan's runtime cannot be preloaded into the stock lua5.4 (it crashes: the
# runtime must start with the program), so build/tsan/lua, a plain Lua
# interpreter built with TSan (tests/c/tsan_lua.c), runs busted.  Any report
# fails the target (exitcode 66).
TSAN_DIR   = build/tsan
TSAN_SO    = $(TSAN_DIR)/anim/core.so
TSAN_SPECS ?= spec/threads_spec.lua spec/batch_bits_spec.lua spec/skin_spec.lua spec/graph_runtime_spec.lua
TSAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=thread
.PHONY: tsan
$(TSAN_SO): $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(TSAN_DIR)/anim
	$(SAN_CC) $(WARN) $(FPFLAGS) $(TSAN_FLAGS) $(THREADS) -fPIC -shared -I$(LUA_INC) -Icsrc $(CORE_SRC) -o $@ -lm
$(TSAN_DIR)/lua: tests/c/tsan_lua.c
	@mkdir -p $(TSAN_DIR)
	$(SAN_CC) $(WARN) $(TSAN_FLAGS) -I$(LUA_INC) $< -o $@ -l$(LUA_LIB) -lm -ldl -Wl,-E
tsan: deps-ci
	@$(MAKE) --no-print-directory $(TSAN_SO) $(TSAN_DIR)/lua $(BUILD)/bytedata.so
	@cp $(BUILD)/bytedata.so $(TSAN_DIR)/bytedata.so
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" ANIM_SHARED="$${ANIM_SHARED:-$(CURDIR)/../shared}" \
	  LUA_PATH="lua/?.lua;lua/?/init.lua;./?.lua;;" LUA_CPATH="$(TSAN_DIR)/?.so;;" ANIM_LUA=$(LUA) \
	  $(TSAN_DIR)/lua $$(command -v busted) --exclude-tags=long $(TSAN_SPECS) && echo "make tsan: no ThreadSanitizer report"

# `make fuzz [FUZZ_TIME=s]`: each libFuzzer target for FUZZ_TIME seconds, two
# at a time (FUZZ_JOBS; the machine has two cores).  A target embeds a Lua
# 5.4 state, the core compiled in and fuzz/<target>.lua as its driver
# (fuzz/README.md).  New inputs go to build/fuzz/corpus/<target>, crashes to
# build/fuzz/artifacts/<target>/, the whole log to build/fuzz/<target>.log;
# the committed seeds are fuzz/corpus/<target>, and fuzz/regressions/<target>
# is run first.  `make fuzz-ci`: each for 36 s, as CI does (nine
# targets, five rounds of two: the three minutes of fuzzing six targets
# had; with the builds about four).
FUZZ_CC      = clang
FUZZ_TIME   ?= 300
FUZZ_JOBS   ?= 2
FUZZ_TARGETS = decode animator script import state animc spine atlas dragonbones
FUZZ_DIR     = build/fuzz
FUZZ_CFLAGS  = -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fsanitize=float-cast-overflow \
               -fno-sanitize-recover=all $(FPFLAGS)
# a time limit per input (a hang is a bug), and no single allocation over
# 256 MiB from inputs of a few KiB (a size claimed in a file is not trusted);
# the drivers of script and import hold each input to a budget of their own
# (fuzz/harness.c: CPU seconds, memory)
FUZZ_FLAGS   = -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1
FUZZ_FLAGS_decode   = -max_len=8192
# (programs of a few hundred operations from the start)
FUZZ_FLAGS_animator = -max_len=1024 -len_control=0
FUZZ_FLAGS_script   = -max_len=1024 -len_control=0
# (texts of a few kB: the hostile files of issue 19 are 300 bytes to 4 kB)
FUZZ_FLAGS_import   = -max_len=8192
# (a scene of up to 24 operations, then up to 24 mutations of its state)
FUZZ_FLAGS_state    = -max_len=512 -len_control=0
# (.animc files of a few kB: the seeds are 0.4 to 2.7 kB)
FUZZ_FLAGS_animc    = -max_len=8192
# (the 2D importers: the hero fixtures are 14 to 17 kB, an atlas 0.5 to 1 kB)
FUZZ_FLAGS_spine       = -max_len=32768
FUZZ_FLAGS_dragonbones = -max_len=32768
FUZZ_FLAGS_atlas       = -max_len=4096

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

# The core compiled once for all the targets (only the harness differs, by
# its driver): its objects instrumented as the targets are, without
# libFuzzer's main (fuzzer-no-link), which each target's link adds.
COMMA    := ,
FUZZ_OBJ = $(CORE_SRC:csrc/%.c=$(FUZZ_DIR)/obj/%.o)
.SECONDARY: $(FUZZ_OBJ)
$(FUZZ_DIR)/obj/%.o: csrc/%.c $(CORE_HDR)
	@mkdir -p $(dir $@)
	@$(FUZZ_CC) $(subst -fsanitize=fuzzer$(COMMA),-fsanitize=fuzzer-no-link$(COMMA),$(FUZZ_CFLAGS)) -I$(LUA_INC) -Icsrc \
	  -c $< -o $@

$(FUZZ_DIR)/fuzz_%: fuzz/harness.c $(FUZZ_OBJ)
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DFUZZ_DRIVER='"$*"' -DANIM_ROOT='"$(CURDIR)"' -I$(LUA_INC) -Icsrc \
	  fuzz/harness.c $(FUZZ_OBJ) -o $@ -l$(LUA_LIB) -lm $(THREADS)

# (one target: its run in the background, its exit status in a file)
FUZZ_RUN = mkdir -p $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/artifacts/$$t; \
	  dict=; [ -f fuzz/$$t.dict ] && dict=-dict=fuzz/$$t.dict; \
	  echo "fuzz_$$t: $(FUZZ_TIME) s, log in $(FUZZ_DIR)/$$t.log"; \
	  case $$t in decode) flags="$(FUZZ_FLAGS_decode)" ;; animator) flags="$(FUZZ_FLAGS_animator)" ;; \
	    script) flags="$(FUZZ_FLAGS_script)" ;; import) flags="$(FUZZ_FLAGS_import)" ;; \
	    state) flags="$(FUZZ_FLAGS_state)" ;; spine) flags="$(FUZZ_FLAGS_spine)" ;; \
	    dragonbones) flags="$(FUZZ_FLAGS_dragonbones)" ;; atlas) flags="$(FUZZ_FLAGS_atlas)" ;; *) flags= ;; esac; \
	  ( $(FUZZ_DIR)/fuzz_$$t $(FUZZ_FLAGS) $$flags $$dict -max_total_time=$(FUZZ_TIME) \
	      -artifact_prefix=$(FUZZ_DIR)/artifacts/$$t/ $(FUZZ_DIR)/corpus/$$t fuzz/corpus/$$t \
	      $$(ls -d fuzz/regressions/$$t 2>/dev/null) > $(FUZZ_DIR)/$$t.log 2>&1; \
	    echo $$? > $(FUZZ_DIR)/$$t.status ) &

fuzz: deps-ci
	@$(MAKE) --no-print-directory fuzz-build
	@set -- $(FUZZ_TARGETS); while [ $$# -gt 0 ]; do \
	  i=0; while [ $$# -gt 0 ] && [ $$i -lt $(FUZZ_JOBS) ]; do t=$$1; shift; i=$$((i + 1)); $(FUZZ_RUN) done; wait; \
	done; \
	status=0; for t in $(FUZZ_TARGETS); do \
	  if [ "$$(cat $(FUZZ_DIR)/$$t.status)" = 0 ]; then \
	    echo "fuzz_$$t: $$(grep -E '^Done [0-9]+ runs' $(FUZZ_DIR)/$$t.log), $$(ls $(FUZZ_DIR)/corpus/$$t | wc -l) inputs in $(FUZZ_DIR)/corpus/$$t, peak RSS $$(sed -n 's/^stat::peak_rss_mb: *//p' $(FUZZ_DIR)/$$t.log) MB"; \
	  else \
	    echo "==== fuzz_$$t FAILED (exit $$(cat $(FUZZ_DIR)/$$t.status)); the end of $(FUZZ_DIR)/$$t.log:"; \
	    tail -n 80 $(FUZZ_DIR)/$$t.log; \
	    echo "==== reproduce: $(FUZZ_DIR)/fuzz_$$t $$(ls -t $(FUZZ_DIR)/artifacts/$$t/* 2>/dev/null | head -n 1)"; \
	    status=1; \
	  fi; \
	done; exit $$status

fuzz-ci:
	@$(MAKE) --no-print-directory fuzz FUZZ_TIME=36

# The benchmarks of bench/README.md: W1 (update, update+read, W1e) and the
# hand-tuned C loops for N = 1, 100, 1000, 10000, loading, callbacks,
# allocations; JSON lines to build/bench/results.jsonl, the table to
# build/bench/table.md (prints figures, asserts only the W1 cross-check).
# BENCH_ARGS passes options to bench/run.lua, e.g. BENCH_ARGS='--n 1,100'.
bench: deps
	@$(MAKE) --no-print-directory build bench-ref
	$(RUN) bench/run.lua $(BENCH_ARGS)

# The hand-tuned C loops of ../shared/bench/README.md (-O2, as measured
# there), the float loop again as a Lua module (bench.w1float:
# bench/w1pair.lua times it beside the batch update in one process),
# malloc's figures for Lua (bench.memstat), a monotonic wall clock
# for Lua (bench.wallclock: the threaded update's timing), the least
# delivery of a callback from C (bench.callfloor: bench/callbacks.lua times
# it beside the module's) and the malloc call counter bench/allocs.lua
# preloads.
BENCH_CFLAGS = -std=c99 -pedantic -Wall -Wextra -Werror -O2
bench-ref: build/bench/w1_ref build/bench/w1float.so build/bench/memstat.so build/bench/malloc_count.so build/bench/wallclock.so \
           build/bench/callfloor.so
build/bench/w1_ref: bench/ref/w1_ref.c
	@mkdir -p build/bench
	$(CC) $(BENCH_CFLAGS) $< -o $@ -lm
build/bench/w1float.so: bench/ref/w1_ref.c
	@mkdir -p build/bench
	$(CC) $(BENCH_CFLAGS) -DW1_REF_LUA -fPIC -shared -I$(LUA_INC) $< -o $@ -lm
build/bench/memstat.so: bench/ref/memstat.c
	@mkdir -p build/bench
	$(CC) $(BENCH_CFLAGS) -fPIC -shared -I$(LUA_INC) $< -o $@
build/bench/wallclock.so: bench/ref/wallclock.c
	@mkdir -p build/bench
	$(CC) $(BENCH_CFLAGS) -fPIC -shared -I$(LUA_INC) $< -o $@
build/bench/callfloor.so: bench/ref/callfloor.c
	@mkdir -p build/bench
	$(CC) $(BENCH_CFLAGS) -fPIC -shared -I$(LUA_INC) $< -o $@
build/bench/malloc_count.so: bench/ref/malloc_count.c
	@mkdir -p build/bench
	$(CC) $(BENCH_CFLAGS) -fPIC -shared $< -o $@

# Issue 38's state machine figures (bench/graph.lua): 1,000 characters under
# a 2-layer graph against the same tracks with no controller, on 1 and 2
# threads, and with no input (what the stage costs when nothing happens);
# what a transition allocates (malloc_count.so); and, when
# valgrind is installed, both sets' instruction counts per update
# (callgrind: repeatable where times are not).  make bench runs the first
# two.
.PHONY: bench-graph bench-grind
bench-graph: deps
	@$(MAKE) --no-print-directory build bench-ref
	$(RUN) bench/graph.lua
	$(RUN) bench/graph.lua --quiet --threads 1
	LD_PRELOAD=build/bench/malloc_count.so $(RUN) bench/graph.lua --allocs
	@if command -v valgrind >/dev/null && [ -f /usr/include/valgrind/callgrind.h ]; then \
	  $(MAKE) --no-print-directory bench-grind; else echo "(no valgrind: no instruction counts)"; fi
bench-grind: build/bench/grind.so
	$(RUN) bench/graph.lua --grind
	$(RUN) bench/graph.lua --grind --quiet
build/bench/grind.so: bench/ref/grind.c
	@mkdir -p build/bench
	$(CC) $(BENCH_CFLAGS) -fPIC -shared -I$(LUA_INC) $< -o $@

# Issue 39's skinning figures (bench/skin.lua): W1 at N = 1000, update +
# skin into a module buffer against the update alone (same run, slices
# taken in turn), per animator and as anim.update's skin, on 1 and 2
# threads; then, with malloc_count.so, what each set allocates a frame.
.PHONY: bench-skin
bench-skin: deps
	@$(MAKE) --no-print-directory build bench-ref
	$(RUN) bench/skin.lua
	LD_PRELOAD=build/bench/malloc_count.so $(RUN) bench/skin.lua --rounds 1 --allocs

# The figures of issue 19 (bench/attacks.lua): peak RSS over the churn of
# big animators, the worst hostile update and import; fails over budget.
.PHONY: bench-attacks
bench-attacks: deps
	@$(MAKE) --no-print-directory build
	$(RUN) bench/attacks.lua

# Compressed clips (bench/compress.lua): bytes raw, .anim, .animc, ratio,
# worst and 99th-percentile error, load and sample times, per clip of the
# skinned glTF models and real Blockbench / Bedrock files of ../shared/data;
# then W1 with compressed clips beside the exact batch update.
.PHONY: bench-compress
bench-compress: deps
	@$(MAKE) --no-print-directory build
	$(RUN) bench/compress.lua
	$(RUN) bench/w1.lua --n 1000,10000 --runs 5 --batch
	$(RUN) bench/w1.lua --n 1000,10000 --runs 5 --batch --compressed

# The soak test of issue 9 (bench/soak.lua; not part of `make test`): looping
# clips for 24 simulated hours at 60 fps per animator, checking marker counts
# against loop counts, time within [0, length] and flat memory; prints one
# JSON line, fails on a failed check.  SOAK_HOURS=1 for a shorter run.
.PHONY: soak
SOAK_HOURS ?= 24
soak: deps
	@$(MAKE) --no-print-directory build
	$(RUN) bench/soak.lua $(SOAK_HOURS)

# Lua lint (Debian's lua-check, installed like the test packages) and
# the C sources compiled with warnings as errors.
# (and the sizes of the sources, the core's call graph: scripts/sizes.lua,
# scripts/callgraph.lua, docs/architecture.md)
lint:
	@LUA=$(LUA) LUA_INC=$(LUA_INC) sh scripts/deps.sh lint
	luacheck -q lua spec bin/anim bench examples fuzz
	lua5.4 scripts/sizes.lua $$(find csrc lua -name '*.c' -o -name '*.h' -o -name '*.lua') bin/anim
	@$(MAKE) --no-print-directory build
	lua5.4 scripts/callgraph.lua $(filter $(OBJ)/core/%,$(CORE_OBJS)) >/dev/null
	$(CC) $(WARN) -Werror $(FPFLAGS) $(THREADS) -fsyntax-only -I$(LUA_INC) -Icsrc $(CORE_SRC)
	$(CC) $(WARN) -Werror $(FPFLAGS) -fsyntax-only -Icsrc/core tests/c/core_test.c tests/c/skin_test.c tests/c/verts2d_test.c
	$(CC) $(WARN) -Werror -fsyntax-only -I$(LUA_INC) tests/c/failalloc.c tests/c/tsan_lua.c tests/c/bytedata.c
	$(CC) $(BENCH_CFLAGS) -fsyntax-only bench/ref/w1_ref.c bench/ref/malloc_count.c
	$(CC) $(BENCH_CFLAGS) -fsyntax-only -I$(LUA_INC) bench/ref/memstat.c bench/ref/wallclock.c bench/ref/callfloor.c
	$(CC) $(BENCH_CFLAGS) -fsyntax-only -I$(LUA_INC) -DW1_REF_LUA bench/ref/w1_ref.c
	@if [ -f /usr/include/valgrind/callgrind.h ]; then \
	  $(CC) $(BENCH_CFLAGS) -fsyntax-only -I$(LUA_INC) bench/ref/grind.c; fi

clean:
	rm -rf build csrc/*/*.o $(GLTF_REF)/node_modules

# (the headers each object was built from: make -MMD's lists)
-include $(CORE_OBJS:.o=.d) $(ASAN_OBJS:.o=.d)
