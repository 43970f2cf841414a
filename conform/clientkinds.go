package conform

// Sources of the client checker's own cases.
const (
	srcLaunch     = "spec: transports stdio (the client launches the agent)"
	srcInitParams = "schema: InitializeRequest required"
	// v1's SessionUpdate is a closed union: an unknown variant breaks the
	// schema, and what a client does with it is its own choice.
	srcClosedUpdate = "schema: SessionUpdate (closed union)"
	// v2's SessionUpdate has a catch-all: "Receivers that do not understand
	// this update type should ... ignore it or display it generically".
	srcV2OtherUpdate = "schema v2: SessionUpdate other (receivers should ignore it)"
)

// The client checker's own MUST kinds. It shares the frames and gates kinds,
// the unknown request's and keeps-running (a request the client holds must
// be answered) with the agent checker.
const (
	kindClientStarts     = "initialize: the client starts the agent"
	kindClientInitFirst  = "initialize: initialize before any other request"
	kindClientInitParams = "initialize: params a valid InitializeRequest"
	kindClientResults    = "requests: granted requests answered with a valid result"
)

// clientMustKinds are the MUST kinds the client checker judges.
var clientMustKinds = func() map[string]mustKind {
	k := map[string]mustKind{
		kindClientStarts:     {"initialize", srcLaunch},
		kindClientInitFirst:  {"initialize", srcInit},
		kindClientInitParams: {"initialize", srcInitParams},
		kindClientResults:    {"requests", srcResultDef},
	}
	for _, shared := range []string{kindKeepsRunning, kindUnknownReq, kindLines, kindUTF8, kindResponseIDs,
		kindResultOrErr, kindErrorObjects, kindUnknownSent, kindExtension, kindSchema, kindGates} {
		k[shared] = mustKinds[shared]
	}
	return k
}()
