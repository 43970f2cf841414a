package dispatch

import "testing"

func TestWithMeta(t *testing.T) {
	add := map[string]string{"traceparent": "t", "baggage": "b"}
	for in, want := range map[string]string{
		`{}`:                   `{"_meta":{"baggage":"b","traceparent":"t"}}`,
		` { "x" : 1 }`:         ` {"_meta":{"baggage":"b","traceparent":"t"}, "x" : 1 }`,
		`{"_meta":null,"x":1}`: `{"_meta":{"baggage":"b","traceparent":"t"},"x":1}`,
		`{"x":1,"_meta": {"traceparent":"o","a\"":{"b":[2]}}}`: `{"x":1,"_meta": {"a\"":{"b":[2]},"baggage":"b","traceparent":"t"}}`,
		`[1]`: `[1]`,
	} {
		_, _, start, end := scanParams([]byte(in))
		if got := string(withMeta([]byte(in), add, start, end)); got != want {
			t.Errorf("withMeta(%s) = %s, want %s", in, got, want)
		}
	}
}
