package enginelog

// This file recognises a launcher's bracketed stamp, which SGLang's own
// header resembles.

// levelWord returns the length of one of Python logging's level names, as
// launchers and vLLM print them, and its space at the start of b; 0 if b
// does not begin with one.
func levelWord(b []byte) int {
	if len(b) < 5 {
		return 0
	}
	var w string
	switch b[0] {
	case 'I':
		w = "INFO "
	case 'D':
		w = "DEBUG "
	case 'W':
		if w = "WARNING "; b[4] == ' ' {
			w = "WARN "
		}
	case 'E':
		w = "ERROR "
	case 'C':
		w = "CRITICAL "
	default:
		return 0
	}
	// The second letter first: "Decode batch" after SGLang's stamp is
	// turned down without a comparison of strings.
	if b[1] != w[1] || len(b) < len(w) || string(b[:len(w)]) != w {
		return 0
	}
	return len(w)
}

// matchLauncher matches a launcher's "[YYYY-MM-DD HH:MM:SS(,mmm)?] ". The
// same stamp, alone, is SGLang's own header, so it is a wrapper only when
// a level word, a process prefix, another bracketed stamp or a vLLM header
// follows; a level word followed by another line's start is the
// launcher's and is taken with it.
//
// It matches as well an RFC 3339 stamp in brackets, "[2025-10-16T06:08:44Z]
// ", which no engine's header resembles: the Buildkite agent's, which
// prefixes each line of a job's output so with --timestamp-lines
// (fmt.Sprintf("[%s] %s", time.Now().UTC().Format(time.RFC3339), line) in
// buildkite/agent's agent/job_runner.go), as vLLM's CI logs are pasted
// (vllm-project/vllm#27815). Its zone makes it an instant.
func matchLauncher(b []byte) (int, stampSpan) {
	if len(b) > 12 && b[0] == '[' && b[11] == 'T' {
		n, zoned := rfc3339(b[1:])
		if n == 0 || n+2 >= len(b) || b[n+1] != ']' || b[n+2] != ' ' {
			return 0, stampSpan{}
		}
		return SkipSpaces(b, n+2), stampSpan{1, n + 1, zoned}
	}
	if len(b) < 23 || b[0] != '[' {
		return 0, stampSpan{}
	}
	end := 20
	if b[end] == ',' || b[end] == '.' {
		end += 1 + digits(b[end+1:])
	}
	if end >= len(b) || b[end] != ']' {
		return 0, stampSpan{}
	}
	i := SkipSpaces(b, end+1)
	if i == end+1 || i >= len(b) {
		return 0, stampSpan{}
	}
	switch b[i] {
	case '(', '[', 'I', 'D', 'W', 'E', 'C': // a line's start, a level word
	default:
		return 0, stampSpan{}
	}
	// What follows first, the stamp after: SGLang's own "[date time]
	// Decode batch, ..." is turned down without parsing its stamp.
	n := 0
	if startsLine(b[i:]) {
		n = i
	} else if lw := levelWord(b[i:]); lw > 0 {
		var st Stamp
		rest := b[SkipSpaces(b, i+lw):]
		switch {
		case startsLine(rest) || levelWord(rest) > 0:
			n = len(b) - len(rest)
		case len(rest) >= 14 && st.MonthDay(rest) && rest[5] == ' ' && st.TimeOfDay(rest[6:]):
			n = i // the level word begins vLLM's header
		}
	}
	var st Stamp
	if n == 0 || !st.Date(b[1:]) || b[11] != ' ' || !st.TimeOfDay(b[12:]) {
		return 0, stampSpan{}
	}
	return n, stampSpan{1, end, false}
}

// launcherLikely reports whether b, which begins with "[" and a digit,
// may begin with a launcher's stamp: "]" (or a fraction) after the time
// and then what matchLauncher looks for.
func launcherLikely(b []byte) bool {
	if len(b) > 12 && b[11] == 'T' {
		return true // an RFC 3339 stamp, which no engine's header is
	}
	if len(b) < 23 || b[20] != ']' && b[20] != ',' && b[20] != '.' {
		return false
	}
	if b[20] != ']' {
		return true // a fraction: matchLauncher finds the ']'
	}
	c := b[22]
	return c == '(' || c == '[' || levelWord(b[22:]) > 0
}

// startsLine reports whether b begins with what begins another line: a
// process prefix or a bracketed date.
func startsLine(b []byte) bool {
	var st Stamp
	n, _ := procPrefix(b)
	return n > 0 || len(b) > 11 && b[0] == '[' && st.Date(b[1:])
}
