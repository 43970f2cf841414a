package conform

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/acpgen/acpgen/generator/ir"
)

// turnKinds are the session/update kinds that are a prompt turn's own
// output. The others (session_info_update, available_commands_update,
// current_mode_update, config option and usage updates) describe the
// session and may come whenever the schema allows them, after a turn's
// response too, so the ordering cases do not count them.
var turnKinds = map[string]bool{
	"agent_message_chunk": true,
	"agent_thought_chunk": true,
	"tool_call":           true,
	"tool_call_update":    true,
	"plan":                true,
	// v2's
	"agent_message":           true,
	"agent_thought":           true,
	"tool_call_content_chunk": true,
	"plan_update":             true,
	"terminal_output_chunk":   true,
}

// turnOutput reports whether f is a session/update of session that is turn
// output.
func turnOutput(f *frame, session string) bool {
	if f.Method != "session/update" || sessionOf(f) != session {
		return false
	}
	var p struct {
		Update struct {
			SessionUpdate string `json:"sessionUpdate"`
		} `json:"update"`
	}
	_ = json.Unmarshal(f.Params, &p)
	return turnKinds[p.Update.SessionUpdate]
}

// advertised fills the ids a method's params name agent state with what the
// agent advertised in session/new's result (created): a mode for modeId, a
// config option and one of its values for configId and value. Without them
// the def's example ids name nothing the agent has.
func (r *agentRun) advertised(m *ir.Method, params, created json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if m.Params == nil || json.Unmarshal(params, &obj) != nil {
		return params
	}
	var state struct {
		Modes *struct {
			AvailableModes []struct {
				ID json.RawMessage `json:"id"`
			} `json:"availableModes"`
		} `json:"modes"`
		ConfigOptions []map[string]json.RawMessage `json:"configOptions"`
	}
	if json.Unmarshal(created, &state) != nil {
		return params
	}
	changed := false
	if m.Params.Member("modeId") != nil && state.Modes != nil && len(state.Modes.AvailableModes) > 0 {
		obj["modeId"], changed = state.Modes.AvailableModes[0].ID, true
	}
	if m.Params.Member("configId") != nil && len(state.ConfigOptions) > 0 {
		opt := state.ConfigOptions[0]
		id := opt["id"] // v1
		if id == nil {
			id = opt["configId"] // v2
		}
		if id != nil {
			obj["configId"], changed = id, true
			if v := opt["currentValue"]; v != nil {
				// Setting the current value is valid and changes nothing.
				obj["value"] = v
				r.valueType(obj, opt["type"])
			}
		}
	}
	if !changed {
		return params
	}
	b, _ := json.Marshal(obj)
	return b
}

// valueType tags the value set_config_option sends with its variant: a
// boolean option's "boolean"; a select option's value is a value id, which
// v2 tags "id" and v1 leaves untagged. The def's example may carry another
// variant's tag.
func (r *agentRun) valueType(params map[string]json.RawMessage, optionType json.RawMessage) {
	switch {
	case string(optionType) == `"boolean"`:
		params["type"] = optionType
	case r.p.Protocol >= 2:
		params["type"] = json.RawMessage(`"id"`)
	default:
		delete(params, "type")
	}
}

// lifecycle orders the methods the way a client calls them: logging in
// first, the methods that end a session or the login last, the rest in
// schema order.
func lifecycle(methods []*ir.Method) []*ir.Method {
	rank := func(m *ir.Method) int {
		switch m.Wire {
		case "authenticate", "auth/login":
			return 0
		case "session/close", "session/delete":
			return 3
		case "logout", "auth/logout":
			return 4
		}
		if _, ok := cancelTargets[m.Wire]; ok {
			return 2 // after the prompt turn that may advertise their objects
		}
		return 1
	}
	out := append([]*ir.Method(nil), methods...)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}

// unsupportedBlockType is a content block type no agent supports: v2
// reserves unknown types without "_" for future variants.
const unsupportedBlockType = "acpgen_conform_unsupported"

// unsupportedBlock sends a prompt with a content block of a type the agent
// cannot support; the v2 schema states the answer: -32602.
func (r *agentRun) unsupportedBlock(c *proc, m *ir.Method, valid json.RawMessage) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(valid, &obj) != nil {
		return
	}
	for _, f := range m.Params.Fields {
		if f.Ref == nil || f.Ref.Elem == nil || f.Ref.Elem.Type == nil || f.Ref.Elem.Type.Def != "ContentBlock" {
			continue
		}
		obj[f.JSON], _ = json.Marshal([]any{
			map[string]any{"type": "text", "text": promptText},
			map[string]any{"type": unsupportedBlockType, "text": promptText},
		})
		params, _ := json.Marshal(obj)
		res := mustCase(kindBlockType, "", m.Wire+" /"+f.JSON+" unsupported content block type", "error -32602")
		resp, err := c.request(m.Wire, params)
		res.Verdict, res.Observed = codeVerdict(resp, err, -32602)
		r.add(res)
		return
	}
}

// tinyPNG is a 1x1 PNG, base64: an image block's data.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// advertisedImage sends a prompt with an image block beside its text when
// the agent advertises promptCapabilities.image (v1, whose turn ends with
// the response): valid params the agent said it takes, so a result.
func (r *agentRun) advertisedImage(c *proc, m *ir.Method, valid json.RawMessage) {
	if !endsInResponse(r.p.Model.Turn) || !capGranted(r.caps, []string{"agentCapabilities", "promptCapabilities", "image"}) {
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(valid, &obj) != nil || obj["prompt"] == nil {
		return
	}
	obj["prompt"], _ = json.Marshal([]any{
		map[string]any{"type": "text", "text": promptText},
		map[string]any{"type": "image", "data": tinyPNG, "mimeType": "image/png"},
	})
	params, _ := json.Marshal(obj)
	res := mustCase(kindValidParams, "", m.Wire+" with an image block (advertised promptCapabilities.image)", "result valid against "+m.Result.Def)
	f, err := c.request(m.Wire, params)
	r.refusedBy(m.Wire, f)
	switch {
	case err != nil:
		res.Verdict, res.Observed = Fail, err.Error()
	case f.Error != nil:
		res.Verdict, res.Observed = Fail, describe(f)
	default:
		res.Verdict, res.Observed = Pass, describe(f)
		if vs, _ := r.p.Violations(m.Result.Def, f.Result); len(vs) > 0 {
			res.Verdict, res.Observed = Fail, fmt.Sprintf("/result%s: %s", vs[0].Pointer, vs[0].Reason)
		}
	}
	r.add(res)
}
