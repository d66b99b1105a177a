package outlastlog

// parseRFC3339 parses the common RFC 3339 form
// YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM) without allocating. ok is false
// for anything else, and the caller falls back to time.Parse, which also
// gives the error.
func parseRFC3339(b []byte) (sec int64, nsec int, ok bool) {
	minute, ok := parseMinute(b)
	if !ok {
		return 0, 0, false
	}
	return parseSeconds(b, minute)
}

// parseMinute parses the minute an RFC 3339 time b begins with,
// YYYY-MM-DDTHH:MM, as Unix seconds before the zone's offset, and checks
// that the rest is long enough to hold the seconds and a zone.
func parseMinute(b []byte) (int64, bool) {
	if len(b) < len("2006-01-02T15:04:05Z") || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' {
		return 0, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	minute, ok5 := digits(b[14:16])
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 {
		return 0, false
	}
	if day > daysIn(month, year) {
		return 0, false
	}
	return daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60), true
}

// parseSeconds parses the rest of RFC 3339 time b after its minute,
// :SS[.fraction](Z|±HH:MM), and returns the time in Unix seconds and
// nanoseconds, minute being what parseMinute returned for b's first 16
// bytes. b is at least 20 bytes long.
func parseSeconds(b []byte, minute int64) (sec int64, nsec int, ok bool) {
	second, ok := digits(b[17:19])
	if b[16] != ':' || !ok || second > 59 {
		return 0, 0, false
	}
	i := 19
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && isDigit(b[i]) {
			if i-start < 9 {
				nsec = nsec*10 + int(b[i]-'0')
			}
			i++
		}
		n := i - start
		if n == 0 || n > 9 {
			return 0, 0, false
		}
		for ; n < 9; n++ {
			nsec *= 10
		}
	}
	offset := 0
	switch rest := b[i:]; {
	case len(rest) == 1 && rest[0] == 'Z':
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, okh := digits(rest[1:3])
		om, okm := digits(rest[4:6])
		if !okh || !okm || oh > 23 || om > 59 {
			return 0, 0, false
		}
		offset = (oh*60 + om) * 60
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return 0, 0, false
	}
	return minute + int64(second) - int64(offset), nsec, true
}

// minuteCache remembers the last minute parseMinute parsed. A log's times
// come in order, most in the same minute as the one before, so the date
// and hour need parsing once a minute rather than four times a line.
type minuteCache struct {
	prefix [16]byte // YYYY-MM-DDTHH:MM
	minute int64
	valid  bool
}

// parse is parseRFC3339 through the cache.
func (c *minuteCache) parse(b []byte) (sec int64, nsec int, ok bool) {
	if c.valid && len(b) >= len("2006-01-02T15:04:05Z") && string(b[:16]) == string(c.prefix[:]) {
		return parseSeconds(b, c.minute)
	}
	minute, ok := parseMinute(b)
	if !ok {
		return 0, 0, false
	}
	copy(c.prefix[:], b[:16])
	c.minute, c.valid = minute, true
	return parseSeconds(b, minute)
}

// daysFromCivil returns the days from 1970-01-01 to a valid proleptic
// Gregorian date (H. Hinnant's days_from_civil): what time.Date computes,
// without its normalisation, which showed in profiles at four times a line.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399 // floor division
	}
	era /= 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

func digits(b []byte) (int, bool) {
	v := 0
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
