# SPDX-License-Identifier: GPL-2.0-only
# bqltool: one non-recursive Makefile, out-of-tree objects in $(BUILD).
#
#   make                 build ./bqltool (objects in build/)
#   make check           unit (cmocka) + CLI (BATS) + integration (root, netns) + lint
#   make check SANITIZE=1 / make sanitize   the same under ASan+UBSan (build-san/)
#   make bench           speed and memory figures (never asserted by tests)
#   make deps            install the Debian packages the build and tests need
#   make install / uninstall  PREFIX=/usr/local DESTDIR=

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

ifeq ($(SANITIZE),1)
BUILD ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD ?= build
SANFLAGS :=
endif

CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS := libnl-3.0 libnl-route-3.0 libnl-genl-3.0 ncursesw json-c zlib

WARNINGS := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wundef -Wwrite-strings -Wcast-qual \
	-Wold-style-definition
CFLAGS ?= -O2 -g
BQL_CFLAGS := -std=c11 -D_GNU_SOURCE -DBQLTOOL_VERSION='"$(VERSION)"' \
	$(WARNINGS) $(SANFLAGS) -I. -MMD -MP
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)
LDLIBS := $(PKG_LIBS) -lm

ifneq ($(V),1)
Q := @
quiet = @printf '  %-7s %s\n' $(1) $(2);
else
Q :=
quiet =
endif

DQL_SRC := $(sort $(wildcard dql/*.c))
LIB_SRC := $(sort $(wildcard lib/*.c))
CMD_SRC := $(sort $(wildcard cmd/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))

DQL_OBJ := $(DQL_SRC:%.c=$(BUILD)/%.o)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:%.c=$(BUILD)/%)
TOOL_BIN := $(TOOL_SRC:%.c=$(BUILD)/%)

LIBDQL := $(BUILD)/libdql.a
LIBBQL := $(BUILD)/libbql.a
BIN := $(BUILD)/bqltool

MANPAGES := $(sort $(wildcard man/*.[58]))

.PHONY: all check check-unit check-cli check-integration check-man check-deps \
	sanitize bench deps install uninstall clean tools

all: $(BIN) bqltool

# ./bqltool is a link to the build in use, so README commands work as typed.
bqltool: $(BIN)
	$(Q)ln -sf $(BIN) bqltool

$(BUILD)/%.o: %.c
	$(call quiet,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BQL_CFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

$(LIBDQL): $(DQL_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBBQL): $(LIB_OBJ)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(CMD_OBJ) $(LIBBQL) $(LIBDQL)
	$(call quiet,LD,$@)
	$(Q)$(CC) $(SANFLAGS) $(CFLAGS) -o $@ $(CMD_OBJ) $(LIBBQL) $(LIBDQL) $(LDLIBS)

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

tools: $(TOOL_BIN)

-include $(DQL_OBJ:.o=.d) $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(UNIT_BIN:=.d)

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

# The layering dql/ <- lib/ <- cmd/ has no back edges.
check-deps:
	@if grep -nE '#include "(lib|cmd)/' dql/*.[ch] 2>/dev/null; then \
		echo "check-deps: dql/ must not include lib/ or cmd/" >&2; exit 1; fi
	@if grep -nE '#include "cmd/' lib/*.[ch] 2>/dev/null; then \
		echo "check-deps: lib/ must not include cmd/" >&2; exit 1; fi
	@echo "  DEPS    dql/ <- lib/ <- cmd/ ok"

sanitize:
	$(MAKE) SANITIZE=1 check

bench: all tools
	@BQLTOOL=$(CURDIR)/$(BIN) BUILD=$(CURDIR)/$(BUILD) tests/bench/run.sh

# ---------------------------------------------------------------- packaging

DEBS := build-essential pkg-config libnl-3-dev libnl-route-3-dev libnl-genl-3-dev \
	libncurses-dev libjson-c-dev zlib1g-dev libcmocka-dev bats bats-support bats-assert \
	iproute2 jq tmux mandoc libxml2-utils valgrind bash-completion zsh fish

deps:
	@missing=""; for p in $(DEBS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	else echo "deps: all installed"; fi

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/bqltool
	for m in $(filter %.8,$(MANPAGES)); do install -m 0644 $$m $(DESTDIR)$(MANDIR)/man8/; done
	for m in $(filter %.5,$(MANPAGES)); do install -m 0644 $$m $(DESTDIR)$(MANDIR)/man5/; done
	[ ! -f completions/bqltool.bash ] || install -m 0644 completions/bqltool.bash $(DESTDIR)$(BASHCOMPDIR)/bqltool
	[ ! -f completions/_bqltool ] || install -m 0644 completions/_bqltool $(DESTDIR)$(ZSHCOMPDIR)/_bqltool
	[ ! -f completions/bqltool.fish ] || install -m 0644 completions/bqltool.fish $(DESTDIR)$(FISHCOMPDIR)/bqltool.fish
	[ ! -f contrib/bqltool-apply.service ] || { install -d $(DESTDIR)$(SYSTEMDDIR) && \
		install -m 0644 contrib/bqltool-apply.service $(DESTDIR)$(SYSTEMDDIR)/; }
	[ ! -f contrib/bqltool-apply@.service ] || install -m 0644 contrib/bqltool-apply@.service $(DESTDIR)$(SYSTEMDDIR)/
	[ ! -f contrib/90-bqltool.rules ] || { install -d $(DESTDIR)$(UDEVDIR) && \
		install -m 0644 contrib/90-bqltool.rules $(DESTDIR)$(UDEVDIR)/; }

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/bqltool $(DESTDIR)$(BASHCOMPDIR)/bqltool \
		$(DESTDIR)$(ZSHCOMPDIR)/_bqltool $(DESTDIR)$(FISHCOMPDIR)/bqltool.fish \
		$(DESTDIR)$(SYSTEMDDIR)/bqltool-apply.service $(DESTDIR)$(SYSTEMDDIR)/bqltool-apply@.service \
		$(DESTDIR)$(UDEVDIR)/90-bqltool.rules
	for m in $(notdir $(filter %.8,$(MANPAGES))); do rm -f $(DESTDIR)$(MANDIR)/man8/$$m; done
	for m in $(notdir $(filter %.5,$(MANPAGES))); do rm -f $(DESTDIR)$(MANDIR)/man5/$$m; done

clean:
	rm -rf build build-san bqltool
