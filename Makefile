# Thin wrapper over CMake for the README's two commands; the package list lives in scripts/deps.sh.
BUILD      ?= build
BUILD_ASAN ?= build-asan
JOBS       ?= $(shell nproc)
PREFIX     ?= /usr/local

.PHONY: all demo test install build build-asan unit valgrind e2e format bench screenshots fuzz clean

all: build

build:
	sh scripts/deps.sh
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

build-asan:
	sh scripts/deps.sh
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DVELTOP_SANITIZE=ON >/dev/null
	cmake --build $(BUILD_ASAN) -j $(JOBS)

demo: build
	./$(BUILD)/veltop --demo

# veltop, veltop-sim, the kubectl plugin, the manual page and shell completion under $(PREFIX)
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The whole suite: every test under ASan+UBSan, then the unit suites again under valgrind. One
# test at a time: the end-to-end tests run real servers, object stores and terminals on a
# 2-core machine, and two of them at once under ASan starve each other's deadlines.
test: build-asan build
	cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j 1
	sh scripts/valgrind.sh $(BUILD)

valgrind: build
	sh scripts/valgrind.sh $(BUILD)

format:
	clang-format -i include/*/*.h kubeclient/*.[ch] core/*.[ch] tui/*.[ch] cli/*.[ch] sim/*.[ch] tests/*.[ch] tests/fuzz/*.[ch] bench/*.[ch]

bench: build
	sh bench/run.sh $(BUILD)

# libFuzzer targets (tests/fuzz) built with clang, each run FUZZ_SECONDS (default 60); `make test`
# replays their corpora (ctest fuzz_*) with any compiler.
BUILD_FUZZ   ?= build-fuzz
FUZZ_SECONDS ?= 60
fuzz:
	sh scripts/deps.sh fuzz
	sh scripts/fuzz.sh $(BUILD_FUZZ) $(FUZZ_SECONDS)

screenshots: build
	sh scripts/deps.sh screenshots
	sh scripts/screenshots.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ)
