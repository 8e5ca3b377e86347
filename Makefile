# Makefile: build the C helpers, lint and test the kit.
#   make            build the helpers (helpers/)
#   make check      lint, then every bats test (needs root for most of them)
#   make lint       shellcheck, shfmt and a -Werror build of the helpers
#   make test       the bats tests only; TESTS=tests/server narrows them
#   make bench      the helpers' CPU benchmark (prints ratios; not a test)
#   make man        write man/*.1 from the scripts' -h (a test checks they are current)
#   make install    install the helpers into $(DESTDIR)$(PREFIX)/bin
#   make clean      remove build products
PREFIX ?= /usr/local
BATS ?= bats
TESTS ?= tests
SHELL_FILES = start-samba.sh stop-samba.sh test-samba.sh $(wildcard libexec/* lib/*.sh lib/*/*.sh tests/*.sh tests/*/*.sh tests/run tests/stubs/* bench/*.sh man/*.sh .ci/run)
BASH_FILES = $(wildcard tests/test_helper/*.bash tests/*/*.bash)
BATS_FILES = $(wildcard tests/*/*.bats)

all: helpers

helpers:
	$(MAKE) -C helpers

check: lint test

lint:
	shellcheck -x $(SHELL_FILES)
	shellcheck -s bash $(BASH_FILES)
	shellcheck -s bats $(BATS_FILES)
	if command -v shfmt >/dev/null; then shfmt -d $(SHELL_FILES) $(BASH_FILES); else echo 'shfmt is not installed: format check skipped'; fi
	$(MAKE) -C helpers -B WERROR=-Werror

test: helpers
	$(BATS) --timing -r $(TESTS)

bench: helpers
	bench/helpers-bench.sh

man:
	man/make.sh

install: helpers
	$(MAKE) -C helpers install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

clean:
	$(MAKE) -C helpers clean

.PHONY: all helpers check lint test bench man install clean
