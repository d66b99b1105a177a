package sglanglog

import (
	"bytes"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/schema"
)

// form is a shape of batch line: its kind, how its fields are separated,
// the fields it has always carried, and the dialect rank it shows by
// itself (0: the punctuation decides).
type form struct {
	kind  string
	what  string // the line's name in an error
	sep   []byte
	needs needs
	rank  int
	// drop is a key this form's lines carry with another meaning than
	// the sample field it maps to, passed over (keyNone for none).
	drop keyID
}

var (
	// prefillForm is "Prefill batch. #new-seq: ..." (scheduler.py, later
	// scheduler_metrics_mixin.py), with "," since October 2025.
	prefillForm = form{kind: schema.LinePrefill, what: "SGLang prefill batch line", sep: []byte(", "), needs: needNewSeq | needNewToken | needCached | needRunning | needQueue}
	// decodeForm is "Decode batch. #running-req: ...". Since decode-side
	// radix caching (2026-04) it may carry "#cached-token: N" after
	// #running-req: the cached prompt tokens of the requests in the running
	// batch (sum(r.cached_tokens for r in batch.reqs), 0 without
	// --disaggregation-decode-enable-radix-cache; report_decode_stats in
	// managers/scheduler_components/metrics_reporter.py), a state of the
	// batch, not the prefill's radix hits that the sample's cached_tokens
	// holds: it is passed over.
	decodeForm = form{kind: schema.LineDecode, what: "SGLang decode batch line", sep: []byte(", "), needs: needRunning | needTokens | needUsage | needQueue, drop: keyCached}
	// fillForm is SGLang 0.1's prefill line, "new fill batch. #seq: 1.
	// #cached_token: 330. #new_token: 2172. #remaining_req: 57.
	// #running_req: 9. tree_cache_hit_rate: 69.16%." (router/model_rpc.py),
	// without a header; the first versions had no #cached_token.
	fillForm = form{kind: schema.LinePrefill, what: "SGLang 0.1 prefill line", sep: []byte(". "), needs: needNewSeq | needNewToken | needRunning | needQueue, rank: rank01}
	// bareForm is SGLang 0.1's decode line, "#running-req: 5, #token: 1938,
	// token usage: 0.24, #queue-req: 0", without a header or a name.
	bareForm = form{kind: schema.LineDecode, what: "SGLang 0.1 decode line", sep: []byte(", "), needs: needRunning | needTokens | needUsage | needQueue, rank: rank01, drop: keyCached}
)

// batch is a batch line found in a line's Text.
type batch struct {
	form   *form
	at     int // where the message begins
	fields int // where the fields begin
	end    int // where they end, without a trailing comma or period
	// punct is the punctuation after the name ('.' or ','), trailing
	// whether the fields ended in a comma; mixed is the running count of
	// a mixed prefill, "Prefill batch(mixed #running-req: 3). ", -1
	// without one.
	punct    byte
	trailing bool
	mixed    int64
}

var (
	prefillBatch = []byte("Prefill batch")
	decodeBatch  = []byte("Decode batch")
	newFill      = []byte("new fill batch. ")
	bareDecode   = []byte("#running-req: ")
	mixedOpen    = []byte("(mixed #running-req: ")
	gpuIDOpen    = []byte("[gpu_id=")
	batchWord    = []byte("batch")
)

// findBatch finds the batch line whose message begins at b[at:] into bt,
// reporting whether the message is one.
func findBatch(b []byte, at int, bt *batch) bool {
	msg := b[at:]
	if len(msg) == 0 {
		return false
	}
	switch msg[0] { // a byte first, then the words: most messages are none
	case 'P', 'D', 'n', '#':
	default:
		return false
	}
	*bt = batch{at: at, mixed: -1}
	var rest []byte
	switch {
	case bytes.HasPrefix(msg, prefillBatch):
		bt.form, rest = &prefillForm, msg[len(prefillBatch):]
		if r, ok := bytes.CutPrefix(rest, mixedOpen); ok {
			n := bytes.IndexByte(r, ')')
			v, ok := enginelog.ParseUint(r[:max(n, 0)])
			if n < 0 || !ok {
				return false
			}
			bt.mixed, rest = v, r[n+1:]
		}
	case bytes.HasPrefix(msg, decodeBatch):
		bt.form, rest = &decodeForm, msg[len(decodeBatch):]
	case bytes.HasPrefix(msg, newFill):
		bt.form, bt.fields, bt.end = &fillForm, at+len(newFill), len(b)
		if b[bt.end-1] == '.' {
			bt.end--
		}
		return true
	case bytes.HasPrefix(msg, bareDecode):
		bt.form, bt.fields, bt.end = &bareForm, at, len(b)
		return true
	default:
		return false
	}
	// "(Prefill|Decode) batch( \[\d+\])?[.,] "
	if n := iterTag(rest); n > 0 {
		rest = rest[n:]
	}
	if len(rest) == 0 {
		// The words alone closing the line: a batch line cut right after
		// them (its fields are missing, an error), not another message.
		bt.fields, bt.end = len(b), len(b)
		return true
	}
	if (rest[0] != '.' && rest[0] != ',') || (len(rest) > 1 && rest[1] != ' ') {
		return false // another message that begins with these words
	}
	bt.punct = rest[0]
	bt.fields, bt.end = enginelog.SkipSpaces(b, len(b)-len(rest)+1), len(b)
	// SGLang 0.4-0.5 end the fields in ", " (the blank is gone with the
	// line's trailing blanks); a line ending in ", ," is not followed by
	// an empty field either.
	if bt.end > bt.fields && b[bt.end-1] == ',' {
		bt.trailing = true
		bt.end = len(bytes.TrimSuffix(b[bt.fields:bt.end-1], []byte(", "))) + bt.fields
	}
	return true
}

// gpuID returns the length of the "[gpu_id=0] " in front of the batch
// lines of mid-2024 (managers/controller/tp_worker.py), 0 without one.
func gpuID(msg []byte) int {
	if len(msg) == 0 || msg[0] != '[' {
		return 0
	}
	r, ok := bytes.CutPrefix(msg, gpuIDOpen)
	if !ok {
		return 0
	}
	d := 0
	for d < len(r) && r[d] >= '0' && r[d] <= '9' {
		d++
	}
	if d == 0 || !bytes.HasPrefix(r[d:], []byte("] ")) {
		return 0
	}
	return len(gpuIDOpen) + d + 2
}

// batchElsewhere finds a batch line on a line whose preamble is not
// followed by an SGLang header: the line's own message (SGLang 0.1 printed
// no header, and people paste messages without theirs), or a batch line
// after other text, with its header in front of it (glued: a progress bar
// or streamed output written without a newline) or none.
func batchElsewhere(l *enginelog.Line, h *header, bt *batch) (hok, glued, ok bool) {
	b := l.Text
	*h = header{}
	if findBatch(b, l.Start, bt) {
		return false, false, true
	}
	k := bytes.Index(b[l.Start:], batchWord)
	if k < 0 {
		return false, false, false
	}
	k += l.Start
	var at int
	switch {
	case bytes.HasSuffix(b[:k], prefillBatch[:len("Prefill ")]):
		at = k - len("Prefill ")
	case bytes.HasSuffix(b[:k], decodeBatch[:len("Decode ")]):
		at = k - len("Decode ")
	default:
		return false, false, false
	}
	if !findBatch(b, at, bt) {
		return false, false, false
	}
	// The header ends right before the message (or before its gpu_id).
	for j, tries := at, 0; tries < 2; tries++ {
		open := bytes.LastIndexByte(b[l.Start:j], '[')
		if open < 0 {
			break
		}
		j = l.Start + open
		if *h, hok = parseHeader(l, j); hok && (h.msg == at || h.msg+gpuID(b[h.msg:]) == at) {
			return true, true, true
		}
	}
	*h = header{}
	return false, false, true
}
