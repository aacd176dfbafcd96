package playout

import (
	"fmt"
	"time"
)

// checkStep fills in DefaultStep for a zero step and checks its range.
func checkStep(step *time.Duration) error {
	if *step == 0 {
		*step = DefaultStep
	}
	if *step < time.Microsecond || *step > time.Second {
		return fmt.Errorf("%w: Step %v not in [1µs, 1s]", errConfig, *step)
	}
	return nil
}

// checkFraction fills in def for a zero field and checks that it is in
// (0, most]; NaN fails.
func checkFraction(name string, v *float64, def, most float64) error {
	if *v == 0 {
		*v = def
	}
	if !(*v > 0 && *v <= most) {
		return fmt.Errorf("%w: %s %v not in (0, %v]", errConfig, name, *v, most)
	}
	return nil
}
