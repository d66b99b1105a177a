package enginelog

// Dialect is the dialect a log shows, decided by the newest marker seen
// anywhere in it: each marker has a rank, oldest first, and the highest
// rank seen names the dialect.
type Dialect struct {
	names []string
	rank  int
}

// NewDialect returns a dialect in which rank r is named names[r]; rank 0,
// nothing seen, is named names[0] (usually "").
func NewDialect(names ...string) Dialect { return Dialect{names: names} }

// Saw records a marker of rank r.
func (d *Dialect) Saw(r int) { d.rank = max(d.rank, r) }

// Rank returns the highest rank seen.
func (d *Dialect) Rank() int { return d.rank }

// Name returns the name of the highest rank seen.
func (d *Dialect) Name() string { return d.names[d.rank] }
