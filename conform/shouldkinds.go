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

	kindExtUnknown      = "unknown-method: _ request answered -32601"
	kindConfigSet       = "methods: session/set_config_option answers every option"
	kindTurnOrder       = "order: turn output before its response"
	kindTurnSession     = "order: turn updates name their session"
	kindV2AfterIdle     = "order: v2 turn output before its idle"
	kindV2IdleStop      = "order: v2 idle carries a stopReason"
	kindV2UserMessageID = "order: v2 user message update carries the prompt's messageId"
	kindV2DistinctIDs   = "order: v2 prompts of one session get distinct messageIds"
	kindV2ReplayOrder   = "order: v2 session/resume replays the history in the session's order"
	kindV2CloseQuiet    = "cancel: v2 no message for a session after its close response"
	kindV2BatchArray    = "batch: v2 batch answered by an array of responses"
	// The keyed update rules (keyed.go): "frames: " and the rule's name.
	kindKeyedTool      = "frames: tool_call_update names an id its session's tool_call introduced"
	kindKeyedToolChunk = "frames: tool_call_content_chunk names an id its session's tool_call_update introduced"
	kindKeyedTerminal  = "frames: terminal_output_chunk names an id its session's terminal_update introduced"
	kindChunkIDReturns = "frames: " + chunkCase
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
	kindExtUnknown:      {"unknown-method", srcExtension},
	kindConfigSet:       {"methods", srcConfigSet},
	kindTurnOrder:       {"order", srcPromptTurn},
	kindTurnSession:     {"order", srcUpdateSession},
	kindV2AfterIdle:     {"order", srcV2Idle},
	kindV2IdleStop:      {"order", srcV2Stop},
	kindV2UserMessageID: {"order", srcV2Echo},
	kindV2DistinctIDs:   {"order", srcV2MessageIDs},
	kindV2ReplayOrder:   {"order", srcV2ReplayOrder},
	kindV2CloseQuiet:    {"cancel", srcV2Closed},
	kindV2BatchArray:    {"batch", srcV2BatchArray},
	kindKeyedTool:       {"frames", srcKeyedTool},
	kindKeyedToolChunk:  {"frames", srcKeyedToolChunk},
	kindKeyedTerminal:   {"frames", srcKeyedTerminal},
	kindChunkIDReturns:  {"frames", chunkSource},
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
