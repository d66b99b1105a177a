package compare

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/schema"
)

// Key fields: the parts of a run's configuration that runs must share to
// be compared. Each names one or more columns of the runs table; the
// engine's own columns (engine_name, engine_version, engine_model) are never
// part of the key, since they are what a comparison usually varies.
const (
	FieldDesign   = "design"   // design
	FieldArm      = "arm"      // arm
	FieldLambda   = "lambda"   // arrival_rate
	FieldPool     = "pool"     // kv_pool_tokens
	FieldCaching  = "caching"  // prefix_caching
	FieldTrigger  = "trigger"  // trigger_kind, trigger_start_s, trigger_end_s, trigger_extra_rate, trigger_rate_after, trigger_extra
	FieldControl  = "control"  // control_kind, control_start_s, control_params
	FieldWorkload = "workload" // workload_turns, think_mean_s, system_tokens, task_tokens, output_tokens, tool_tokens, workload_extra
)

// KeyFields lists the key fields in the order they are printed.
var KeyFields = []string{FieldDesign, FieldArm, FieldLambda, FieldPool, FieldCaching, FieldTrigger, FieldControl, FieldWorkload}

// keyFieldOfColumn maps a runs-table column to the key field it belongs to.
var keyFieldOfColumn = map[string]string{
	"design": FieldDesign, "arm": FieldArm, "arrival_rate": FieldLambda,
	"kv_pool_tokens": FieldPool, "prefix_caching": FieldCaching,
	"trigger_kind": FieldTrigger, "trigger_start_s": FieldTrigger, "trigger_end_s": FieldTrigger,
	"trigger_extra_rate": FieldTrigger, "trigger_rate_after": FieldTrigger, "trigger_extra": FieldTrigger,
	"control_kind": FieldControl, "control_start_s": FieldControl, "control_params": FieldControl,
	"workload_turns": FieldWorkload, "think_mean_s": FieldWorkload, "system_tokens": FieldWorkload,
	"task_tokens": FieldWorkload, "output_tokens": FieldWorkload, "tool_tokens": FieldWorkload,
	"workload_extra": FieldWorkload,
}

// KeyFieldOf returns the key field that a runs-table column (or a key
// field's own name) belongs to, and false when the column is not part of
// the key (engine_version, label.gpu, ...).
func KeyFieldOf(column string) (string, bool) {
	for _, f := range KeyFields {
		if f == column {
			return f, true
		}
	}
	f, ok := keyFieldOfColumn[column]
	return f, ok
}

// Config is a run's configuration: the value of every key field, as
// printed. Two runs are matched when their Configs are equal after the
// ignored fields are blanked.
type Config [8]string

// ConfigOf returns the configuration of r.
func ConfigOf(r *schema.Run) Config {
	var c Config
	c[0] = r.Design
	c[1] = r.Arm
	c[2] = optFloat(r.ArrivalRate)
	c[3] = optInt(r.KVPoolTokens)
	c[4] = "off"
	if r.PrefixCaching {
		c[4] = "on"
	}
	c[5] = r.TriggerString()
	c[6] = r.ControlString()
	c[7] = workloadString(r)
	return c
}

// Field returns the value of key field name.
func (c Config) Field(name string) string {
	for i, f := range KeyFields {
		if f == name {
			return c[i]
		}
	}
	return ""
}

// without blanks the given key fields.
func (c Config) without(ignored map[string]bool) Config {
	for i, f := range KeyFields {
		if ignored[f] {
			c[i] = ""
		}
	}
	return c
}

// label prints the fields in show as "field=value" joined by spaces, or
// "all" when show is empty (every field is the same on every row).
func (c Config) label(show []int) string {
	if len(show) == 0 {
		return "all"
	}
	parts := make([]string, len(show))
	for k, i := range show {
		parts[k] = KeyFields[i] + "=" + c[i]
	}
	return strings.Join(parts, " ")
}

func optFloat(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmtFloat(*v)
}

func optInt(v *int64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatInt(*v, 10)
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// workloadString prints the workload shape as
// "T×(SYSTEM+TASK, +OUTPUT+TOOL) Z=THINKs" and other keys.
func workloadString(r *schema.Run) string {
	if r.Turns == nil && r.SystemTokens == nil && r.TaskTokens == nil && r.OutputTokens == nil && r.ToolTokens == nil && r.ThinkMeanS == nil {
		// A load generator's run: its manifest gives no agent workload.
		s := "unknown"
		if r.WorkloadExtra != "" && r.WorkloadExtra != "{}" {
			s += " " + r.WorkloadExtra
		}
		return s
	}
	s := optInt(r.Turns) + "×(" + optInt(r.SystemTokens) + "+" + optInt(r.TaskTokens) +
		", +" + optInt(r.OutputTokens) + "+" + optInt(r.ToolTokens) + ") Z=" + optFloat(r.ThinkMeanS) + "s"
	if r.WorkloadExtra != "" && r.WorkloadExtra != "{}" {
		s += " " + r.WorkloadExtra
	}
	return s
}

// LabelPrefix selects a key of the runs' labels as a column: "label.gpu".
const LabelPrefix = "label."

// RunsColumn returns the value of a runs-table column of r, by its Parquet
// name ("engine_version", "kv_pool_tokens", "seed", ...) or, with the
// LabelPrefix, a key of its labels ("label.gpu"). Null values are "null";
// numbers print in their shortest exact form, times as RFC 3339. It fails
// for an unknown column.
func RunsColumn(r *schema.Run, name string) (string, error) {
	if key, ok := strings.CutPrefix(name, LabelPrefix); ok {
		var labels map[string]any
		if r.Labels != "" {
			if err := json.Unmarshal([]byte(r.Labels), &labels); err != nil {
				return "", fmt.Errorf("run %s: labels: %v", r.Run, err)
			}
		}
		v, ok := labels[key]
		if !ok || v == nil {
			return "null", nil
		}
		if s, ok := v.(string); ok {
			return s, nil
		}
		b, _ := json.Marshal(v)
		return string(b), nil
	}
	if name == "run" {
		return r.Run, nil
	}
	v := reflect.ValueOf(r).Elem()
	t := v.Type()
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("parquet"), ",")
		if tag != name || tag == "-" {
			continue
		}
		return formatValue(v.Field(i)), nil
	}
	return "", fmt.Errorf("no runs column %q (want a runs-table column such as engine_version, or %sKEY)", name, LabelPrefix)
}

// RunsColumns lists the runs table's column names, in schema order.
func RunsColumns() []string {
	t := reflect.TypeOf(schema.Run{})
	var out []string
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("parquet"), ",")
		if tag != "-" && tag != "" {
			out = append(out, tag)
		}
	}
	return out
}

func formatValue(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "null"
		}
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case float64:
		return fmtFloat(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v.Interface())
}

// sortValues orders column values: numerically when every value is a
// number ("null" last), otherwise naturally, runs of digits compared as
// numbers, so that version 0.4.4 comes before 0.10.1.
func sortValues(vals []string) {
	numeric := true
	for _, s := range vals {
		if s == "null" {
			continue
		}
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			numeric = false
			break
		}
	}
	sort.SliceStable(vals, func(i, j int) bool {
		a, b := vals[i], vals[j]
		if numeric {
			if a == "null" || b == "null" {
				return b == "null" && a != "null"
			}
			x, _ := strconv.ParseFloat(a, 64)
			y, _ := strconv.ParseFloat(b, 64)
			return x < y
		}
		return naturalLess(a, b)
	})
}

// naturalLess compares a and b piece by piece: runs of digits by their
// value (ties by length, so "01" after "1"), anything else byte by byte.
func naturalLess(a, b string) bool {
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			i, j := 0, 0
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			x, y := strings.TrimLeft(a[:i], "0"), strings.TrimLeft(b[:j], "0")
			if len(x) != len(y) {
				return len(x) < len(y)
			}
			if x != y {
				return x < y
			}
			if i != j {
				return i < j
			}
			a, b = a[i:], b[j:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}
