# make bench: every benchmark, then the tables recorded in the README.
.PHONY: bench
bench:
	./bench/run.sh
