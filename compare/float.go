package compare

import "github.com/outlast-dev/outlast/internal/jsonnum"

// Float is a computed number of a comparison: NaN (an interval from too
// few runs) marshals as null, and values are rounded to
// jsonnum.SignificantDigits so that outputs do not depend on the CPU.
type Float = jsonnum.Float
