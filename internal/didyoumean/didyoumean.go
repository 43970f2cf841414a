// Package didyoumean picks the name a user most likely meant, for "did you
// mean" hints on commands, flags and their values.
package didyoumean

import (
	"strings"

	"github.com/xrash/smetrics"
)

// minSimilarity keeps unrelated words from being suggested: "genrate" and
// "generate" score 0.90, "2.4" and "2.4.0" 0.91, "nope" and "init" 0.5.
const minSimilarity = 0.8

// Nearest is the candidate nearest to word by Jaro-Winkler similarity (as
// urfave/cli's own suggestions measure it, ignoring case), or "" when none
// is near enough to be what was meant, or word is itself a candidate.
func Nearest(word string, candidates []string) string {
	best, score := "", minSimilarity
	for _, c := range candidates {
		if c == word {
			return ""
		}
		if s := smetrics.JaroWinkler(strings.ToLower(word), strings.ToLower(c), 0.7, 4); s >= score {
			best, score = c, s
		}
	}
	return best
}
