package fleet

import (
	"fmt"
	"time"
)

// The defaults of Config's zero fields (Check shows them resolved).
const (
	defaultName        = "rollnet"
	defaultHeartbeat   = 500 * time.Millisecond
	defaultDeadAfter   = 2 * time.Second
	defaultOpTimeout   = 2 * time.Second
	defaultTokenTTL    = 30 * time.Second
	defaultPlaceExpiry = 15 * time.Second
	defaultForgetAfter = time.Minute
)

// Config is the fleet's name and timing, shared by hosts and placers. Its
// zero value means the documented defaults.
type Config struct {
	// Name separates fleets on one NATS: the bucket is "<Name>-fleet"
	// (default "rollnet", letters, digits, '-' and '_').
	Name string
	// Tuning holds the fleet's timing: heartbeats, timeouts, expiries.
	Tuning Tuning
}

// Tuning holds Config's timing, which a game rarely turns; the zero value
// of each means its documented default.
type Tuning struct {
	// Heartbeat is how often a host rewrites its record (default 500 ms).
	// DeadAfter is how long a placer waits for a host's next beat before
	// it takes the host for gone (default 2 s, at least two heartbeats).
	Heartbeat, DeadAfter time.Duration
	// OpTimeout bounds one key-value operation (default 2 s).
	OpTimeout time.Duration
	// TokenTTL is how long a connect token handed out is valid (default
	// 30 s; the host's Verifier must accept it: connecttoken's
	// MaxLifetime is 10 min).
	TokenTTL time.Duration
	// PlaceExpiry is how long a placed match may wait for its first client
	// before its host forgets it (default 15 s; at least TokenTTL is
	// sensible only if clients dial late, which they do not).
	PlaceExpiry time.Duration
	// ForgetAfter is how long a placer keeps a gone host's record (no new
	// beat seen for that long, on the placer's clock) before it deletes
	// it from the bucket, with the rooms that still name it (default
	// 1 min; at least DeadAfter).
	ForgetAfter time.Duration
}

func (c Config) withDefaults() (Config, error) {
	if c.Name == "" {
		c.Name = defaultName
	}
	for _, r := range c.Name {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
			return c, fmt.Errorf("%w: Name %q: want letters, digits, - and _", errConfig, c.Name)
		}
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"Tuning.Heartbeat", &c.Tuning.Heartbeat, defaultHeartbeat},
		{"Tuning.DeadAfter", &c.Tuning.DeadAfter, defaultDeadAfter},
		{"Tuning.OpTimeout", &c.Tuning.OpTimeout, defaultOpTimeout},
		{"Tuning.TokenTTL", &c.Tuning.TokenTTL, defaultTokenTTL},
		{"Tuning.PlaceExpiry", &c.Tuning.PlaceExpiry, defaultPlaceExpiry},
		{"Tuning.ForgetAfter", &c.Tuning.ForgetAfter, defaultForgetAfter},
	} {
		if *d.v < 0 {
			return c, fmt.Errorf("%w: %s %v is negative", errConfig, d.name, *d.v)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if c.Tuning.DeadAfter < 2*c.Tuning.Heartbeat {
		return c, fmt.Errorf("%w: DeadAfter %v is under two heartbeats (%v)", errConfig, c.Tuning.DeadAfter, c.Tuning.Heartbeat)
	}
	if c.Tuning.ForgetAfter < c.Tuning.DeadAfter {
		return c, fmt.Errorf("%w: ForgetAfter %v is under DeadAfter (%v)", errConfig, c.Tuning.ForgetAfter, c.Tuning.DeadAfter)
	}
	return c, nil
}

// Check returns c with its defaults, or the error that makes it invalid.
func (c Config) Check() (Config, error) { return c.withDefaults() }
