package signaling

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// The defaults of ClusterConfig's zero fields (ServerConfig.Check shows
// them resolved).
const (
	defaultClusterName      = "rollnet"
	defaultClusterHeartbeat = 500 * time.Millisecond
	defaultClusterDeadAfter = 3 * time.Second
	defaultClusterOpTimeout = 3 * time.Second
)

// ClusterConfig configures the instances that share rooms over NATS
// (ServerConfig.NATS). Its zero value means the documented defaults.
type ClusterConfig struct {
	// Name separates sets of instances on one NATS: the key-value bucket
	// is "<Name>-rooms" and every subject starts with "<Name>." (default
	// "rollnet"; letters, digits, '-' and '_').
	Name string
	// Heartbeat is how often an instance says it is alive (default
	// 500 ms); an instance not heard for DeadAfter (default 3 s) is dead:
	// the others take its clients out of their rooms, so their peers hear
	// peer-left within DeadAfter + Heartbeat (plus a key-value write and
	// its delivery, milliseconds).
	Heartbeat time.Duration
	DeadAfter time.Duration
	// OpTimeout bounds one join or leave's key-value operations (default
	// 3 s): a join that cannot reach NATS in time is closed with
	// code 4006 (client.ErrClusterUnavailable).
	OpTimeout time.Duration
}

func (c ClusterConfig) withDefaults() (ClusterConfig, error) {
	if c.Name == "" {
		c.Name = defaultClusterName
	}
	for _, r := range c.Name {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
			return c, fmt.Errorf("%w: Cluster.Name %q: want letters, digits, - and _", wire.ErrConfig, c.Name)
		}
	}
	durs := []field[time.Duration]{
		{"Cluster.Heartbeat", &c.Heartbeat, defaultClusterHeartbeat},
		{"Cluster.DeadAfter", &c.DeadAfter, defaultClusterDeadAfter},
		{"Cluster.OpTimeout", &c.OpTimeout, defaultClusterOpTimeout},
	}
	if err := setDefaults(durs); err != nil {
		return c, err
	}
	if c.DeadAfter < 2*c.Heartbeat {
		return c, fmt.Errorf("%w: Cluster.DeadAfter %v is less than two heartbeats (%v)", wire.ErrConfig, c.DeadAfter, c.Heartbeat)
	}
	return c, nil
}
