package main

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet/transport/impair"
	"github.com/rollnet/rollnet/transport/local"
)

// impairment is the -impair flag: latency, jitter and loss added to every
// datagram, each way, by transport/impair around the WebRTC transport.
type impairment local.Link

// maxImpair bounds -impair's latency plus jitter, each way: two players
// impairing this much finish the handshake (5 round trips) in syncTimeout.
const maxImpair = time.Second

func (im impairment) label() string {
	s := im.Latency.String()
	if im.Jitter > 0 {
		s += "±" + im.Jitter.String()
	}
	if im.Loss > 0 {
		s += fmt.Sprintf(" %g%% loss", im.Loss*100)
	}
	return s + " each way"
}

func (im impairment) config(seed uint32) impair.Config {
	return impair.Config{Out: local.Link(im), In: local.Link(im), Seed: uint64(seed)}
}

func (im *impairment) String() string {
	if im == nil || *im == (impairment{}) {
		return ""
	}
	return impair.FormatLink(local.Link(*im))
}

// Set parses "latency[,jitter[,loss%]]", e.g. "100ms,15ms,2%".
func (im *impairment) Set(v string) error {
	l, err := impair.ParseLink(v)
	if err != nil {
		return err
	}
	if l.Latency+l.Jitter > maxImpair {
		return fmt.Errorf("latency+jitter %v over %v: the handshake could not finish", l.Latency+l.Jitter, maxImpair)
	}
	*im = impairment{Latency: l.Latency, Jitter: l.Jitter, Loss: l.Loss}
	return nil
}
