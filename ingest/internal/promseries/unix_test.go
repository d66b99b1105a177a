package promseries

import "testing"

func TestParseUnix(t *testing.T) {
	cases := []struct {
		in        string
		sec, nsec int64
		ok        bool
	}{
		{"1761566412.250", 1761566412, 250000000, true},
		{"1761566412", 1761566412, 0, true},
		{"1761566412.1234567891", 1761566412, 123456789, true},
		{"12.", 12, 0, true},
		{"1761566412.05", 1761566412, 50000000, true},
		{"1.5e3", 1500, 0, true},
		{"-5", 0, 0, false},
		{"1e400", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, c := range cases {
		sec, nsec, ok := ParseUnix([]byte(c.in))
		if sec != c.sec || nsec != c.nsec || ok != c.ok {
			t.Errorf("ParseUnix(%q) = %d, %d, %v", c.in, sec, nsec, ok)
		}
	}
}
