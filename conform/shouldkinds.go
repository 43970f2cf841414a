package conform

// The agent checker's SHOULD kinds: the SHOULD rules that rest on a sentence
// of the spec, the schema or an RFC of their own (a plain statement or a
// "should"). Each has a broken-agent fixture mode that fails it
// (TestEveryMustKindHasAFixture); a case of one names its kind.
const (
	kindAuthIDs         = "initialize: authMethods have distinct ids"
	kindEnvNamesV1      = "initialize: terminal auth env names unique (object members)"
	kindListEmpty       = "methods: session/list filter matching nothing lists nothing"
	kindResumeNoReplay  = "order: session/resume without replay replays nothing"
	kindUnprefixedKind  = "frames: custom session update kinds begin with _"
	kindUnprefixedStop  = "frames: custom stop reasons begin with _"
	kindUnprefixedAuth  = "frames: custom auth method types begin with _"
	kindV2RestartReplay = "persistence: v2 session/resume replays the recorded turn after a restart"
)

var shouldKinds = map[string]mustKind{
	kindAuthIDs:         {"initialize", srcAuthIDs},
	kindEnvNamesV1:      {"initialize", srcJSONNames},
	kindListEmpty:       {"methods", srcListFilter},
	kindResumeNoReplay:  {"order", ""},
	kindUnprefixedKind:  {"frames", srcV2UpdateOther},
	kindUnprefixedStop:  {"frames", srcV2StopOther},
	kindUnprefixedAuth:  {"frames", srcV2AuthOther},
	kindV2RestartReplay: {"persistence", srcV2RestartReplay},
}

// shouldCase starts a SHOULD result of kind; source, when given, replaces
// the kind's (a kind whose sentence differs between protocol versions).
func shouldCase(kind, name, source, expected string) Result {
	k, ok := shouldKinds[kind]
	if !ok {
		panic("conform: no SHOULD kind " + kind)
	}
	if source == "" {
		source = k.Source
	}
	return Result{Category: k.Category, Case: name, Level: Should, Source: source, Expected: expected, kind: kind}
}
