//go:build !js

package signaling

import "github.com/nats-io/nats.go"

// natsConn is the type of ServerConfig.NATS. The server's NATS clustering
// (cluster.go) and Prometheus metrics (metrics_prom.go) are built for native
// targets only: a browser build (GOOS=js) of a game that links this package
// for its client would otherwise carry NATS, JetStream, Prometheus and
// protobuf, which no page can use (the server does not run in a browser).
type natsConn = *nats.Conn
