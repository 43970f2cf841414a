# make bench: every benchmark, then their tables written into docs/benchmarks.md.
.PHONY: bench
bench:
	./bench/run.sh
