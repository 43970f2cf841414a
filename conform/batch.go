package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Sources of the batch cases. ACP v1 says nothing of batches; the v2
// transports page adopts JSON-RPC 2.0's batch rules and restates them.
const (
	srcV1Batch       = "spec: transports (no text on batches)"
	srcV2BatchArray  = srcV2Batch + " (an array of the responses)"
	srcV2BatchEmpty  = srcV2Batch + "; " + srcRPCBatch + " (empty: one -32600 response)"
	srcV2BatchNotify = srcV2Batch + " (no reply to a notification)"
)

// batchItem is one entry of a batch the checker sends: a request when
// request is set, else a notification.
type batchItem struct {
	method  string
	params  json.RawMessage
	request bool
}

// sendBatch writes items as one JSON array line and returns the ids of its
// requests; logged sees each id and method before the line goes out.
func (p *peer) sendBatch(items []batchItem, logged func(id, method string)) ([]string, error) {
	msgs := make([]map[string]any, 0, len(items))
	var ids []string
	for _, it := range items {
		msg := map[string]any{"jsonrpc": "2.0", "method": it.method, "params": it.params}
		if it.request {
			p.mu.Lock()
			p.nextID++
			n := p.nextID
			p.mu.Unlock()
			msg["id"] = n
			ids = append(ids, strconv.Itoa(n))
			logged(strconv.Itoa(n), it.method)
		}
		msgs = append(msgs, msg)
	}
	b, _ := json.Marshal(msgs)
	return ids, p.write(b)
}

// batches sends JSON-RPC batches: under v2 judged by the v2 transports
// page's rules, under v1 informational.
func (r *agentRun) batches(c *proc) {
	if err := c.ensure(); err != nil {
		return
	}
	if r.p.Protocol < 2 {
		r.batchV1(c)
		return
	}
	r.batchArray(c)
	r.batchEmpty(c)
	r.batchNotifications(c)
}

// mixedBatch is two requests (a valid session/new, or a second unknown
// method when the agent withholds session/new, and an unknown method) and a
// notification.
func (r *agentRun) mixedBatch() []batchItem {
	first := batchItem{"session/new", r.sessionParams(), true}
	if m := r.p.Method("session/new"); m == nil || r.isGated(m) {
		first = batchItem{"acpgen/conform_unknown", json.RawMessage(`{}`), true}
	}
	return []batchItem{
		first,
		{"acpgen/conform_unknown", json.RawMessage(`{}`), true},
		{"_acpgen/conform_note", json.RawMessage(`{}`), false},
	}
}

// batchReply sends items and returns the first answer after them (a batch
// line or a single response), nil when none came within the timeout.
func (r *agentRun) batchReply(c *proc, items []batchItem) (*frame, []string) {
	seq := c.seq()
	ids, err := c.sendBatch(items, func(id, m string) { c.run.log.expectLoose(c.tag, id, m) })
	if err != nil {
		return nil, nil
	}
	ctx, stop := context.WithTimeout(r.ctx, r.o.Timeout)
	defer stop()
	return c.wait(ctx, seq, func(f *frame) bool { return f.Bad == "" && f.Method == "" }), ids
}

// batchV1 records what a v1 agent does with a batch: ACP v1 has no text on
// them, so an array of responses and a single -32600 refusal both pass.
func (r *agentRun) batchV1(c *proc) {
	res := Result{Category: "batch", Case: "batch of two requests and a notification", Level: Info, Source: srcV1Batch,
		Expected: "an array of the two responses (JSON-RPC 2.0 §6), or one error -32600"}
	f, ids := r.batchReply(c, r.mixedBatch())
	res.Verdict, res.Observed = Fail, describeBatch(f)
	if codeIs(f, -32600) || batchAnswers(f, ids) == "" {
		res.Verdict = Pass
	}
	r.add(res)
}

// batchArray expects the mixed batch answered by an array holding one
// response per request.
func (r *agentRun) batchArray(c *proc) {
	res := Result{Category: "batch", Case: "batch of two requests and a notification", Level: Should, Source: srcV2BatchArray, kind: kindV2BatchArray,
		Expected: "an array with one response for each request"}
	f, ids := r.batchReply(c, r.mixedBatch())
	res.Verdict, res.Observed = Pass, describeBatch(f)
	if f == nil || f.Batch == nil {
		res.Verdict = Fail
	} else if missing := batchAnswers(f, ids); missing != "" {
		res.Verdict, res.Observed = Fail, res.Observed+"; "+missing
	}
	r.add(res)
	note := mustCase(kindV2BatchNotify, "", "batch: no response item for its notification", "only the requests' responses in the array")
	note.Verdict, note.Observed = Pass, describeBatch(f)
	if f != nil && f.Batch != nil && len(f.Batch) > len(ids) {
		note.Verdict = Fail
	}
	r.add(note)
}

// batchAnswers says which request ids an answer lacks, "" when it is an
// array answering each.
func batchAnswers(f *frame, ids []string) string {
	if f == nil || f.Batch == nil {
		return "not an array"
	}
	var missing []string
	for _, id := range ids {
		found := false
		for _, g := range f.Batch {
			found = found || (g.isResponse() && idIs(g.ID, id))
		}
		if !found {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return "no response for id " + strings.Join(missing, ", ")
	}
	return ""
}

// batchEmpty expects an empty array answered by one -32600 response, not
// an array.
func (r *agentRun) batchEmpty(c *proc) {
	res := mustCase(kindV2BatchEmpty, "", "empty batch []", "one response object (not an array): error -32600, id null")
	f, _ := r.batchReply(c, nil)
	res.Verdict, res.Observed = Fail, describeBatch(f)
	if f != nil && f.Batch == nil && codeIs(f, -32600) && string(f.ID) == "null" {
		res.Verdict = Pass
	}
	r.add(res)
}

// batchNotifications sends a batch of notifications only, then a request:
// any response before the request's is a reply to the notifications.
func (r *agentRun) batchNotifications(c *proc) {
	res := mustCase(kindV2BatchNotify, "", "batch of notifications only", "no reply; the next request answered")
	seq := c.seq()
	note := batchItem{"_acpgen/conform_note", json.RawMessage(`{}`), false}
	_, _ = c.sendBatch([]batchItem{note, note}, nil)
	f, err := c.request("acpgen/conform_unknown", json.RawMessage(`{}`))
	res.Verdict, res.Observed = Pass, "no reply"
	for _, g := range c.since(seq) {
		if g.Method == "" && g.Bad == "" && (f == nil || g.Seq < f.Seq) {
			res.Verdict, res.Observed = Fail, "replied: "+quote(g.Raw)
			break
		}
	}
	if err != nil {
		res.Verdict, res.Observed = Fail, "the next request: "+err.Error()
	}
	r.add(res)
}

// describeBatch summarises a batch's answer for the observed column.
func describeBatch(f *frame) string {
	switch {
	case f == nil:
		return "no answer"
	case f.Batch == nil:
		return "one response: " + describe(f)
	}
	parts := make([]string, 0, len(f.Batch))
	for _, g := range f.Batch {
		parts = append(parts, "id "+string(g.ID)+" "+describe(g))
	}
	return fmt.Sprintf("array of %d: %s", len(f.Batch), strings.Join(parts, "; "))
}
