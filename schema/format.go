package schema

import "strconv"

// TriggerString prints a run's trigger as "KIND START–END s", then the
// extra rate ("+R/s"), the rate after a change ("→R/s") and other keys,
// e.g. "burst 900–1200s +0.0525/s". Every command that names a run's
// trigger prints it this way; a missing time prints as "null".
func (r *Run) TriggerString() string {
	kind := r.TriggerKind
	if kind == "" {
		kind = TriggerNone
	}
	s := kind
	if r.TriggerStartS != nil || r.TriggerEndS != nil {
		s += " " + optFloat(r.TriggerStartS) + "–" + optFloat(r.TriggerEndS) + "s"
	}
	if r.TriggerExtraRate != nil {
		s += " +" + fmtFloat(*r.TriggerExtraRate) + "/s"
	}
	if r.TriggerRateAfter != nil {
		s += " →" + fmtFloat(*r.TriggerRateAfter) + "/s"
	}
	if r.TriggerExtra != "" && r.TriggerExtra != "{}" {
		s += " " + r.TriggerExtra
	}
	return s
}

// ControlString prints a run's control as "KIND@STARTs" and its
// parameters, e.g. "budgeter@1200s {"high":0.95,"low":0.75}".
func (r *Run) ControlString() string {
	kind := r.ControlKind
	if kind == "" {
		kind = ControlNone
	}
	s := kind
	if r.ControlStartS != nil && kind != ControlNone {
		s += "@" + fmtFloat(*r.ControlStartS) + "s"
	}
	if r.ControlParams != "" && r.ControlParams != "{}" {
		s += " " + r.ControlParams
	}
	return s
}

func optFloat(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmtFloat(*v)
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
