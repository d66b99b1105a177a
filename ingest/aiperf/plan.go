package aiperf

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// PlanFile is the dataset AIPerf writes beside its export: every
// conversation it may send, each with one formatted payload per turn
// (dataset/dataset_manager.py, InputsFile: {"data": [{"session_id",
// "payloads"}]}). A record's conversation_id is its session_id.
const PlanFile = "inputs.json"

// ReadPlan reads PlanFile from r, named name in errors, into the number of
// turns AIPerf planned for each conversation. The payloads are skipped, not
// kept: the file holds every prompt of the dataset.
func ReadPlan(r io.Reader, name string) (map[string]int64, error) {
	dec := json.NewDecoder(r)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: byte %d: %s", name, dec.InputOffset(), fmt.Sprintf(format, args...))
	}
	syntax := func(err error) error {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fail("the file ends inside its JSON: it was cut short")
		}
		return fail("%v", err)
	}
	if tok, err := dec.Token(); err != nil {
		return nil, syntax(err)
	} else if tok != json.Delim('{') {
		return nil, fail("want an object holding data, got %v", tok)
	}
	plan := map[string]int64{}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		if key != "data" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, syntax(err)
			}
			continue
		}
		if tok, err := dec.Token(); err != nil {
			return nil, syntax(err)
		} else if tok != json.Delim('[') {
			return nil, fail("data: want a list of sessions, got %v", tok)
		}
		for dec.More() {
			var s struct {
				SessionID *string           `json:"session_id"`
				Payloads  []json.RawMessage `json:"payloads"`
			}
			if err := dec.Decode(&s); err != nil {
				return nil, syntax(err)
			}
			if s.SessionID != nil && *s.SessionID != "" {
				plan[*s.SessionID] = int64(len(s.Payloads))
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, syntax(err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntax(err)
	}
	return plan, nil
}

// SetPlan gives the reader each conversation's planned turns (ReadPlan):
// every turn of a conversation it holds carries its count (Planned).
func (r *Reader) SetPlan(plan map[string]int64) { r.plan = plan }
