package conform

import "sort"

// FailedFrameRules feeds lines an agent wrote to conform's frame log, after
// the checker's requests sent (id and method, in order), and returns the
// rule names of the frames cases that failed, sorted and each once.
func FailedFrameRules(p *Profile, sent [][2]string, lines []string) []string {
	l := newFrameLog(p)
	for _, s := range sent {
		l.expect("1", s[0], s[1])
	}
	for _, line := range lines {
		f := &frame{}
		if err := parseFrame([]byte(line), f); err != nil {
			f.Bad = "not JSON-RPC: " + err.Error()
		}
		f.Raw = []byte(line)
		l.see("1", f)
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range l.frameResults() {
		if r.Verdict == Fail && r.kind != "" && !seen[r.kind] {
			seen[r.kind] = true
			out = append(out, r.kind)
		}
	}
	sort.Strings(out)
	return out
}
