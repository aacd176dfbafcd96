package signaling

import "time"

// Defaults for the zero fields of ClusterConfig.
const (
	DefaultClusterName      = "rollnet"
	DefaultClusterHeartbeat = 500 * time.Millisecond
	DefaultClusterDeadAfter = 3 * time.Second
	DefaultClusterOpTimeout = 3 * time.Second
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
	// client.CodeClusterUnavailable.
	OpTimeout time.Duration
}
