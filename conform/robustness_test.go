package conform

import (
	"strings"
	"testing"
)

// invalidInputModes are broken-agent modes that do what correct agents do
// with invalid input, on v1 (brokenagent flags) and v2 (v2filter modes on
// examples/agent): each adds a robustness case that fails.
var invalidInputModes = []struct {
	mode string
	// robust is the start of the robustness case the mode fails.
	robust string
}{
	{"-crash-on-nonobject-params", "keeps running after invalid params: "},
	{"-echo-invalid", "valid frames after accepting invalid params: "},
}

// What an agent does after invalid params (a crash on params that are not
// an object, an invalid value accepted and echoed in later valid frames) is
// judged in the robustness group at the params' level: the run fails no
// MUST case, on v1 and v2, with every category and under subsets; with
// --robustness must the same runs fail (today's severity).
func TestInvalidInputIsNotMust(t *testing.T) {
	bin, agent := buildCmd(t, "./conform/testdata/brokenagent"), buildCmd(t, "./examples/agent")
	filter := buildCmd(t, "./conform/testdata/v2filter")
	for _, m := range invalidInputModes {
		for _, ch := range []struct {
			channel string
			argv    []string
		}{{"", []string{bin, m.mode}}, {"v2", []string{filter, m.mode, agent}}} {
			for _, cats := range [][]string{noExit, {"methods", "frames"}, {"robustness"}} {
				t.Run(ch.channel+m.mode+" "+strings.Join(cats, ","), func(t *testing.T) {
					rep := checkOpts(t, ch.channel, Options{Argv: ch.argv, Categories: cats})
					if rep.Failed() {
						t.Errorf("MUST failures: %v", mustFailures(rep))
					}
					found := false
					for _, r := range rep.Results {
						if r.Category == "robustness" && strings.HasPrefix(r.Case, m.robust) {
							found = true
							if r.Verdict != Fail || r.Level != Should {
								t.Errorf("%s: %s %s, want a SHOULD fail", r.Case, r.Level, r.Verdict)
							}
						}
					}
					if !found {
						t.Errorf("no robustness case %q...", m.robust)
					}
				})
			}
			t.Run(ch.channel+m.mode+" --robustness must", func(t *testing.T) {
				rep := checkOpts(t, ch.channel, Options{Argv: ch.argv, Categories: []string{"methods"}, Robustness: RobustnessMust})
				if !rep.Failed() {
					t.Error("no MUST failure with --robustness must")
				}
			})
		}
	}
}
