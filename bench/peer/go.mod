module github.com/acpgen/acpgen/bench/peer

go 1.26.0

require (
	github.com/acpgen/acpgen v0.0.0
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3
	github.com/xeipuuv/gojsonschema v1.2.0
	golang.org/x/mod v0.42.0
)

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/google/renameio/v2 v2.0.2 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da // indirect
	golang.org/x/tools v0.52.0 // indirect
)

require (
	github.com/coder/acp-go-sdk v0.13.5
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/xeipuuv/gojsonpointer v0.0.0-20180127040702-4e3ac2762d5f // indirect
	github.com/xeipuuv/gojsonreference v0.0.0-20180127040603-bd5ef7bd5415 // indirect
)

replace github.com/acpgen/acpgen => ../..

tool golang.org/x/perf/cmd/benchstat
