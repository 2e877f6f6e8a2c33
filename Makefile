# trampemu: the two commands are `make report` (the main job) and `make test`.
# Both install what is missing first (scripts/deps.sh, as root or via sudo).

GO      ?= go
export PATH := $(PATH):/usr/local/go/bin
# Fuzz budget per target: an execution count (see scripts/fuzz.sh for why
# not a duration).
FUZZTIME ?= 200000x
BIN      := bin/trampemu

.PHONY: all deps build test vet fmt-check fuzz report mutate bench bench-stability readme readme-emulation readme-blocks clean gremlins

all: build

deps:
	@bash scripts/deps.sh

build: deps
	$(GO) build -o $(BIN) ./cmd/trampemu

# The main job: check and cost every variant on every architecture
# (regs.Arches);
# Markdown on stdout, report.md and report.json in out/.
report: build
	./$(BIN) report --out out

# Mutation testing of the checks: every variant of every arch mutated,
# each mutant checked (trampemu mutate); the summary in out/mutate.json
# (exit 1 when a mutant survives unexplained). Minutes: not in report.
mutate: build
	@mkdir -p out
	@./$(BIN) mutate --arch all --json >out/.mutate.json; rc=$$?; \
	if [ $$rc -le 1 ]; then mv out/.mutate.json out/mutate.json; echo "out/mutate.json written"; else rm -f out/.mutate.json; fi; exit $$rc

# Mutation testing of trampemu's own Go code (check, harness/observe.go,
# ftrace, kernel) with gremlins v0.6.0, installed by go install when
# missing: efficacy and the surviving mutants in out/gremlins.txt (each
# explained in docs/gremlins.md). Slow: every mutant runs its package's
# tests; GREMLINS_PKGS="check observe" narrows it.
gremlins: deps
	@bash scripts/gremlins.sh

fmt-check:
	@bad=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$bad" ]; then echo "gofmt needed: $$bad"; exit 1; fi

vet: deps
	$(GO) vet ./...

# doc-commands and fuzz side by side: the fuzz step is mostly builds and
# start-ups (1.4 of 2 cores busy over its 4 minutes); each step's output is
# printed whole when it ends.
test: deps fmt-check vet
	$(GO) test -race -count=1 -timeout 30m ./...
	@$(MAKE) --no-print-directory -j2 --output-sync=target doc-commands fuzz FUZZTIME=50000x
	@$(MAKE) --no-print-directory verify-trees

# Every trampemu command line of README.md and docs/*.md run whole, once:
# TestDocCommands without -race (under make test's -race step the report,
# mutate and native lines only parse their flags, race_on_test.go).
.PHONY: doc-commands
doc-commands: deps
	$(GO) test -count=1 -timeout 20m -run '^TestDocCommands$$' ./cmd/trampemu

# Every fuzz target of the module, FUZZTIME each.
fuzz: deps
	@bash scripts/fuzz.sh $(FUZZTIME)

# Benchmarks, BENCHCOUNT runs each (benchstat wants >= 6 for an interval), into out/bench.txt, with the report's
# emulation table (report BenchmarkEmulation) after each round of it (benchstat reads the file:
# `benchstat out/bench.txt`, or two such files from before and after a change).
BENCHCOUNT ?= 6
bench: deps
	@mkdir -p out
	@$(GO) test -run XXX -bench . -benchtime 1s -count $(BENCHCOUNT) ./emu ./check ./tests ./ftrace ./scenarios ./native ./report > out/bench.txt; \
	status=$$?; cat out/bench.txt; exit $$status

# The rerun experiment of the native numbers (docs/stability.md): the report's native run made
# STABILITY_RUNS times (STABILITY_BUDGET each), into out/stability.json and out/stability.md. Minutes.
STABILITY_RUNS ?= 20
STABILITY_BUDGET ?= 20s
bench-stability: deps
	@mkdir -p out
	$(GO) test -tags stability -run XXX -bench Stability -benchtime 1x -timeout 120m ./native \
		-args -stability.runs $(STABILITY_RUNS) -stability.budget $(STABILITY_BUDGET) -stability.out $(CURDIR)/out

# The numbers README.md and docs/*.md quote, from the last `make report`: docs/numbers.json (with the
# machine and date of the run) and every <!-- trampemu:NAME --> block (report.Blocks); report's
# TestDocsQuoteTheirReport fails when a block differs from docs/numbers.json.
readme:
	$(GO) run ./cmd/readme out/report.json docs/numbers.json README.md docs/*.md
# Only the emulator ratios from out/report.json, the rest of docs/numbers.json
# kept (a report on another machine than the snapshot's native run).
readme-emulation:
	$(GO) run ./cmd/readme --emulation out/report.json docs/numbers.json README.md docs/*.md
# The same blocks from the committed docs/numbers.json alone (after adding a block by hand).
readme-blocks:
	$(GO) run ./cmd/readme --snapshot docs/numbers.json README.md docs/*.md

# The CLI's reference pages, docs/cli/*.md and docs/man/*.1, written from
# the command tree by cobra's doc package (TestDocsUpToDate fails when
# they are stale). `man -l docs/man/trampemu-check.1` reads one.
.PHONY: docs
docs: deps
	$(GO) run ./cmd/trampemu gendocs docs

# Debian's linux-source-6.1 and linux-source-6.12 (downloaded once into
# .cache/trees/, only the trampoline files and the Makefile unpacked), each
# checked with `trampemu check --tree` and no flags: every trampoline of
# every modelled arch ok (scripts/verify-trees.sh).
.PHONY: verify-trees
verify-trees: build
	@bash scripts/verify-trees.sh

clean:
	rm -rf bin out
