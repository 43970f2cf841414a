package peer

import (
	stdjson "encoding/json"
	"runtime"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/xeipuuv/gojsonschema"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/wire"
)

// BenchmarkInterleaved measures the decode and encode implementations of
// BenchmarkMessages again, taking turns of about 10 ms each within every
// round, so a change in machine load (other processes on a shared 2-core
// machine) hits all of them alike and their ratios hold. Each turn starts on
// a collected heap, so an implementation pays for the collection of its own
// garbage only (gojsonschema makes about 100 KB per message). Each one's time
// per op is reported as a metric "<impl>-ns/op".
func BenchmarkInterleaved(b *testing.B) {
	for _, m := range messages {
		b.Run(m.name, func(b *testing.B) {
			s := compiledDef(b, m.def)
			acpgenEnc, peerEnc := m.encoders(b)
			var buf []byte
			impls := []struct {
				name string
				op   func() error
			}{
				{"acpgen", func() error {
					v := m.acpgen()
					if err := wire.DecodeWith(m.params, v, acp.TableOf(v), wire.Lenient); err != nil {
						return err
					}
					return v.Validate()
				}},
				{"peer", func() error {
					v := m.peer()
					if err := stdjson.Unmarshal(m.params, v); err != nil {
						return err
					}
					return v.Validate()
				}},
				{"acpgen-encode", func() error { buf = acpgenEnc(buf[:0]); return nil }},
				{"peer-encode", func() error { _, err := peerEnc(); return err }},
				{"json-v2", func() error { return jsonv2.Unmarshal(m.params, m.plain()) }},
				{"encoding-json", func() error { return stdjson.Unmarshal(m.params, m.plain()) }},
				{"gojsonschema", func() error {
					_, err := s.Validate(gojsonschema.NewBytesLoader(m.params))
					return err
				}},
			}
			// Ops per turn: about 10 ms of each.
			per := make([]int, len(impls))
			for i, im := range impls {
				start, n := time.Now(), 0
				for ; time.Since(start) < time.Millisecond; n++ {
					if err := im.op(); err != nil {
						b.Fatal(err)
					}
				}
				per[i] = max(1, n*10)
			}
			total := make([]time.Duration, len(impls))
			ops := make([]int, len(impls))
			for b.Loop() {
				for i, im := range impls {
					b.StopTimer()
					runtime.GC()
					b.StartTimer()
					start := time.Now()
					for range per[i] {
						if err := im.op(); err != nil {
							b.Fatal(err)
						}
					}
					total[i] += time.Since(start)
					ops[i] += per[i]
				}
			}
			for i, im := range impls {
				b.ReportMetric(float64(total[i].Nanoseconds())/float64(ops[i]), im.name+"-ns/op")
			}
		})
	}
}
