package stats

import "math"

// CutShortS is how long before its planned end (Run.DurationS) a run's
// gateway records may stop before the run counts as cut short: one
// analysis window.
const CutShortS = AnalysisWindowS

// GatewayEndS is the time of the run's last gateway record: the latest
// turn done_s, session arrive_s or end_s, or event t_s; NaN without any.
func (x *RunIndex) GatewayEndS() float64 {
	d := x.Data
	end := math.Inf(-1)
	for i := range d.Turns {
		end = math.Max(end, d.Turns[i].DoneS)
	}
	for i := range d.Sessions {
		end = math.Max(end, d.Sessions[i].ArriveS)
		if e := d.Sessions[i].EndS; e != nil {
			end = math.Max(end, *e)
		}
	}
	for i := range d.Events {
		end = math.Max(end, d.Events[i].TS)
	}
	if math.IsInf(end, -1) {
		return math.NaN()
	}
	return end
}

// CutShort reports whether the run's gateway records stop more than
// CutShortS before its planned end; a run without a planned duration is
// never cut short (its end is its last record).
func (x *RunIndex) CutShort() bool {
	planned := x.Data.Run.DurationS
	if !(planned > 0) {
		return false
	}
	end := x.GatewayEndS()
	return math.IsNaN(end) || end < planned-CutShortS
}
