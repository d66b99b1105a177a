package enginelog

// Slab hands out zeroed values carved from larger allocations, so that
// the values a reader hands on (the fields of a sample) cost no allocation
// of their own.
type Slab[T any] struct {
	free []T
	size int
}

// NewSlab returns a slab that allocates size values at a time.
func NewSlab[T any](size int) Slab[T] { return Slab[T]{size: size} }

// New returns a fresh zero value.
func (s *Slab[T]) New() *T {
	if len(s.free) == 0 {
		s.free = make([]T, s.size)
	}
	v := &s.free[0]
	s.free = s.free[1:]
	return v
}
