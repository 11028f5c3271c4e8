# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdma-doctor — top-level build.  `make` builds build/rdma-doctor; `make check` runs every test.
CC      ?= cc
BUILD   ?= build
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wformat=2 -Wno-format-nonliteral -Wvla -Wpointer-arith -Wcast-qual
CPPFLAGS += -D_GNU_SOURCE -Isrc
LDLIBS  ?=
# The policy file is parsed with inih (Debian: libinih-dev to build, libinih1 to run), loaded at run
# time with dlopen (util/dl.h) when a policy file is read: built against its header only, the
# program never links it, so that a run without a policy file (and every `ibstat`) does not map it.
INIH_OK := $(shell printf '\043include <ini.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo yes)
ifneq ($(INIH_OK),yes)
ifneq ($(MAKECMDGOALS),check)
$(error libinih-dev is missing: apt-get install -y libinih-dev)
endif
endif
# `probe` loads libibverbs at run time (dlopen; in libc since glibc 2.34) and is built against its
# headers only (Debian: libibverbs-dev): the program never links libibverbs.
VERBS_OK := $(shell printf '\043include <infiniband/verbs.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo yes)
ifneq ($(VERBS_OK),yes)
ifneq ($(MAKECMDGOALS),check)
$(error libibverbs-dev is missing (infiniband/verbs.h): apt-get install -y libibverbs-dev)
endif
endif
# Archive roots and snapshots use libarchive (Debian: libarchive-dev to build, libarchive13 to
# run), loaded at run time with dlopen like libibverbs: a directory root never loads it or its
# compression libraries.  Built against its headers only; the program never links it.
LARCHIVE_OK := $(shell printf '\043include <archive.h>\n\043include <archive_entry.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo yes)
ifneq ($(LARCHIVE_OK),yes)
ifneq ($(MAKECMDGOALS),check)
$(error libarchive-dev is missing (archive.h): apt-get install -y libarchive-dev)
endif
endif
# RPM hosts' databases are read with librpm (Debian: librpm-dev to build, librpm9 to run), loaded
# at run time with dlopen in a child process (model/rpmdb.h): a dpkg host never loads it.
RPM_OK := $(shell printf '\043include <rpm/rpmts.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo yes)
ifneq ($(RPM_OK),yes)
ifneq ($(MAKECMDGOALS),check)
$(error librpm-dev is missing (rpm/rpmts.h): apt-get install -y librpm-dev)
endif
endif

# `fleet` reads the nodes' JSON reports with yajl's streaming parser (Debian: libyajl-dev to build,
# libyajl2 to run), loaded at run time with dlopen like inih: no other command maps it.
YAJL_OK := $(shell printf '\043include <yajl/yajl_parse.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo yes)
ifneq ($(YAJL_OK),yes)
ifneq ($(MAKECMDGOALS),check)
$(error libyajl-dev is missing (yajl/yajl_parse.h): apt-get install -y libyajl-dev)
endif
endif
LDLIBS += -lm  # link.counters rounds its budgets (ceil)

LIB_SRC  = $(sort $(wildcard src/util/*.c src/source/*.c src/model/*.c src/render/*.c src/checks/*.c src/fix/*.c src/explain/*.c src/probe/*.c src/fleet/*.c src/fabric/*.c src/pairs/*.c src/run/*.c src/cmd/*.c))
MAIN_SRC = src/main.c
UNIT_SRC = $(sort $(wildcard tests/unit/test_*.c))

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
MAIN_OBJ = $(MAIN_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
CPPFLAGS += -DRD_VERSION=\"$(VERSION)\"

.PHONY: all clean check unit asan clang tests-bin fuzz fuzz-bin
all: $(BUILD)/rdma-doctor

$(BUILD)/rdma-doctor: $(MAIN_OBJ) $(BUILD)/librdmadoctor.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/librdmadoctor.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(BUILD)/obj/tests/unit/harness.o $(BUILD)/librdmadoctor.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/tests/unit/%.o: CPPFLAGS += -Itests/unit
# test_source injects read faults with the shim the shell tests preload (tests/shim/faults.c)
$(BUILD)/tests/test_source: $(BUILD)/obj/tests/shim/faults.o
$(BUILD)/tests/libfaults.so: tests/shim/faults.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) -O1 -g -shared -fPIC -o $@ $<

# test_rpmdb runs model/rpmdb.c's child on a stand-in librpm that hangs, crashes or fails
$(BUILD)/tests/librpmshim.so: tests/shim/rpmhang.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) -O1 -g -shared -fPIC -o $@ $<

tests-bin: $(UNIT_BIN) $(BUILD)/rdma-doctor $(BUILD)/tests/libfaults.so $(BUILD)/tests/librpmshim.so

# Unit tests only (the full suite is `make check`).
unit: tests-bin
	@for t in $(UNIT_BIN); do $$t || exit 1; done

# The whole suite: installs test dependencies (as root), builds normal, clang and sanitizer
# variants, runs unit, CLI golden, real-data, differential and snapshot tests.
check:
	@tests/run-all.sh

# The same build with AddressSanitizer + UndefinedBehaviorSanitizer, into build-asan/.
asan:
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	        LDFLAGS="-fsanitize=address,undefined" tests-bin

clang:
	$(MAKE) BUILD=build-clang CC=clang tests-bin

# Fuzz targets (libFuzzer: clang + libclang-rt-14-dev), into build-fuzz/.  `make fuzz` builds them
# and runs each for FUZZ_SECONDS with seed corpora from the project and ../shared/fixtures/real.
FUZZ_SECONDS ?= 60
FUZZ_SRC = $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN = $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
FUZZ_FLAGS = -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer

fuzz-bin:
	$(MAKE) BUILD=build-fuzz CC=clang CFLAGS="$(FUZZ_FLAGS)" build-fuzz/librdmadoctor.a
	$(MAKE) BUILD=build-fuzz CC=clang CFLAGS="$(FUZZ_FLAGS)" $(FUZZ_BIN)

build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c build-fuzz/librdmadoctor.a
	clang $(CPPFLAGS) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer -o $@ $^ $(LDLIBS)

fuzz: fuzz-bin
	tests/fuzz/run.sh $(FUZZ_SECONDS)

# ---- install -------------------------------------------------------------------------------
# `make install` / `make uninstall` with PREFIX (default /usr/local) and DESTDIR: the program, its
# man page, bash completion, the systemd service and timer that write the Prometheus textfile (and
# the watch service that keeps it current), and contrib/ (alert rules, the NPD monitor and
# DaemonSet, the Slurm wrappers) under $(DATADIR).  uninstall removes exactly the files install put, and the directories of ours.
PREFIX         ?= /usr/local
BINDIR         ?= $(PREFIX)/bin
MANDIR         ?= $(PREFIX)/share/man
DATADIR        ?= $(PREFIX)/share/rdma-doctor
BASHCOMPDIR    ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
# where the service writes rdma-doctor.prom: Debian's prometheus-node-exporter's textfile directory
TEXTFILE_DIR   ?= /var/lib/prometheus/node-exporter
INSTALL        ?= install
CONTRIB_FILES   = $(sort $(wildcard contrib/prometheus/* contrib/npd/* contrib/slurm/*))
CONTRIB_DIRS    = $(sort $(patsubst contrib/%/,%,$(dir $(CONTRIB_FILES))))
UNITS           = rdma-doctor.service rdma-doctor.timer rdma-doctor-watch.service

.PHONY: install uninstall
# Every path is passed to the shell in single quotes (sq), so a DESTDIR or PREFIX with blanks,
# &, |, ; or quotes is one path and runs nothing; the units get theirs through tools/unit-subst.sh,
# which quotes them for sed and for systemd.  The file lists are shell words of our own names.
sq = '$(subst ','\'',$(1))'
INSTALL_VARS = dest=$(call sq,$(DESTDIR)); bindir=$(call sq,$(BINDIR)); mandir=$(call sq,$(MANDIR)); \
	datadir=$(call sq,$(DATADIR)); compdir=$(call sq,$(BASHCOMPDIR)); unitdir=$(call sq,$(SYSTEMDUNITDIR))
install: $(BUILD)/rdma-doctor
	@set -e; $(INSTALL_VARS); sh tools/unit-subst.sh --check "$$bindir" $(call sq,$(TEXTFILE_DIR)); set -x; \
	$(INSTALL) -d "$$dest$$bindir" "$$dest$$mandir/man1" "$$dest$$compdir" "$$dest$$unitdir"; \
	for d in $(CONTRIB_DIRS); do $(INSTALL) -d "$$dest$$datadir/$$d"; done; \
	$(INSTALL) -m 0755 $(call sq,$(BUILD))/rdma-doctor "$$dest$$bindir/rdma-doctor"; \
	$(INSTALL) -m 0644 docs/rdma-doctor.1 "$$dest$$mandir/man1/rdma-doctor.1"; \
	$(INSTALL) -m 0644 contrib/bash-completion/rdma-doctor "$$dest$$compdir/rdma-doctor"; \
	for u in $(UNITS); do \
	    sh tools/unit-subst.sh "$$bindir" $(call sq,$(TEXTFILE_DIR)) < contrib/systemd/$$u.in > "$$dest$$unitdir/$$u.tmp"; \
	    chmod 0644 "$$dest$$unitdir/$$u.tmp"; mv -f "$$dest$$unitdir/$$u.tmp" "$$dest$$unitdir/$$u"; \
	done; \
	for f in $(CONTRIB_FILES:contrib/%=%); do \
	    if [ -x contrib/$$f ]; then m=0755; else m=0644; fi; \
	    $(INSTALL) -m $$m contrib/$$f "$$dest$$datadir/$$f"; \
	done

uninstall:
	@set -e; $(INSTALL_VARS); set -x; \
	rm -f "$$dest$$bindir/rdma-doctor" "$$dest$$mandir/man1/rdma-doctor.1" "$$dest$$compdir/rdma-doctor"; \
	for u in $(UNITS); do rm -f "$$dest$$unitdir/$$u"; done; \
	for f in $(CONTRIB_FILES:contrib/%=%); do rm -f "$$dest$$datadir/$$f"; done; \
	for d in $(CONTRIB_DIRS); do rmdir "$$dest$$datadir/$$d" 2>/dev/null || true; done; \
	rmdir "$$dest$$datadir" 2>/dev/null || true

clean:
	rm -rf build build-asan build-clang build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
