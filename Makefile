# make bench: every benchmark, then their tables written into docs/benchmarks.md.
.PHONY: bench
bench:
	./bench/run.sh

# make bench-ab: only the A/B of the old and the new generated code (OLD=ref NEW=ref).
.PHONY: bench-ab
bench-ab:
	./bench/run.sh ab
