package dedicated

import (
	"flag"
	"fmt"
	"time"

	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/internal/natsauth"
)

// fleetOptions are the flags of a host in a fleet (-fleet NATS_URL): it
// registers in the fleet's bucket, runs up to -capacity matches at once
// (one per room its clients' connect tokens name) and drains on SIGTERM.
type fleetOptions struct {
	url, name, id, version string
	matches, clients       int
	drain, linger          time.Duration
	heartbeat, deadAfter   time.Duration
	metrics                string
	auth                   natsauth.Flags
}

func (f *fleetOptions) register(fs *flag.FlagSet) {
	def, _ := fleet.Config{}.Check() // the defaults, shown in -h
	fs.StringVar(&f.url, "fleet", "", "join the fleet on this `NATS` URL (nats://HOST:4222, JetStream enabled): placed by rollnet-signal -fleet, up to -capacity matches at once; needs -quic and -token-secret-file")
	fs.StringVar(&f.name, "fleet-name", def.Name, "the fleet's `NAME` on that NATS (its bucket is NAME-fleet)")
	fs.StringVar(&f.id, "fleet-id", "", "this host's `ID` in the fleet (empty: host- and the QUIC port)")
	fs.StringVar(&f.version, "version", "1", "the game `VERSION` this host runs: a client of another is never placed here")
	fs.IntVar(&f.matches, "capacity", 8, "with -fleet: matches run at once")
	fs.IntVar(&f.clients, "capacity-clients", 0, "with -fleet: clients at once (0: -capacity times the game's clients per match)")
	fs.DurationVar(&f.drain, "drain-deadline", time.Minute, "with -fleet: on SIGTERM (or POST /drain, or an operator's drain order: rollnet-fleet -drain ID) take no new match and end the running ones after this long")
	fs.DurationVar(&f.linger, "match-linger", 5*time.Second, "with -fleet: how long a match whose clients all left waits for one to come back")
	fs.DurationVar(&f.heartbeat, "fleet-heartbeat", def.Tuning.Heartbeat, "with -fleet: how often the host rewrites its record")
	fs.DurationVar(&f.deadAfter, "fleet-dead-after", def.Tuning.DeadAfter, "with -fleet: silence after which placers take the host for gone (the placers' own setting decides; this one is checked against -fleet-heartbeat)")
	f.auth.Register(fs)
	fs.StringVar(&f.metrics, "metrics", "", "with -fleet: serve Prometheus /metrics, the /fleet JSON view and POST /drain on `ADDR` (keep it private)")
}

func (f fleetOptions) validate(q quicOptions) error {
	if f.url == "" {
		if f.metrics != "" || f.id != "" || f.auth != (natsauth.Flags{}) {
			return fmt.Errorf("%w: -metrics, -fleet-id and the -nats-* flags need -fleet", ErrUsage)
		}
		return nil
	}
	if err := f.auth.Validate(f.url); err != nil {
		return fmt.Errorf("%w: -fleet: %v", ErrUsage, err)
	}
	switch {
	case q.addr == "" || q.secretFile == "":
		return fmt.Errorf("%w: -fleet needs -quic and -token-secret-file (the placers' secret): a fleet's clients come with connect tokens", ErrUsage)
	case f.matches < 1 || f.clients < 0:
		return fmt.Errorf("%w: -capacity must be >= 1, -capacity-clients >= 0", ErrUsage)
	case f.drain < 0 || f.linger < 0:
		return fmt.Errorf("%w: -drain-deadline and -match-linger must be >= 0", ErrUsage)
	}
	if _, err := (fleet.Config{Name: f.name, Tuning: fleet.Tuning{Heartbeat: f.heartbeat, DeadAfter: f.deadAfter}}).Check(); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return nil
}
