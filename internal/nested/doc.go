// Package nested holds the checks that keep heavy dependencies in acpgen's
// nested modules (otel/, mcp/, store/), out of the root go.mod: a program on acpgen
// pulls them only by importing those modules.
package nested
