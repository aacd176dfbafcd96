package ringmodel_test

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/rollnet/rollnet/internal/ringmodel"
)

// stuckRing never keeps a commit: the model notices at once.
type stuckRing struct{ live [4]byte }

func (r *stuckRing) Live() []byte                   { return r.live[:] }
func (r *stuckRing) Commit()                        {}
func (r *stuckRing) Rollback(int) error             { return errors.New("depth") }
func (r *stuckRing) Peek(int) ([]byte, error)       { return nil, errors.New("depth") }
func (r *stuckRing) Depth() int                     { return 0 }
func (r *stuckRing) Capacity() int                  { return 4 }
func (r *stuckRing) Reset()                         {}
func (r *stuckRing) Checksum() uint32               { return 0 }
func (r *stuckRing) ChecksumAt(int) (uint32, error) { return 0, errors.New("depth") }

func ExampleCheck() {
	rng := rand.New(rand.NewPCG(1, 2))
	err := ringmodel.Check(&stuckRing{}, rng, ringmodel.Config{Capacity: 4, Ops: 1000})
	fmt.Println(errors.Is(err, ringmodel.ErrMismatch))
	// Output: true
}
