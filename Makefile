# SPDX-License-Identifier: GPL-2.0-only
# bqltool: one non-recursive Makefile, out-of-tree objects in $(BUILD).
#
#   make                 build ./bqltool (objects in build/)
#   make check           unit (cmocka) + CLI (BATS) + integration (root, netns) + lint
#   make check SANITIZE=1 / make sanitize   the same under ASan+UBSan (build-san/)
#   make bench           speed and memory figures (never asserted by tests)
#   make deps            install the Debian packages the build and tests need
#   make install / uninstall  PREFIX=/usr/local DESTDIR= (DOCDIR: README, examples/;
#                        PKGDATADIR: Prometheus rules, Grafana dashboard)
#   make deb             the Debian package, lintian-checked (MAINTAINER=, HOMEPAGE=)
#   make fuzz            the libFuzzer harnesses (FUZZ_SECONDS each)
#   make vmlinux-h       regenerate the carried kernel types of the BPF objects
#   make help            this list

VERSION := 0.1.0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share
SYSCONFDIR ?= /etc
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/vendor-completions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system
UDEVDIR ?= $(PREFIX)/lib/udev/rules.d
DOCDIR ?= $(DATADIR)/doc/bqltool
# the fleet view: contrib/prometheus/ and contrib/grafana/ (bqltool-export(8))
PKGDATADIR ?= $(DATADIR)/bqltool

ifeq ($(SANITIZE),1)
BUILD ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD ?= build
SANFLAGS :=
endif

CC ?= cc
empty :=
space := $(empty) $(empty)
PKG_CONFIG ?= pkg-config
# cairo draws the PNG and PDF plots (lib/io/svgplot_cairo.c)
PKGS := libnl-3.0 libnl-route-3.0 libnl-genl-3.0 ncursesw json-c zlib libzstd cairo

WARNINGS := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wundef -Wwrite-strings -Wcast-qual \
	-Wold-style-definition
CFLAGS ?= -O2 -g
BQL_CFLAGS := -std=c11 -D_GNU_SOURCE -DBQLTOOL_VERSION='"$(VERSION)"' \
	$(WARNINGS) $(SANFLAGS) -I. -MMD -MP
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
# The libraries pkg-config cannot find (all of them without pkg-config):
# a build without them stops before the compiler with what to do.
PKG_MISSING := $(if $(PKG_LIBS),,$(shell for p in $(PKGS); do \
	$(PKG_CONFIG) --exists $$p 2>/dev/null || echo $$p; done))
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)
LDLIBS := $(PKG_LIBS) -lm -pthread

ifneq ($(V),1)
Q := @
quiet = @printf '  %-7s %s\n' $(1) $(2);
else
Q :=
quiet =
endif

DQL_SRC := $(sort $(wildcard dql/*.c))
LIB_SRC := $(sort $(wildcard lib/*/*.c))
CMD_SRC := $(sort $(wildcard cmd/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
PRELOAD_SRC := $(sort $(wildcard tests/preload/*.c))

DQL_OBJ := $(DQL_SRC:%.c=$(BUILD)/%.o)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:%.c=$(BUILD)/%)
TOOL_BIN := $(TOOL_SRC:%.c=$(BUILD)/%)
PRELOAD_SO := $(PRELOAD_SRC:%.c=$(BUILD)/%.so)

LIBDQL := $(BUILD)/libdql.a
LIBBQL := $(BUILD)/libbql.a
BIN := $(BUILD)/bqltool

MANPAGES := $(sort $(wildcard man/*.[58]))

.PHONY: all check check-unit check-cli check-integration check-man check-deps check-valgrind \
	sanitize bench deps deps-list help install uninstall clean tools deb vmlinux-h

all: $(BIN) bqltool

help:
	@sed -n '/^#   make/s/^#   //p' $(firstword $(MAKEFILE_LIST))

# ./bqltool is a link to the build in use, so README commands work as typed.
bqltool: $(BIN)
	$(Q)ln -sf $(BIN) bqltool

$(BUILD)/%.o: %.c | pkgs-present
	$(call quiet,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BQL_CFLAGS) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(LIBDQL): $(DQL_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBBQL): $(LIB_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(CMD_OBJ) $(LIBBQL) $(LIBDQL)
	$(call quiet,LD,$@)
	$(Q)$(CC) $(SANFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) $(LIBBQL) $(LIBDQL) $(LDLIBS)

# A unit test may list extra linker flags (e.g. -Wl,--wrap=write) in
# tests/unit/test_X.ldflags.
$(BUILD)/tests/unit/%: tests/unit/%.c $(LIBBQL) $(LIBDQL)
	$(call quiet,CCLD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BQL_CFLAGS) $(PKG_CFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) -o $@ $< \
		$(shell cat tests/unit/$*.ldflags 2>/dev/null) \
		$(LIBBQL) $(LIBDQL) $(CMOCKA_LIBS) $(LDLIBS)

$(BUILD)/tests/tools/%: tests/tools/%.c $(LIBBQL) $(LIBDQL)
	$(call quiet,CCLD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BQL_CFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(LIBBQL) $(LIBDQL) $(LDLIBS)

# LD_PRELOAD shims for tests: never sanitized (they load before ASan's
# runtime; a test that uses one sets verify_asan_link_order=0).
$(BUILD)/tests/preload/%.so: tests/preload/%.c
	$(call quiet,CCLD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARNINGS) $(CFLAGS) -shared -fPIC -o $@ $<

tools: $(TOOL_BIN) $(PRELOAD_SO)

.PHONY: pkgs-present
pkgs-present:
	@if [ -n "$(strip $(PKG_MISSING))" ]; then \
		echo "make: libraries not found by pkg-config: $(strip $(PKG_MISSING))" >&2; \
		echo "make: 'make deps' (as root) installs them; 'make deps all' builds too" >&2; \
		exit 1; fi

-include $(DQL_OBJ:.o=.d) $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(UNIT_BIN:=.d)

# ---------------------------------------------------------------- BPF
# The BPF objects, one per lib/kernel/bpf/NAME.bpf.c (record's recorder,
# latency's observer), are built from source: vmlinux.h, clang -target bpf,
# a bpftool skeleton (NAME.skel.h, struct NAME_bpf) included by its loader in
# lib/kernel/ (BPF_LOADER_NAME).
# vmlinux.h, the one header of kernel types every BPF object includes
# ($(BPF_DIR)/vmlinux.h), is the tree's VMLINUX_H_TREE for this architecture
# (as libbpf-tools carries it: a package built where /sys/kernel/btf/vmlinux
# is missing still records), else dumped from the build host's BTF.
# `make vmlinux-h` regenerates the tree's copy from the running kernel.
# Without clang, bpftool, libbpf or kernel types the rest builds and
# `record` and `latency` say they have no BPF support. NO_BPF=1 forces that.
BPF_CLANG ?= clang
BPFTOOL ?= $(or $(shell command -v bpftool 2>/dev/null),$(wildcard /usr/sbin/bpftool /sbin/bpftool))
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
BPF_ARCH := $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(shell uname -m)))
VMLINUX_H_TREE := $(wildcard lib/kernel/bpf/vmlinux/$(BPF_ARCH)/vmlinux.h)
BPF_OBJS := record latency
BPF_LOADER_record := recbpf
BPF_LOADER_latency := latbpf
# latency's programs take and swap FIFO indices atomically (cmpxchg: ISA v3)
BPF_CFLAGS_latency := -mcpu=v3
ifneq ($(NO_BPF),1)
HAVE_BPF := $(shell command -v $(BPF_CLANG) >/dev/null 2>&1 && [ -n "$(BPFTOOL)" ] && \
	{ [ -n "$(VMLINUX_H_TREE)" ] || [ -r $(VMLINUX_BTF) ]; } && \
	$(PKG_CONFIG) --exists libbpf && echo 1)
endif
ifeq ($(HAVE_BPF),1)
BPF_DIR := $(BUILD)/bpf
LDLIBS += $(shell $(PKG_CONFIG) --libs libbpf)

$(BPF_DIR)/vmlinux.h: $(VMLINUX_H_TREE)
	$(call quiet,BTF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(if $(VMLINUX_H_TREE),cp $(VMLINUX_H_TREE) $@.tmp,$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp) && \
		mv $@.tmp $@

$(BPF_DIR)/%.bpf.o: lib/kernel/bpf/%.bpf.c lib/kernel/bpf/%.h dql/lat.h $(BPF_DIR)/vmlinux.h
	$(call quiet,BPF,$<)
	$(Q)$(BPF_CLANG) -g -O2 -target bpf $(BPF_CFLAGS_$*) -D__TARGET_ARCH_$(BPF_ARCH) \
		-I$(BPF_DIR) -I. -Wall -Werror -c $< -o $@

$(BPF_DIR)/%.skel.h: $(BPF_DIR)/%.bpf.o
	$(call quiet,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

# make bench's floor of the latency observer: empty programs at its
# tracepoints, loaded from the object file by tests/tools/latfloor
$(BUILD)/tests/tools/latfloor.bpf.o: tests/tools/bpf/latfloor.bpf.c $(BPF_DIR)/vmlinux.h
	$(call quiet,BPF,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
		-I$(BPF_DIR) -I. -Wall -Werror -c $< -o $@
$(BUILD)/tests/tools/latfloor: BQL_CFLAGS += -DBQLTOOL_HAVE_BPF
$(BUILD)/lib/kernel/bpfstats.o: BQL_CFLAGS += -DBQLTOOL_HAVE_BPF
tools: $(BUILD)/tests/tools/latfloor.bpf.o

# each loader includes its skeleton and is built with BPF support
define bpf_loader
$(BUILD)/lib/kernel/$(BPF_LOADER_$(1)).o: $(BPF_DIR)/$(1).skel.h
$(BUILD)/lib/kernel/$(BPF_LOADER_$(1)).o: BQL_CFLAGS += -DBQLTOOL_HAVE_BPF -I$(BPF_DIR)
endef
$(foreach o,$(BPF_OBJS),$(eval $(call bpf_loader,$(o))))
.SECONDARY: $(BPF_OBJS:%=$(BPF_DIR)/%.bpf.o)
endif

# ---------------------------------------------------------------- tests

check: check-deps check-man check-unit check-cli check-integration
	@tests/summary.sh $(BUILD)

check-unit: $(UNIT_BIN)
	@tests/run-unit.sh $(BUILD) $(UNIT_BIN)

check-cli: all tools
	@BQLTOOL=$(CURDIR)/$(BIN) BUILD=$(CURDIR)/$(BUILD) tests/run-bats.sh $(BUILD) cli tests/cli

check-integration: all tools
	@BQLTOOL=$(CURDIR)/$(BIN) BUILD=$(CURDIR)/$(BUILD) tests/run-bats.sh $(BUILD) integration tests/integration

check-man:
	@tests/lint-man.sh $(MANPAGES)

# The layering has no back edges: each folder includes only those to its
# left, dql/ <- lib/io/ <- lib/kernel/ <- lib/model/ <- cmd/ (README: Layout).
LAYERS := dql lib/io lib/kernel lib/model cmd
check-deps:
	@bad=0; above="$(LAYERS)"; \
	for l in $(LAYERS); do \
		above=$${above#$$l}; above=$${above# }; \
		for u in $$above; do \
			if grep -rnE --include="*.[ch]" "#include \"$$u/" $$l; then \
				echo "check-deps: $$l/ must not include $$u/" >&2; bad=1; fi; \
		done; \
	done; \
	if ls lib/*.[ch] 2>/dev/null; then echo "check-deps: lib/ holds sources only in its rooms" >&2; bad=1; fi; \
	[ $$bad = 0 ]
	@echo "  DEPS    $(subst $(space),/ <- ,$(LAYERS))/ ok"

sanitize:
	$(MAKE) --no-print-directory SANITIZE=1 check

# Every command and the unit tests under valgrind (no errors, no leaks).
check-valgrind: all $(UNIT_BIN)
	@tests/valgrind.sh $(CURDIR)/$(BIN) $(BUILD)

bench: all tools
	@BQLTOOL=$(CURDIR)/$(BIN) BUILD=$(CURDIR)/$(BUILD) tests/bench/run.sh

# libFuzzer harnesses (tests/fuzz/fuzz_*.c), built with clang, ASan and
# UBSan into $(BUILD)/fuzz/. `make fuzz` first replays tests/fuzz/crashes/
# (known crashers must stay fixed), then runs each harness FUZZ_SECONDS on
# a corpus in $(BUILD)/fuzz/corpus/ seeded from tests/data and examples/.
# Not part of `make check`; CI runs it briefly (FUZZ_SECONDS=20).
# FUZZ_TARGETS=fuzz_sel runs one. Needs clang and libclang-rt-dev (DEBS).
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -DBQLTOOL_VERSION='"$(VERSION)"' -I. -O1 -g \
	$(filter-out -Werror,$(WARNINGS)) $(FUZZ_SAN) $(PKG_CFLAGS) -MMD -MP
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(notdir $(FUZZ_SRC:.c=))
FUZZ_BIN := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%)
FUZZ_LIBS := $(FUZZ_DIR)/libbql.a $(FUZZ_DIR)/libdql.a
# harness -> -max_len, seed directories
FUZZ_LEN_fuzz_trace := 8192
FUZZ_LEN_fuzz_sel := 256
FUZZ_LEN_fuzz_units := 64
FUZZ_LEN_fuzz_profile := 4096
FUZZ_LEN_fuzz_profile_keys := 4096
FUZZ_SEEDS_fuzz_trace := tests/data/traces examples tests/fuzz/seeds/trace
FUZZ_SEEDS_fuzz_sel := tests/fuzz/seeds/sel
FUZZ_SEEDS_fuzz_units := tests/fuzz/seeds/units
FUZZ_SEEDS_fuzz_profile := tests/data/profiles tests/fuzz/seeds/profile
FUZZ_SEEDS_fuzz_profile_keys := tests/fuzz/seeds/profile_keys

$(FUZZ_DIR)/obj/%.o: %.c
	$(call quiet,FUZZCC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/libbql.a: $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/libdql.a: $(DQL_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIBS)
	$(call quiet,FUZZLD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBS) $(LDLIBS)

-include $(wildcard $(FUZZ_DIR)/obj/*/*.d $(FUZZ_DIR)/obj/*/*/*.d $(FUZZ_DIR)/*.d)

# fuzz_run NAME: replay its known crashers, then fuzz it (one shell line)
fuzz_run = crashes=$$(ls tests/fuzz/crashes/$(1)-* 2>/dev/null || true); \
	if [ -n "$$crashes" ]; then \
		echo "  FUZZ    $(1): known crashers"; \
		$(FUZZ_DIR)/$(1) $$crashes >$(FUZZ_DIR)/$(1)-crashers.log 2>&1 || \
			{ tail -40 $(FUZZ_DIR)/$(1)-crashers.log; exit 1; }; \
	fi; \
	mkdir -p $(FUZZ_DIR)/corpus/$(1); \
	echo "  FUZZ    $(1): $(FUZZ_SECONDS) s, log $(FUZZ_DIR)/$(1).log"; \
	$(FUZZ_DIR)/$(1) -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
		-max_len=$(FUZZ_LEN_$(1)) -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_DIR)/$(1)- \
		$(if $(wildcard tests/fuzz/$(1).dict),-dict=tests/fuzz/$(1).dict) \
		$(FUZZ_DIR)/corpus/$(1) $(wildcard $(FUZZ_SEEDS_$(1))) \
		>$(FUZZ_DIR)/$(1).log 2>&1 || \
		{ tail -60 $(FUZZ_DIR)/$(1).log; echo "fuzz: $(1) failed, artifact in $(FUZZ_DIR)"; exit 1; }; \
	grep -E '^(\#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss)' \
		$(FUZZ_DIR)/$(1).log | sed 's/^/          /';

.PHONY: fuzz
fuzz: $(FUZZ_BIN)
	@set -e; $(foreach f,$(FUZZ_TARGETS),$(call fuzz_run,$(f)))

# ---------------------------------------------------------------- packaging

# DEBS: the build (debian/control's Build-Depends are a subset, checked by
# tests/cli/deb.bats), the tests (poppler-utils for pdfinfo, prometheus for promtool,
# prometheus-node-exporter, curl, ethtool; procps for tests/deps.sh) and packaging (debhelper, lintian).
# tests/deps.sh installs the missing ones with no service started, and leaves
# the Prometheus daemons stopped and disabled.
DEBS := build-essential pkg-config libnl-3-dev libnl-route-3-dev libnl-genl-3-dev \
	libncurses-dev libjson-c-dev zlib1g-dev libzstd-dev zstd libcairo2-dev fonts-dejavu-core libcmocka-dev bats bats-support bats-assert \
	libbpf-dev libelf-dev clang llvm bpftool \
	iproute2 jq tmux mandoc libxml2-utils poppler-utils valgrind bash-completion zsh fish \
	libclang-rt-dev ethtool curl procps prometheus prometheus-node-exporter \
	debhelper dpkg-dev lintian

# `make deps all` (the README's first command) installs the packages while
# make reads this file, as a makefile it remakes; make then starts again
# and reads pkg-config's flags, HAVE_BPF and the rest with the packages in
# place. Evaluated before the install, they would be empty for the build.
DEPS_STAMP := $(BUILD)/.deps-installed
ifneq ($(filter deps,$(MAKECMDGOALS)),)
ifeq ($(MAKE_RESTARTS),)
include $(DEPS_STAMP)
endif
endif
.PHONY: FORCE
$(DEPS_STAMP): FORCE
	@tests/deps.sh $(DEBS)
	@mkdir -p $(dir $@) && date +'# make deps ran %s' > $@

deps:
	@:

# The packages `make deps` installs, one line (.ci/run removes them first).
deps-list:
	@echo $(DEBS)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/bqltool
	for m in $(filter %.8,$(MANPAGES)); do install -m 0644 $$m $(DESTDIR)$(MANDIR)/man8/; done
	for m in $(filter %.5,$(MANPAGES)); do install -m 0644 $$m $(DESTDIR)$(MANDIR)/man5/; done
	[ ! -f completions/bqltool.bash ] || install -m 0644 completions/bqltool.bash $(DESTDIR)$(BASHCOMPDIR)/bqltool
	[ ! -f completions/_bqltool ] || install -m 0644 completions/_bqltool $(DESTDIR)$(ZSHCOMPDIR)/_bqltool
	[ ! -f completions/bqltool.fish ] || install -m 0644 completions/bqltool.fish $(DESTDIR)$(FISHCOMPDIR)/bqltool.fish
	# the units run bqltool by the path it is installed at, not by a bare name
	install -d $(DESTDIR)$(SYSTEMDDIR)
	for u in bqltool-apply.service bqltool-apply@.service bqltool-export.service \
		bqltool-export.timer bqltool-export@.service bqltool-export@.timer; do \
		[ ! -f contrib/$$u ] || { sed 's|^\(Exec[A-Za-z]*=\)bqltool |\1$(BINDIR)/bqltool |' \
			contrib/$$u >$(DESTDIR)$(SYSTEMDDIR)/$$u && chmod 0644 $(DESTDIR)$(SYSTEMDDIR)/$$u; }; done
	install -d $(DESTDIR)$(DOCDIR)/examples
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 contrib/README.md $(DESTDIR)$(DOCDIR)/README.contrib.md
	for e in examples/*; do install -m 0644 $$e $(DESTDIR)$(DOCDIR)/examples/; done
	[ ! -f contrib/90-bqltool.rules ] || { install -d $(DESTDIR)$(UDEVDIR) && \
		install -m 0644 contrib/90-bqltool.rules $(DESTDIR)$(UDEVDIR)/; }
	install -D -m 0644 contrib/prometheus/bqltool.rules.yml \
		$(DESTDIR)$(PKGDATADIR)/prometheus/bqltool.rules.yml
	install -D -m 0644 contrib/grafana/bqltool-dashboard.json \
		$(DESTDIR)$(PKGDATADIR)/grafana/bqltool-dashboard.json
	# where bqltool-apply.service reads the profile: `save -o` there works as written
	install -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/bqltool

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/bqltool $(DESTDIR)$(BASHCOMPDIR)/bqltool \
		$(DESTDIR)$(ZSHCOMPDIR)/_bqltool $(DESTDIR)$(FISHCOMPDIR)/bqltool.fish \
		$(DESTDIR)$(SYSTEMDDIR)/bqltool-apply.service $(DESTDIR)$(SYSTEMDDIR)/bqltool-apply@.service \
		$(DESTDIR)$(UDEVDIR)/90-bqltool.rules \
		$(DESTDIR)$(SYSTEMDDIR)/bqltool-export.service $(DESTDIR)$(SYSTEMDDIR)/bqltool-export.timer \
		$(DESTDIR)$(SYSTEMDDIR)/bqltool-export@.service $(DESTDIR)$(SYSTEMDDIR)/bqltool-export@.timer
	rm -rf $(DESTDIR)$(DOCDIR)
	rm -f $(DESTDIR)$(PKGDATADIR)/prometheus/bqltool.rules.yml \
		$(DESTDIR)$(PKGDATADIR)/grafana/bqltool-dashboard.json
	rmdir $(DESTDIR)$(PKGDATADIR)/prometheus $(DESTDIR)$(PKGDATADIR)/grafana $(DESTDIR)$(PKGDATADIR) 2>/dev/null || true
	# a saved profile is the administrator's: the directory goes only when empty
	rmdir $(DESTDIR)$(SYSCONFDIR)/bqltool 2>/dev/null || true
	for m in $(notdir $(filter %.8,$(MANPAGES))); do rm -f $(DESTDIR)$(MANDIR)/man8/$$m; done
	for m in $(notdir $(filter %.5,$(MANPAGES))); do rm -f $(DESTDIR)$(MANDIR)/man5/$$m; done

# make deb: dpkg-buildpackage -us -uc -b on a copy of this tree (without
# build*/ and .git) in $(DEB_DIR)/bqltool-$(VERSION), so the build in use is
# left alone; the .deb, its -dbgsym, .buildinfo and .changes land in
# $(DEB_DIR); then lintian, which must report no error (warnings are shown).
DEB_DIR ?= build/deb
DEB_ARCH = $(shell dpkg-architecture -qDEB_HOST_ARCH)
# The package's Maintainer is whoever builds it, as Debian's tools take it:
# MAINTAINER='Name <address>', else DEBFULLNAME and DEBEMAIL; HOMEPAGE=URL
# adds a Homepage. Both go into the build copy's debian/control (and the
# changelog's trailer); without them the tree's placeholder address stays
# and make deb says so.
DEB_MAINTAINER = $(or $(MAINTAINER),$(if $(and $(DEBFULLNAME),$(DEBEMAIL)),$(DEBFULLNAME) <$(DEBEMAIL)>))
deb:
	@m='$(DEB_MAINTAINER)'; h='$(HOMEPAGE)'; \
	if [ -n "$$m" ] && ! printf '%s' "$$m" | grep -qE '^[^<>|&\\]+ <[^<>@ |&\\]+@[^<>@ |&\\]+>$$'; then \
		echo "make deb: MAINTAINER '$$m' is not 'Name <address>'" >&2; exit 2; fi; \
	if [ -n "$$h" ] && ! printf '%s' "$$h" | grep -qE '^https?://[^ |&\\]+$$'; then \
		echo "make deb: HOMEPAGE '$$h' is not an http(s) URL" >&2; exit 2; fi
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/bqltool-$(VERSION)
	tar -c --exclude=./build --exclude='./build-*' --exclude=./.git --exclude=./bqltool . | \
		tar -x -C $(DEB_DIR)/bqltool-$(VERSION)
	@cd $(DEB_DIR)/bqltool-$(VERSION) && m='$(DEB_MAINTAINER)'; h='$(HOMEPAGE)'; \
	if [ -n "$$m" ]; then \
		sed -i "s|^Maintainer: .*|Maintainer: $$m|" debian/control && \
		sed -i "0,/^ -- .*>  /s|^ -- .*>  | -- $$m  |" debian/changelog; \
	else \
		echo "make deb: the Maintainer is the tree's placeholder ($$(sed -n 's/^Maintainer: //p' debian/control));" \
		     "give MAINTAINER='Name <address>', or set DEBFULLNAME and DEBEMAIL" >&2; \
	fi; \
	if [ -n "$$h" ]; then sed -i "/^Maintainer:/a Homepage: $$h" debian/control; fi
	cd $(DEB_DIR)/bqltool-$(VERSION) && dpkg-buildpackage -us -uc -b
	lintian --fail-on error --display-info \
		$(DEB_DIR)/bqltool_$(VERSION)_$(DEB_ARCH).changes
	@echo "  DEB     $(DEB_DIR)/bqltool_$(VERSION)_$(DEB_ARCH).deb"

# the tree's vmlinux.h for this architecture, from the running kernel's BTF
vmlinux-h:
	mkdir -p lib/kernel/bpf/vmlinux/$(BPF_ARCH)
	{ printf '/* SPDX-License-Identifier: GPL-2.0-only */\n/*\n * The kernel types of every BPF object (lib/kernel/bpf/NAME.bpf.c), %s:\n * dumped from the BTF of Linux %s by bpftool, as libbpf-tools carries\n * its vmlinux.h, so that a build host without /sys/kernel/btf/vmlinux\n * (a package builder) builds a record that records. CO-RE relocates\n * every field access to the running kernel. Regenerate: make vmlinux-h.\n */\n' \
		"$$(uname -m)" "$$(uname -r)"; $(BPFTOOL) btf dump file $(VMLINUX_BTF) format c; } \
		> lib/kernel/bpf/vmlinux/$(BPF_ARCH)/vmlinux.h.tmp && \
		mv lib/kernel/bpf/vmlinux/$(BPF_ARCH)/vmlinux.h.tmp lib/kernel/bpf/vmlinux/$(BPF_ARCH)/vmlinux.h

clean:
	rm -rf build build-san bqltool
