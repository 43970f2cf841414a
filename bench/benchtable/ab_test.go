package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchstat's CSV: the configuration lines, tables of two header lines,
// rows and a geomean, a unit that comes back in a second table.
const abCSV = `goos: linux
"ab-old: 92c6e95c858b04b2db704b2697e60774d187eb84 a subject, with a comma"
"ab-new: ba726d5aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa another"
,old,,new,,,
,sec/op,CI,sec/op,CI,vs base,P
ABCompile,3.5,4%,3.6,5%,~,p=0.310 n=5
ABGenerateCheck,2,3%,2.5,2%,+25.00%,p=0.008 n=5
geomean,2.6,,2.9,,+10%,

,old,,new,,,
,funcs,CI,funcs,CI,vs base,P
ABGenerated,9458,∞,4000,∞,~,p=1.000 n=1

,old,,new,,,
,sec/op,CI,sec/op,CI,vs base,P
ABCodec/msg=update/op=encode-2,2.2e-07,3%,2.1e-07,2%,-4.55%,p=0.002 n=10
`

// The A/B table reads benchstat's rows: a significant rise misses "no
// slower", "~" and a fall meet it, and the function count's target is a
// ratio of the two medians.
func TestABTablesReadBenchstat(t *testing.T) {
	file := filepath.Join(t.TempDir(), abStat)
	if err := os.WriteFile(file, []byte(abCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := readAB(file)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	abTables(&b, s)
	for _, want := range []string{
		"| commit | 92c6e95 | ba726d5 | | | |",
		"| function declarations, generated packages (non-test files) | 9458 | 4000 | 0.42 | ~ (p=1.000 n=1) | ≤ 0.50: met |",
		"| compile of gen/acp, wall | 3.50 s | 3.60 s | 1.03 | ~ (p=0.310 n=5) |  |",
		"| `acpgen generate --check`, wall | 2.00 s | 2.50 s | 1.25 | +25.00% (p=0.008 n=5) | no slower: **missed** |",
		"| update | encode | 0.220 (0) | 0.210 (0) | -4.55% (p=0.002 n=10) | met |",
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("no row %q in\n%s", want, b.String())
		}
	}
}

// A row before any old-new header is an error naming the file.
func TestReadABRefusesRowsOutsideATable(t *testing.T) {
	file := filepath.Join(t.TempDir(), abStat)
	if err := os.WriteFile(file, []byte("ABCompile,3.5,4%,3.6,5%,~,p=0.310 n=5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readAB(file); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("err = %v", err)
	}
}
