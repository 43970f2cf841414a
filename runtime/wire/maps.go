package wire

import "sort"

// SortedKeys returns a map's keys in order, so generated encoders write maps
// deterministically.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
