package loadgen

import "io"

// Source is a load generator's reader: its turns in file order, each bad
// record a *textpos.ParseError.
type Source interface {
	Next() (*Turn, error)
}

// Read adds the turns of src to c until its end. Each turn c accepts goes
// to accepted, if not nil; each error, of a record or of the Collector,
// goes to bad, and an error bad returns ends the read and is returned.
func (c *Collector) Read(src Source, accepted func(*Turn), bad func(error) error) error {
	for {
		t, err := src.Next()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			if err = c.Add(t); err == nil {
				if accepted != nil {
					accepted(t)
				}
				continue
			}
		}
		if err := bad(err); err != nil {
			return err
		}
	}
}
