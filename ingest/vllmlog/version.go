package vllmlog

import (
	"bytes"
	"strconv"
)

// The lines that print vLLM's version: the API server's
// (entrypoints/openai/api_server.py), the engine core's config line
// (v1/engine/core.py; llm_engine.py before V1), and the 2026 start-up
// banner (entrypoints/utils.py, "▀▄▀ █  version 0.28.0").
var versionLines = [...][]byte{
	[]byte("vLLM API server version "),
	[]byte("Initializing a V1 LLM engine (v"),
	[]byte("Initializing an LLM engine (v"),
	[]byte("█  version "),
}

// versionOf returns the vLLM version a message prints, as printed
// ("0.28.0", "0.10.2.dev378+g4d7fe40fc.d20250829").
func versionOf(msg []byte) ([]byte, bool) {
	for i, p := range versionLines {
		var rest []byte
		if i == len(versionLines)-1 {
			j := bytes.Index(msg, p)
			if j < 0 {
				continue
			}
			rest = msg[j+len(p):]
		} else if r, ok := bytes.CutPrefix(msg, p); ok {
			rest = r
		} else {
			continue
		}
		end := 0
		for end < len(rest) && rest[end] != ' ' && rest[end] != ')' {
			end++
		}
		if end > 0 && rest[0] >= '0' && rest[0] <= '9' {
			return rest[:end], true
		}
	}
	return nil, false
}

// builtIn2026 reports whether a vLLM version was built in 2026: a release
// line from 0.14 on (v0.14.0rc0 was tagged in January 2026), or a
// development build whose version carries the date setuptools-scm adds to
// a build of a changed tree (".d20260302"). A development build of an
// untagged checkout ("0.1.dev11234+g…") dates nothing.
func builtIn2026(v []byte) bool {
	if i := bytes.LastIndex(v, []byte(".d")); i >= 0 && len(v)-i-2 == 8 {
		if y, err := strconv.Atoi(string(v[i+2 : i+6])); err == nil {
			return y >= 2026
		}
	}
	parts := bytes.SplitN(v, []byte("."), 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(string(parts[0]))
	minorDigits := parts[1]
	k := 0
	for k < len(minorDigits) && minorDigits[k] >= '0' && minorDigits[k] <= '9' {
		k++
	}
	minor, err2 := strconv.Atoi(string(minorDigits[:k]))
	if err1 != nil || err2 != nil {
		return false
	}
	return major > 0 || minor >= 14
}
